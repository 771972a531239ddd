"""The transaction coordinator's pure decisions (Kafka's TransactionCoordinator and
TransactionMetadata), table by table: no broker, no I/O."""

from __future__ import annotations

import pytest
from ferrolog import errors
from ferrolog.controller.coordinator.txn import operations, records
from ferrolog.controller.coordinator.txn.operations import Expected, FenceThenAbort, NeedProducerId
from ferrolog.controller.coordinator.txn.state import (
    EPOCH_EXHAUSTED,
    IllegalTransition,
    Transit,
    TxnMetadata,
    TxnState,
)

S = TxnState
PID = 4000


def meta(state: TxnState = S.EMPTY, epoch: int = 3, partitions: int = 0) -> TxnMetadata:
    m = TxnMetadata.new("tx", PID, 60_000, now=0)
    m.producer_epoch, m.state = epoch, state
    m.partitions = {("t", p) for p in range(partitions)}
    m.start_ms = 100 if state == S.ONGOING else -1
    return m


def applied(m: TxnMetadata, t: Transit | int | object) -> TxnMetadata:
    assert isinstance(t, Transit), t
    m.complete(t)
    return m


def test_init_bumps_the_epoch_of_an_idle_id() -> None:
    for state in (S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT):
        m = meta(state)
        m = applied(m, operations.decide_init(m, 30_000, None, 5))
        assert (m.producer_id, m.producer_epoch, m.state, m.timeout_ms) == (PID, 4, S.EMPTY, 30_000)


def test_init_fences_an_ongoing_transaction_and_refuses_a_prepared_one() -> None:
    ongoing = meta(S.ONGOING, partitions=2)
    decision = operations.decide_init(ongoing, 30_000, None, 5)
    assert isinstance(decision, FenceThenAbort)
    assert (decision.transit.state, decision.transit.producer_epoch) == (S.PREPARE_EPOCH_FENCE, 4)
    for state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
        assert operations.decide_init(meta(state), 30_000, None, 5) == (
            errors.ConcurrentTransactionsError.code
        )


def test_init_while_a_change_is_pending_is_concurrent() -> None:
    m = meta()
    operations.decide_init(m, 30_000, None, 5)
    assert operations.decide_init(m, 30_000, None, 6) == errors.ConcurrentTransactionsError.code


def test_kip360_retries_and_fencing() -> None:
    m = meta()
    m = applied(m, operations.decide_init(m, 1, Expected(PID, 3), 5))
    assert (m.producer_epoch, m.last_producer_epoch) == (4, 3)
    # The producer retries with the epoch it had: the same answer.
    again = operations.decide_init(m, 1, Expected(PID, 3), 6)
    assert isinstance(again, Transit)
    assert again.producer_epoch == 4
    m.abort_pending()
    fenced = errors.ProducerFencedError.code
    assert operations.decide_init(m, 1, Expected(PID, 2), 6) == fenced
    assert operations.decide_init(m, 1, Expected(PID + 1, 4), 6) == fenced


def test_an_exhausted_epoch_rotates_the_producer_id() -> None:
    m = meta(epoch=EPOCH_EXHAUSTED)
    assert isinstance(operations.decide_init(m, 1, None, 5), NeedProducerId)
    rotated = operations.decide_init(m, 1, None, 5, new_producer_id=PID + 1)
    assert isinstance(rotated, Transit)
    assert (rotated.producer_id, rotated.producer_epoch, rotated.last_producer_id) == (
        PID + 1,
        0,
        PID,
    )


@pytest.mark.parametrize(
    ("producer_id", "epoch", "state", "expected"),
    [
        (PID + 1, 3, S.ONGOING, errors.InvalidProducerIdMappingError.code),
        (PID, 2, S.ONGOING, errors.ProducerFencedError.code),
        (PID, 3, S.PREPARE_COMMIT, errors.ConcurrentTransactionsError.code),
        (PID, 3, S.PREPARE_ABORT, errors.ConcurrentTransactionsError.code),
    ],
)
def test_add_partitions_refusals(
    producer_id: int, epoch: int, state: TxnState, expected: int
) -> None:
    decision = operations.decide_add_partitions(meta(state), producer_id, epoch, [("t", 0)], 9)
    assert decision == expected


