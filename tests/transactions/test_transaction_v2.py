"""Transaction version 2 (KIP-890 part 2) at the coordinator: EndTxn v5 bumps the producer's
epoch with every commit and abort and answers the id and epoch to go on with, as Kafka 4.4
does for that version whatever the cluster's `transaction.version`. The decisions table by
table, then a producer's transactions through a broker, markers and reads included (the same
test passes against Kafka 4.4 with FERROLOG_TXN_BOOTSTRAP)."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator

import pytest
from ferrolog import errors
from ferrolog.controller.coordinator.txn import operations, records
from ferrolog.controller.coordinator.txn.operations import NeedProducerId
from ferrolog.controller.coordinator.txn.state import (
    EPOCH_EXHAUSTED,
    TV2,
    Transit,
    TxnMetadata,
    TxnState,
)
from ferrolog.protocol import ZERO_UUID

from tests.transactions.conftest import create_topic, read_all
from tests.transactions.raw import (
    FIND_COORDINATOR,
    TXN_OFFSET_COMMIT,
    Client,
    produce_raw,
    ready,
    until_answered,
)

S = TxnState
PID = 4000
METADATA, DESCRIBE_TRANSACTIONS = 3, 65
CONCURRENT = errors.ConcurrentTransactionsError.code
INVALID_STATE = errors.InvalidTxnStateError.code
FENCED = errors.ProducerFencedError.code


def meta(state: TxnState, epoch: int = 3, partitions: int = 1) -> TxnMetadata:
    m = TxnMetadata.new("tx", PID, 60_000, now=0)
    m.producer_epoch, m.state = epoch, state
    if state in (S.ONGOING, S.PREPARE_COMMIT, S.PREPARE_ABORT):
        m.partitions = {("t", p) for p in range(partitions)}
        m.start_ms = 100
    return m


def ended(m: TxnMetadata, commit: bool, epoch: int, now: int = 500) -> Transit:
    """EndTxn v5 prepared, written and completed: the Complete* transit."""
    prepared = operations.decide_end_v2(m, PID, epoch, commit, now)
    assert isinstance(prepared, Transit), prepared
    m.complete(prepared)
    complete = m.prepare_complete(now + 1)
    m.complete(complete)
    return complete


def test_an_end_bumps_the_epoch_as_it_prepares_and_answers_the_new_one() -> None:
    for commit in (True, False):
        m = meta(S.ONGOING)
        prepared = operations.decide_end_v2(m, PID, 3, commit, 500)
        assert isinstance(prepared, Transit)
        state = S.PREPARE_COMMIT if commit else S.PREPARE_ABORT
        assert (prepared.state, prepared.producer_epoch, prepared.last_producer_epoch) == (
            state, 4, 3
        )  # fmt: skip
        assert (prepared.partitions, prepared.client_version) == (frozenset({("t", 0)}), TV2)
        assert prepared.answer() == (PID, 4)
        m.complete(prepared)
        # The markers carry the new epoch; completing keeps it.
        complete = m.prepare_complete(600)
        assert (complete.producer_id, complete.producer_epoch, complete.partitions) == (
            PID, 4, frozenset()
        )  # fmt: skip


def test_a_retry_with_the_epoch_before_the_bump() -> None:
    m = meta(S.ONGOING)
    prepared = operations.decide_end_v2(m, PID, 3, True, 500)
    assert isinstance(prepared, Transit)
    m.complete(prepared)
    # Markers not written yet: the same end waits, the other one is refused.
    assert operations.decide_end_v2(m, PID, 3, True, 501) == CONCURRENT
    assert operations.decide_end_v2(m, PID, 3, False, 501) == INVALID_STATE
    m.complete(m.prepare_complete(502))
    assert operations.decide_end_v2(m, PID, 3, True, 503) == operations.NONE
    assert operations.decide_end_v2(m, PID, 3, False, 503) == INVALID_STATE
    # Older still: fenced.
    assert operations.decide_end_v2(m, PID, 2, True, 503) == FENCED


def test_an_abort_with_nothing_ongoing_is_an_empty_abort_and_a_commit_is_refused() -> None:
    for state in (S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT):
        m = meta(state)
        assert operations.decide_end_v2(m, PID, 3, True, 500) == INVALID_STATE
        aborted = operations.decide_end_v2(m, PID, 3, False, 500)
        assert isinstance(aborted, Transit)
        assert (aborted.state, aborted.producer_epoch, aborted.partitions) == (
            S.PREPARE_ABORT, 4, frozenset()
        )  # fmt: skip
        assert aborted.start_ms == 500


def test_wrong_ids_epochs_and_pending_changes() -> None:
    assert operations.decide_end_v2(None, PID, 3, True, 500) == (
        errors.InvalidProducerIdMappingError.code
    )
    m = meta(S.ONGOING)
    assert operations.decide_end_v2(m, PID + 1, 3, True, 500) == (
        errors.InvalidProducerIdMappingError.code
    )
    for stale in (2, 4):
        assert operations.decide_end_v2(m, PID, stale, True, 500) == FENCED
    m.prepare_fence_epoch()
    assert operations.decide_end_v2(m, PID, 3, True, 500) == CONCURRENT


def test_an_exhausted_epoch_rotates_to_a_new_producer_id_when_the_end_completes() -> None:
    m = meta(S.ONGOING, epoch=EPOCH_EXHAUSTED)
    assert isinstance(operations.decide_end_v2(m, PID, EPOCH_EXHAUSTED, True, 500), NeedProducerId)
    prepared = operations.decide_end_v2(m, PID, EPOCH_EXHAUSTED, True, 500, new_producer_id=9000)
    assert isinstance(prepared, Transit)
    # Markers go out as the old id at the last epoch; the producer goes on as the new id.
    assert (prepared.producer_id, prepared.producer_epoch, prepared.next_producer_id) == (
        PID, EPOCH_EXHAUSTED + 1, 9000
    )  # fmt: skip
    assert prepared.answer() == (9000, 0)
    m.complete(prepared)
    complete = m.prepare_complete(600)
    assert (complete.producer_id, complete.producer_epoch, complete.last_producer_id) == (
        9000, 0, PID
    )  # fmt: skip
    assert complete.next_producer_id == -1
    m.complete(complete)
    # Its retry, with the old id and epoch, gets what the end got.
    assert operations.decide_end_v2(m, PID, EPOCH_EXHAUSTED, True, 700) == operations.NONE
    assert (m.producer_id, m.producer_epoch) == (9000, 0)


def test_a_version_2_transaction_is_logged_with_what_a_new_coordinator_needs() -> None:
    m = meta(S.ONGOING, epoch=EPOCH_EXHAUSTED)
    prepared = operations.decide_end_v2(m, PID, EPOCH_EXHAUSTED, False, 500, new_producer_id=9000)
    assert isinstance(prepared, Transit)
    value = records.encode_value(prepared)
    assert value[:2] == b"\x00\x01"  # TransactionLogValue v1
    # As Kafka's, the log keeps no last epoch.
    assert records.decode_value(value) == dataclasses.replace(prepared, last_producer_epoch=-1)
    # Transactions of older clients stay v0.
    old = meta(S.ONGOING)
    v1 = operations.decide_end(old, PID, 3, True, True, 500)
    assert isinstance(v1, Transit)
    assert records.encode_value(v1)[:2] == b"\x00\x00"


def test_a_broker_adding_partitions_marks_the_transaction_version_2() -> None:
    m = meta(S.EMPTY)
    added = operations.decide_add_partitions(m, PID, 3, [("t", 0)], 500, client_version=TV2)
    assert isinstance(added, Transit)
    assert (added.state, added.client_version, added.producer_epoch) == (S.ONGOING, TV2, 3)


@pytest.fixture
def client(bootstrap: str) -> Iterator[Client]:
    c = Client(bootstrap)
    yield c
    c.conn.close()


def test_a_producers_transactions_each_end_on_a_new_epoch(client: Client, bootstrap: str) -> None:
    topic = create_topic(bootstrap)
    txn_id = f"tx-{uuid.uuid4().hex[:8]}"
    code, (pid, epoch) = ready(client, txn_id)
    assert code == 0

    def add(e: int) -> None:
        answer = until_answered(
            lambda: client.add(txn_id, (pid, e), topic, 0),
            lambda a: a == {0: CONCURRENT},  # the last end's markers still being written
            "the partition added",
        )
        assert answer == {0: 0}

    def complete(ended: int, commit: bool, answered: int) -> None:
        """The end at epoch `ended` retried (CONCURRENT_TRANSACTIONS while its markers are
        being written) until it is answered as the first time: NONE and the new epoch."""
        retried = until_answered(
            lambda: client.end_v2(txn_id, (pid, ended), commit),
            lambda a: a[0] == CONCURRENT,
            "the end complete",
        )
        assert retried == (0, (pid, answered))

    # A committed transaction: its markers carry the bumped epoch.
    add(epoch)
    assert produce_raw(client, txn_id, topic, (pid, epoch), 11) == 0
    assert client.end_v2(txn_id, (pid, epoch), True) == (0, (pid, epoch + 1))
    # Its retry (the answer lost) gets the same answer, once complete.
    complete(epoch, True, epoch + 1)
    # The next transaction, on the new epoch from sequence 0, aborted.
    add(epoch + 1)
    assert produce_raw(client, txn_id, topic, (pid, epoch + 1), 11) == 0
    assert client.end_v2(txn_id, (pid, epoch + 1), False) == (0, (pid, epoch + 2))
    # Until its markers are written, the new epoch ends nothing (Kafka 4.4 fences it too).
    complete(epoch + 1, False, epoch + 2)
    # A batch of the old epoch is refused now.
    stale = produce_raw(client, txn_id, topic, (pid, epoch), 11, sequence=1)
    assert stale == errors.InvalidProducerEpochError.code
    # An abort with nothing ongoing: a new epoch still, no markers; then a commit of nothing
    # is refused, and an epoch two behind is fenced.
    assert client.end_v2(txn_id, (pid, epoch + 2), False) == (0, (pid, epoch + 3))
    complete(epoch + 2, False, epoch + 3)
    assert client.end_v2(txn_id, (pid, epoch + 3), True) == (INVALID_STATE, (-1, -1))
    assert client.end_v2(txn_id, (pid, epoch), False)[0] == FENCED
    # The committed record is read once, the aborted one not at all.
    assert read_all(bootstrap, topic, "read_committed", expected=1) == ["stray"]


def test_offsets_of_a_version_2_producer_join_its_transaction_by_topic_id(
    client: Client, bootstrap: str
) -> None:
    """TxnOffsetCommit v5+ with no AddOffsetsToTxn: the group's partition is added to the
    transaction for the producer; v6 names topics by id, an unknown id UNKNOWN_TOPIC_ID."""
    topic, group = create_topic(bootstrap), f"g-{uuid.uuid4().hex[:8]}"
    txn_id = f"tx-{uuid.uuid4().hex[:8]}"
    _, (pid, epoch) = ready(client, txn_id)
    metadata = client.request(METADATA, 12, {"topics": [{"name": topic, "topic_id": ZERO_UUID}]})
    topic_id = metadata["topics"][0]["topic_id"]
    client.request(FIND_COORDINATOR, 3, {"key": group, "key_type": 0})

    def commit(ids: list[bytes]) -> dict[bytes, int]:
        body = {
            "transactional_id": txn_id,
            "group_id": group,
            "producer_id": pid,
            "producer_epoch": epoch,
            "generation_id_or_member_epoch": -1,
            "member_id": "",
            "group_instance_id": None,
            "topics": [
                {
                    "topic_id": i,
                    "partitions": [
                        {"partition_index": 0, "committed_offset": 5, "committed_metadata": ""}
                    ],
                }
                for i in ids
            ],
        }
        r = until_answered(
            lambda: client.request(TXN_OFFSET_COMMIT, 6, body),
            lambda r: any(
                p["error_code"] == errors.CoordinatorLoadInProgressError.code
                for t in r["topics"]
                for p in t["partitions"]
            ),
            "the group coordinator",
        )
        return {t["topic_id"]: t["partitions"][0]["error_code"] for t in r["topics"]}

    unknown = bytes(range(16))
    assert commit([topic_id, unknown]) == {topic_id: 0, unknown: errors.UnknownTopicIdError.code}
    described = client.request(DESCRIBE_TRANSACTIONS, 0, {"transactional_ids": [txn_id]})
    (state,) = described["transaction_states"]
    assert state["transaction_state"] == "Ongoing"
    assert [t["topic"] for t in state["topics"]] == ["__consumer_offsets"]
    assert client.end_v2(txn_id, (pid, epoch), True) == (0, (pid, epoch + 1))
