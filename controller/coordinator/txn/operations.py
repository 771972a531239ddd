"""The transaction coordinator's decisions, as Kafka's `TransactionCoordinator` makes them:
pure functions of a transactional id's metadata and a request, giving an error code or the
`Transit` to write. The coordinator (`coordinator.py`) does the I/O around them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeAlias

from ferrolog import errors
from ferrolog.controller.coordinator.txn.state import (
    EPOCH_EXHAUSTED,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    PREPARED,
    TopicPartition,
    Transit,
    TxnMetadata,
    TxnState,
    epoch_exhausted,
)

NONE = 0


@dataclass(frozen=True)
class Expected:
    """The producer id and epoch an InitProducerId carries (v3+, KIP-360), when it does."""

    producer_id: int
    epoch: int


@dataclass(frozen=True)
class NeedProducerId:
    """InitProducerId has to rotate to a new producer id: allocate one and decide again."""


@dataclass(frozen=True)
class FenceThenAbort:
    """InitProducerId found a transaction ongoing: fence its producer, abort it, and tell the
    new one to retry (CONCURRENT_TRANSACTIONS)."""

    transit: Transit


InitDecision: TypeAlias = int | Transit | NeedProducerId | FenceThenAbort


def valid_timeout(timeout_ms: int, max_timeout_ms: int) -> bool:
    return 0 < timeout_ms <= max_timeout_ms


def decide_init(
    meta: TxnMetadata,
    timeout_ms: int,
    expected: Expected | None,
    now: int,
    new_producer_id: int | None = None,
) -> InitDecision:
    """InitProducerId for an existing transactional id (Kafka's
    `prepareInitProducerIdTransit`)."""
    if meta.pending is not None:
        return errors.ConcurrentTransactionsError.code
    if expected is not None and not (
        meta.producer_epoch == NO_PRODUCER_EPOCH
        or expected.producer_id == meta.producer_id
        # A retry of a rotation whose answer the producer never got.
        or (expected.producer_id == meta.last_producer_id and epoch_exhausted(expected.epoch))
    ):
        return errors.ProducerFencedError.code
    state = meta.state
    if state in PREPARED:
        return errors.ConcurrentTransactionsError.code
    if state == TxnState.ONGOING:
        return FenceThenAbort(meta.prepare_fence_epoch())
    if state in (TxnState.DEAD, TxnState.PREPARE_EPOCH_FENCE):
        raise RuntimeError(f"{meta.transactional_id} is {state.label}, which is never current")
    if meta.epoch_exhausted and (expected is None or expected.epoch == meta.producer_epoch):
        if new_producer_id is None:
            return NeedProducerId()
        return meta.prepare_producer_id_rotation(
            new_producer_id, timeout_ms, now, record_last_epoch=expected is not None
        )
    transit = meta.prepare_increment_epoch(
        timeout_ms, expected.epoch if expected is not None else None, now
    )
    return errors.ProducerFencedError.code if transit is None else transit


def check_producer(meta: TxnMetadata | None, producer_id: int, epoch: int) -> int:
    """The checks every request of a running producer passes first."""
    if meta is None or meta.producer_id != producer_id:
        return errors.InvalidProducerIdMappingError.code
    if meta.producer_epoch != epoch:
        return errors.ProducerFencedError.code
    return NONE


def decide_add_partitions(
    meta: TxnMetadata | None,
    producer_id: int,
    epoch: int,
    partitions: Iterable[TopicPartition],
    now: int,
    client_version: int = 0,
) -> int | Transit:
    """AddPartitionsToTxn (and AddOffsetsToTxn, which adds the group's `__consumer_offsets`
    partition): NONE when every partition is in the ongoing transaction already.
    `client_version` 2: a broker adding them for the producer (transaction version 2)."""
    error = check_producer(meta, producer_id, epoch)
    if error:
        return error
    assert meta is not None
    if meta.pending is not None or meta.state in PREPARED:
        return errors.ConcurrentTransactionsError.code
    added = set(partitions)
    if meta.state == TxnState.ONGOING and added <= meta.partitions:
        return NONE
    return meta.prepare_add_partitions(added, now, client_version)


def verify_partitions(
    meta: TxnMetadata | None,
    producer_id: int,
    epoch: int,
    partitions: Iterable[TopicPartition],
) -> dict[TopicPartition, int]:
    """AddPartitionsToTxn v4+ with VerifyOnly (KIP-890): whether each partition is in the
    producer's ongoing transaction. A partition leader asks before it appends a transaction's
    first batch, so a batch of a transaction that has ended (or never added the partition)
    is refused instead of opening a transaction nobody will end."""
    wanted = list(partitions)
    error = check_producer(meta, producer_id, epoch)
    if not error:
        assert meta is not None
        if meta.state in PREPARED or meta.pending in PREPARED:
            error = errors.ConcurrentTransactionsError.code
    if error:
        return dict.fromkeys(wanted, error)
    assert meta is not None
    ongoing = meta.state == TxnState.ONGOING
    return {
        tp: NONE if ongoing and tp in meta.partitions else errors.InvalidTxnStateError.code
        for tp in wanted
    }


def decide_end(
    meta: TxnMetadata | None,
    producer_id: int,
    epoch: int,
    commit: bool,
    from_client: bool,
    now: int,
) -> int | Transit:
    """EndTxn, or the coordinator's own abort (after fencing an epoch, or at the timeout):
    NONE for a retry of an end that completed (Kafka's answer to it)."""
    if meta is None or meta.producer_id != producer_id:
        return errors.InvalidProducerIdMappingError.code
    # The coordinator's own abort carries the fenced (bumped) epoch: it may be newer.
    if (from_client and epoch != meta.producer_epoch) or epoch < meta.producer_epoch:
        return errors.ProducerFencedError.code
    # The fence prepared for this very abort makes way for it; a client's EndTxn meanwhile
    # waits (Kafka lets it take the fence's place, which it never gets to here).
    fencing = meta.pending == TxnState.PREPARE_EPOCH_FENCE and not from_client
    if meta.pending is not None and not fencing:
        return errors.ConcurrentTransactionsError.code
    state = meta.state
    if state == TxnState.ONGOING:
        if fencing:
            if commit:
                return errors.InvalidTxnStateError.code
            meta.take_fence_for_abort(epoch)
        return meta.prepare_end(commit, now)
    wanted = TxnState.COMPLETE_COMMIT if commit else TxnState.COMPLETE_ABORT
    prepared = TxnState.PREPARE_COMMIT if commit else TxnState.PREPARE_ABORT
    if state == wanted:
        return NONE
    if state == prepared:
        return errors.ConcurrentTransactionsError.code
    return errors.InvalidTxnStateError.code


def decide_end_v2(
    meta: TxnMetadata | None,
    producer_id: int,
    epoch: int,
    commit: bool,
    now: int,
    new_producer_id: int | None = None,
) -> int | Transit | NeedProducerId:
    """EndTxn v5 (transaction version 2), as Kafka 4.4's coordinator decides it. Every end
    bumps the epoch as it is prepared, so a retry carries the epoch before the bump: it is
    answered NONE once the end completed (with the producer id and epoch it got), and
    CONCURRENT_TRANSACTIONS while the markers are still being written. An abort with nothing
    ongoing is an empty abort (a new epoch, no markers). PRODUCER_FENCED for any other stale
    epoch; NeedProducerId when the epoch is exhausted and the end rotates to a new id."""
    if meta is None:
        return errors.InvalidProducerIdMappingError.code
    if meta.pending is not None:
        return errors.ConcurrentTransactionsError.code
    retry_bump = meta.producer_epoch == epoch + 1
    retry_rotation = (
        meta.last_producer_id == producer_id
        and epoch == EPOCH_EXHAUSTED
        and meta.producer_epoch == 0
    )
    if meta.producer_id != producer_id and not retry_rotation:
        return errors.InvalidProducerIdMappingError.code
    state = meta.state
    current = epoch == meta.producer_epoch
    if state in (TxnState.ONGOING, TxnState.EMPTY):
        valid = current
    elif state in PREPARED:
        valid = retry_bump
    else:
        valid = retry_bump or retry_rotation or current
    if not valid:
        return errors.ProducerFencedError.code
    retry = retry_bump or retry_rotation
    if state in PREPARED:
        same = (state == TxnState.PREPARE_COMMIT) == commit
        return errors.ConcurrentTransactionsError.code if same else errors.InvalidTxnStateError.code
    if state in (TxnState.COMPLETE_COMMIT, TxnState.COMPLETE_ABORT):
        committed = state == TxnState.COMPLETE_COMMIT
        if retry:
            return NONE if committed == commit else errors.InvalidTxnStateError.code
        if commit:
            return errors.InvalidTxnStateError.code
    elif state == TxnState.EMPTY and commit:
        return errors.InvalidTxnStateError.code
    elif state not in (TxnState.ONGOING, TxnState.EMPTY):
        raise RuntimeError(f"{meta.transactional_id} is {state.label}, which is never current")
    next_id = NO_PRODUCER_ID
    if meta.epoch_exhausted:
        if new_producer_id is None:
            return NeedProducerId()
        next_id = new_producer_id
    return meta.prepare_end_v2(commit, now, next_id)


def timed_out(meta: TxnMetadata, now: int) -> bool:
    """An ongoing transaction past its timeout, which the coordinator aborts."""
    return (
        meta.state == TxnState.ONGOING
        and meta.pending is None
        and meta.start_ms + meta.timeout_ms < now
    )
