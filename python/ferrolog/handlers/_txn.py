"""What the transaction-API handlers share: the broker's transaction coordinator, per-topic
regrouping of per-partition results, and the fencing error each version knows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ferrolog import errors
from ferrolog.controller.api import CONSUMER_OFFSETS, AclOperation, ResourceType
from ferrolog.controller.coordinator.api import partition_for
from ferrolog.handlers.context import RequestContext

if TYPE_CHECKING:
    from ferrolog.controller.coordinator.api import TransactionCoordinatorApi

TopicPartition = tuple[str, int]


def coordinator(ctx: RequestContext) -> TransactionCoordinatorApi:
    txn = ctx.broker.txn_coordinator
    if txn is None:
        raise RuntimeError("the broker has no transaction coordinator")
    return txn


def may_write(ctx: RequestContext, transactional_id: str) -> bool:
    """WRITE on the transactional id: what every transactional request needs (Kafka's
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED otherwise)."""
    return ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactional_id)


def offsets_partition(ctx: RequestContext, group_id: str) -> TopicPartition:
    """The group's partition of `__consumer_offsets`, which AddOffsetsToTxn adds to the
    transaction (the configured count before the topic exists, as Kafka computes it)."""
    topic = ctx.broker.controller.topic(CONSUMER_OFFSETS)
    count = (
        len(topic.assignment)
        if topic is not None
        else ctx.broker.config.get_int("offsets.topic.num.partitions")
    )
    return CONSUMER_OFFSETS, partition_for(group_id, count)


def grouped(codes: Mapping[TopicPartition, int]) -> dict[str, list[tuple[int, int]]]:
    """`codes` regrouped per topic as (partition, error code), in the order they came."""
    out: dict[str, list[tuple[int, int]]] = {}
    for (topic, partition), code in codes.items():
        out.setdefault(topic, []).append((partition, code))
    return out


def for_version(code: int, version: int, fenced_since: int) -> int:
    """PRODUCER_FENCED as a client of `version` knows it: versions before `fenced_since`
    predate the code and hear INVALID_PRODUCER_EPOCH, as Kafka answers them."""
    if code == errors.ProducerFencedError.code and version < fenced_since:
        return errors.InvalidProducerEpochError.code
    return code


def not_in_transaction(code: int, version: int, abortable_since: int) -> int:
    """A partition found outside the producer's transaction (KIP-890's verification), as a
    client of `version` hears it: TRANSACTION_ABORTABLE from `abortable_since` on (the
    producer aborts and goes on), INVALID_TXN_STATE before, as Kafka answers them."""
    if code == errors.InvalidTxnStateError.code and version >= abortable_since:
        return errors.TransactionAbortableError.code
    return code