def test_add_partitions_opens_and_extends_the_transaction() -> None:
    m = meta()
    m = applied(m, operations.decide_add_partitions(m, PID, 3, [("t", 0)], 9))
    assert (m.state, m.partitions, m.start_ms) == (S.ONGOING, {("t", 0)}, 9)
    assert operations.decide_add_partitions(m, PID, 3, [("t", 0)], 10) == 0  # nothing new
    m = applied(m, operations.decide_add_partitions(m, PID, 3, [("t", 1)], 11))
    assert (m.partitions, m.start_ms) == ({("t", 0), ("t", 1)}, 9)


@pytest.mark.parametrize(
    ("state", "commit", "expected"),
    [
        (S.ONGOING, True, S.PREPARE_COMMIT),
        (S.ONGOING, False, S.PREPARE_ABORT),
        (S.COMPLETE_COMMIT, True, 0),  # a retry of an end that completed
        (S.COMPLETE_ABORT, False, 0),
        (S.COMPLETE_COMMIT, False, errors.InvalidTxnStateError.code),
        (S.COMPLETE_ABORT, True, errors.InvalidTxnStateError.code),
        (S.PREPARE_COMMIT, True, errors.ConcurrentTransactionsError.code),
        (S.PREPARE_COMMIT, False, errors.InvalidTxnStateError.code),
        (S.EMPTY, True, errors.InvalidTxnStateError.code),
    ],
)
def test_end_txn(state: TxnState, commit: bool, expected: TxnState | int) -> None:
    decision = operations.decide_end(meta(state, partitions=1), PID, 3, commit, True, 9)
    if isinstance(decision, Transit):
        assert decision.state == expected
    else:
        assert decision == expected


def test_the_coordinators_own_abort_carries_the_fenced_epoch() -> None:
    m = meta(S.ONGOING, partitions=1)
    fence = m.prepare_fence_epoch()
    abort = operations.decide_end(m, PID, fence.producer_epoch, False, False, 9)
    assert isinstance(abort, Transit)
    assert (abort.state, abort.producer_epoch) == (S.PREPARE_ABORT, 4)
    # The old producer's EndTxn is fenced meanwhile.
    assert operations.decide_end(m, PID, 3, True, True, 9) == errors.ProducerFencedError.code


def test_verify_only_answers_per_partition() -> None:
    m = meta(S.ONGOING, partitions=1)
    codes = operations.verify_partitions(m, PID, 3, [("t", 0), ("t", 5)])
    assert codes == {("t", 0): 0, ("t", 5): errors.InvalidTxnStateError.code}
    assert operations.verify_partitions(None, PID, 3, [("t", 0)]) == {
        ("t", 0): errors.InvalidProducerIdMappingError.code
    }
    assert operations.verify_partitions(
        meta(S.PREPARE_COMMIT, partitions=1), PID, 3, [("t", 0)]
    ) == {("t", 0): errors.ConcurrentTransactionsError.code}


def test_timeouts() -> None:
    assert not operations.valid_timeout(0, 900_000)
    assert not operations.valid_timeout(900_001, 900_000)
    assert operations.valid_timeout(900_000, 900_000)
    m = meta(S.ONGOING, partitions=1)  # started at 100, timeout 60 s
    assert not operations.timed_out(m, 60_100)
    assert operations.timed_out(m, 60_101)
    assert not operations.timed_out(meta(S.EMPTY), 10**9)


def test_illegal_transitions_are_bugs() -> None:
    m = meta(S.EMPTY)
    with pytest.raises(IllegalTransition):
        m.prepare_end(True, 1)


def test_records_round_trip_in_kafkas_format() -> None:
    m = meta(S.ONGOING, partitions=2)
    transit = m.current()
    key, value = records.encode_key("tx"), records.encode_value(transit)
    assert key[:2] == b"\x00\x00"  # type 0, then TransactionLogKey
    assert records.decode_key(key) == "tx"
    decoded = records.decode_value(value)
    assert decoded is not None
    assert (decoded.state, decoded.partitions, decoded.producer_epoch, decoded.start_ms) == (
        S.ONGOING,
        transit.partitions,
        3,
        100,
    )
    assert records.decode_value(None) is None  # a tombstone: the id expired
