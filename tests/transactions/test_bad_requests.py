"""The transaction APIs over raw requests: the producer id and epoch a transactional id gets
(bumps, KIP-360 retries, fencing), and Kafka's error codes for what a request gets wrong."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from ferrolog import errors
from ferrolog.controller.coordinator.partitioning import partition_for

from tests.transactions.conftest import create_topic
from tests.transactions.raw import (
    ADD_OFFSETS,
    ADD_PARTITIONS,
    FIND_COORDINATOR,
    TXN_OFFSET_COMMIT,
    WRITE_TXN_MARKERS,
    Client,
    end_offset,
    found,
    produce_raw,
    ready,
    until_answered,
)
from tests.waiting import wait_until

LIST_TRANSACTIONS = 66
OFFSET_FETCH = 9


@pytest.fixture
def client(bootstrap: str) -> Iterator[Client]:
    c = Client(bootstrap)
    yield c
    c.conn.close()


def test_epochs_bump_and_kip360_retries(client: Client) -> None:
    txn_id = f"tx-{uuid.uuid4().hex[:8]}"
    code, (pid, epoch) = ready(client, txn_id)
    assert (code, epoch) == (0, 0)
    assert client.init(txn_id) == (0, (pid, 1))
    # KIP-360: the producer names what it had; a retry of that bump gets the same answer.
    assert client.init(txn_id, (pid, 1)) == (0, (pid, 2))
    assert client.init(txn_id, (pid, 1)) == (0, (pid, 2))
    # An epoch older than that is a fenced producer; an id that is not the id's, too.
    fenced = errors.ProducerFencedError.code
    assert client.init(txn_id, (pid, 0)) == (fenced, (-1, -1))
    assert client.init(txn_id, (pid + 1000, 2))[0] == fenced
    # Half a producer (an id without an epoch) is a malformed request.
    assert client.init(txn_id, (pid, -1))[0] == errors.InvalidRequestError.code


def test_bad_timeouts_and_ids(client: Client) -> None:
    txn_id = f"tx-{uuid.uuid4().hex[:8]}"
    found(client, txn_id)
    too_long = client.init(txn_id, timeout=900_001)
    assert too_long == (errors.InvalidTransactionTimeoutError.code, (-1, -1))
    assert client.init(txn_id, timeout=0)[0] == errors.InvalidTransactionTimeoutError.code
    assert client.init("")[0] == errors.InvalidRequestError.code
    # Kafka 4.1 finds a coordinator even for the empty id; InitProducerId refuses it.
    r = client.request(FIND_COORDINATOR, 3, {"key": "", "key_type": 1})
    assert r["error_code"] == 0
    # ListTransactions v2 with a pattern that does not compile.
    listing = {"state_filters": [], "producer_id_filters": [], "transactional_id_pattern": "(x"}
    r = client.request(LIST_TRANSACTIONS, 2, listing)
    assert r["error_code"] == errors.InvalidRegularExpressionError.code
    assert r["transaction_states"] == []


def test_requests_of_unknown_ids_wrong_epochs_and_wrong_states(
    client: Client, bootstrap: str
) -> None:
    topic = create_topic(bootstrap, partitions=2)
    txn_id = f"tx-{uuid.uuid4().hex[:8]}"
    _, (pid, epoch) = ready(client, txn_id)
    mapping = errors.InvalidProducerIdMappingError.code
    unknown = f"tx-{uuid.uuid4().hex[:8]}"
    found(client, unknown)
    assert client.add(unknown, (pid, epoch), topic, 0) == {0: mapping}
    assert client.add(txn_id, (pid + 1, epoch), topic, 0) == {0: mapping}
    assert client.add(txn_id, (pid, epoch + 1), topic, 0) == {0: errors.ProducerFencedError.code}
    # Before v2 a fenced producer hears INVALID_PRODUCER_EPOCH, which it knows.
    assert client.end(txn_id, (pid, epoch + 1), True, version=1) == (
        errors.InvalidProducerEpochError.code
    )
    # Nothing added: there is no transaction to end (v4 answers as v3).
    assert client.end(txn_id, (pid, epoch), True) == errors.InvalidTxnStateError.code
    assert client.end(txn_id, (pid, epoch), True, version=4) == errors.InvalidTxnStateError.code
    # A partition of an unknown topic: nothing is added, the others are not attempted.
    assert client.add(txn_id, (pid, epoch), "no-such-topic", 0) == {
        0: errors.UnknownTopicOrPartitionError.code
    }
    assert client.add(txn_id, (pid, epoch), topic, 0, 7) == {
        0: errors.OperationNotAttemptedError.code,
        7: errors.UnknownTopicOrPartitionError.code,
    }
    assert client.add(txn_id, (pid, epoch), topic, 0, 1) == {0: 0, 1: 0}
    assert client.end(txn_id, (pid, epoch), False) == 0
    # A retried abort is answered as the first; a commit of it is the wrong state.
    assert client.end(txn_id, (pid, epoch), False) in (0, errors.ConcurrentTransactionsError.code)
    assert client.end(txn_id, (pid, epoch), True) in (
        errors.InvalidTxnStateError.code,
        errors.ConcurrentTransactionsError.code,
    )


def test_offsets_and_markers_of_unknown_partitions(client: Client, bootstrap: str) -> None:
    txn_id = f"tx-{uuid.uuid4().hex[:8]}"
    _, (pid, epoch) = ready(client, txn_id)
    group = f"g-{txn_id}"
    r = client.request(
        ADD_OFFSETS,
        3,
        {
            "transactional_id": txn_id,
            "producer_id": pid,
            "producer_epoch": epoch,
            "group_id": group,
        },
    )
    assert r["error_code"] == 0
    client.request(FIND_COORDINATOR, 3, {"key": group, "key_type": 0})
    commit = {
        "transactional_id": txn_id,
        "group_id": group,
        "producer_id": pid,
        "producer_epoch": epoch,
        "generation_id_or_member_epoch": -1,
        "member_id": "",
        "group_instance_id": None,
        "topics": [
            {
                "name": "no-such-topic",
                "partitions": [
                    {"partition_index": 0, "committed_offset": 5, "committed_metadata": ""}
                ],
            }
        ],
    }
    loading = errors.CoordinatorLoadInProgressError.code
    r = until_answered(
        lambda: client.request(TXN_OFFSET_COMMIT, 3, commit),
        lambda r: r["topics"][0]["partitions"][0]["error_code"] == loading,
        "the group coordinator",
    )
    (t,) = r["topics"]
    assert t["partitions"][0]["error_code"] == errors.UnknownTopicOrPartitionError.code
    assert client.end(txn_id, (pid, epoch), False) == 0
    r = client.request(
        WRITE_TXN_MARKERS,
        1,
        {
            "markers": [
                {
                    "producer_id": pid,
                    "producer_epoch": epoch,
                    "transaction_result": True,
                    "topics": [{"name": "no-such-topic", "partition_indexes": [3]}],
                    "coordinator_epoch": 0,
                }
            ]
        },
    )
    (m,) = r["markers"]
    assert m["topics"][0]["partitions"] == [
        {"partition_index": 3, "error_code": errors.UnknownTopicOrPartitionError.code}
    ]


def test_transactional_batches_outside_a_transaction_are_refused(
    client: Client, bootstrap: str
) -> None:
    """KIP-890: a batch of a partition never added to the transaction is refused, not
    appended (so it cannot open a transaction nobody ends), as Kafka 4.1 answers: Produce
    v9 INVALID_TXN_STATE, v11 TRANSACTION_ABORTABLE; TxnOffsetCommit without AddOffsetsToTxn
    v3 INVALID_TXN_STATE, v4 TRANSACTION_ABORTABLE."""
    topic = create_topic(bootstrap)
    txn_id = f"tx-{uuid.uuid4().hex[:8]}"
    _, producer = ready(client, txn_id)
    assert produce_raw(client, txn_id, topic, producer, 9) == errors.InvalidTxnStateError.code
    assert produce_raw(client, txn_id, topic, producer, 11) == errors.TransactionAbortableError.code
    assert end_offset(client, topic) == 0
    group = f"g-{txn_id}"
    client.request(FIND_COORDINATOR, 3, {"key": group, "key_type": 0})
    commit = {
        "transactional_id": txn_id,
        "group_id": group,
        "producer_id": producer[0],
        "producer_epoch": producer[1],
        "topics": [
            {
                "name": topic,
                "partitions": [
                    {"partition_index": 0, "committed_offset": 1, "committed_metadata": ""}
                ],
            }
        ],
    }
    loading = errors.CoordinatorLoadInProgressError.code
    code = until_answered(
        lambda: client.request(TXN_OFFSET_COMMIT, 3, commit)["topics"][0]["partitions"][0],
        lambda p: p["error_code"] == loading,
        "the group coordinator",
    )
    assert code["error_code"] == errors.InvalidTxnStateError.code
    answer = client.request(TXN_OFFSET_COMMIT, 4, commit)["topics"][0]["partitions"][0]
    assert answer["error_code"] == errors.TransactionAbortableError.code
    # Added, the same batch goes in; ended, a late one is refused again.
    assert client.add(txn_id, producer, topic, 0) == {0: 0}
    assert produce_raw(client, txn_id, topic, producer, 9) == 0
    assert client.end(txn_id, producer, True) == 0
    # Once the COMMIT marker is in (before it, a late batch still joins the committing
    # transaction, in Kafka 4.1 too: KIP-890 part 2 closes that).
    wait_until(lambda: end_offset(client, topic) == 2, what="the COMMIT marker")
    # NOT_ENOUGH_REPLICAS (retriable) while the coordinator is still completing the commit.
    refused = until_answered(
        lambda: produce_raw(client, txn_id, topic, producer, 9, sequence=1),
        lambda code: code == errors.NotEnoughReplicasError.code,
        "the coordinator",
    )
    assert refused == errors.InvalidTxnStateError.code
    # Even a retry of the batch that went in: verification comes first, as in Kafka 4.1.
    assert produce_raw(client, txn_id, topic, producer, 9) == errors.InvalidTxnStateError.code
    assert end_offset(client, topic) == 2  # the batch and its COMMIT marker


@pytest.mark.parametrize(("version", "not_in_it"), [(4, 48), (5, 120)])
def test_verify_only_tells_which_partitions_are_in_the_transaction(
    client: Client, bootstrap: str, version: int, not_in_it: int
) -> None:
    """AddPartitionsToTxn from a broker (v4+) that only asks (KIP-890): a partition outside
    the ongoing transaction is INVALID_TXN_STATE to v4, TRANSACTION_ABORTABLE to v5."""
    topic = create_topic(bootstrap, partitions=2)
    txn_id = f"tx-{uuid.uuid4().hex[:8]}"
    code, producer = ready(client, txn_id)
    assert code == 0
    assert client.add(txn_id, producer, topic, 0) == {0: 0}
    body = {
        "transactions": [
            {
                "transactional_id": txn_id,
                "producer_id": producer[0],
                "producer_epoch": producer[1],
                "verify_only": True,
                "topics": [{"name": topic, "partitions": [0, 1]}],
            }
        ]
    }
    answer = client.request(ADD_PARTITIONS, version, body)
    (txn,) = answer["results_by_transaction"]
    (result,) = txn["topic_results"]
    partitions = result["results_by_partition"]
    codes = {p["partition_index"]: p["partition_error_code"] for p in partitions}
    assert codes == {0: 0, 1: not_in_it}


def test_a_marker_from_another_coordinator_settles_offsets_in_consumer_offsets(
    client: Client, bootstrap: str
) -> None:
    """A WriteTxnMarkers request (served by the native core, as a remote transaction
    coordinator sends it) that commits a producer's transaction in its group's partition of
    `__consumer_offsets` makes the group coordinator take the pending offset: a stable
    OffsetFetch answers it instead of UNSTABLE_OFFSET_COMMIT."""
    topic = create_topic(bootstrap)
    txn_id = f"tx-{uuid.uuid4().hex[:8]}"
    _, (pid, epoch) = ready(client, txn_id)
    group = f"g-{txn_id}"
    add = {"transactional_id": txn_id, "producer_id": pid, "producer_epoch": epoch}
    assert client.request(ADD_OFFSETS, 3, {**add, "group_id": group})["error_code"] == 0
    client.request(FIND_COORDINATOR, 3, {"key": group, "key_type": 0})
    partitions = [{"partition_index": 0, "committed_offset": 5, "committed_metadata": ""}]
    commit = {
        **add,
        "group_id": group,
        "generation_id_or_member_epoch": -1,
        "member_id": "",
        "group_instance_id": None,
        "topics": [{"name": topic, "partitions": partitions}],
    }
    loading = errors.CoordinatorLoadInProgressError.code
    r = until_answered(
        lambda: client.request(TXN_OFFSET_COMMIT, 3, commit),
        lambda r: r["topics"][0]["partitions"][0]["error_code"] == loading,
        "the group coordinator",
    )
    assert r["topics"][0]["partitions"][0]["error_code"] == 0

    def fetched() -> tuple[int, int]:
        body = {"group_id": group, "topics": [{"name": topic, "partition_indexes": [0]}]}
        (p,) = client.request(OFFSET_FETCH, 7, {**body, "require_stable": True})["topics"][0][
            "partitions"
        ]
        return p["error_code"], p["committed_offset"]

    assert fetched() == (errors.UnstableOffsetCommitError.code, -1)
    offsets_partition = partition_for(group, 4)  # the broker's offsets.topic.num.partitions
    marker = {
        "producer_id": pid,
        "producer_epoch": epoch,
        "transaction_result": True,
        "topics": [{"name": "__consumer_offsets", "partition_indexes": [offsets_partition]}],
        "coordinator_epoch": 1000,
    }
    r = client.request(WRITE_TXN_MARKERS, 1, {"markers": [marker]})
    assert r["markers"][0]["topics"][0]["partitions"][0]["error_code"] == 0
    # The group coordinator hears of the marker once the native core's event is drained.
    wait_until(lambda: fetched() == (0, 5), 10, what="the committed offset after the marker")
