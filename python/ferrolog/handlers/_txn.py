"""What the transaction-API handlers share: the broker's transaction coordinator, and the
(topic, partition) pairs of a request's topic list."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ferrolog import errors
from ferrolog.handlers.context import RequestContext

if TYPE_CHECKING:
    from ferrolog.controller.coordinator.txn.coordinator import TransactionCoordinator


def coordinator(ctx: RequestContext) -> TransactionCoordinator:
    txn = ctx.broker.txn_coordinator
    if txn is None:
        raise RuntimeError("the broker has no transaction coordinator")
    return txn


def partitions_of(topics: Iterable[Mapping[str, Any]]) -> list[tuple[str, int]]:
    """The (topic, partition) pairs of `[{name, partitions: [int]}]`, in request order."""
    return [(t["name"], p) for t in topics for p in t.get("partitions") or []]


def by_topic(codes: Mapping[tuple[str, int], int], key: str, code: str) -> list[dict[str, Any]]:
    """`codes` regrouped per topic, each partition as `{key: index, code: error}`, in the
    order the partitions came."""
    out: dict[str, list[dict[str, Any]]] = {}
    for (topic, partition), error in codes.items():
        out.setdefault(topic, []).append({key: partition, code: error})
    return [{"name": topic, "partitions": parts} for topic, parts in out.items()]


def for_version(code: int, version: int, fenced_since: int) -> int:
    """PRODUCER_FENCED as a client of `version` knows it: versions before `fenced_since`
    predate the code and hear INVALID_PRODUCER_EPOCH, as Kafka answers them."""
    if code == errors.ProducerFencedError.code and version < fenced_since:
        return errors.InvalidProducerEpochError.code
    return code
