"""AddPartitionsToTxn (key 24), v0-4: a producer adds partitions to its ongoing transaction
before it writes to them. v0-3 (clients) carry one transaction; v4 (brokers) batches several
and may ask only whether partitions are in their transaction (VerifyOnly, KIP-890), which a
partition leader does before appending the first batch of a transaction.

As Kafka: when any partition does not exist, those get UNKNOWN_TOPIC_OR_PARTITION and the
others OPERATION_NOT_ATTEMPTED, and nothing is added."""

from __future__ import annotations

from typing import Any

from ferrolog import errors
from ferrolog.handlers._txn import by_topic, coordinator, for_version, partitions_of
from ferrolog.handlers.context import RequestContext

API_KEY = 24
MIN_VERSION = 0
MAX_VERSION = 4

BATCHED_VERSION = 4
FENCED_VERSION = 2


def _unknown(ctx: RequestContext, partitions: list[tuple[str, int]]) -> set[tuple[str, int]]:
    controller = ctx.broker.controller
    unknown = set()
    for topic, partition in partitions:
        record = controller.topic(topic)
        if record is None or partition not in record.assignment:
            unknown.add((topic, partition))
    return unknown


async def _transaction(
    ctx: RequestContext, txn: dict[str, Any], verify_only: bool
) -> dict[tuple[str, int], int]:
    partitions = partitions_of(txn.get("topics") or [])
    transactional_id = txn["transactional_id"]
    producer_id, epoch = txn["producer_id"], txn["producer_epoch"]
    if verify_only:
        verified: dict[tuple[str, int], int] = coordinator(ctx).verify_partitions(
            transactional_id, producer_id, epoch, partitions
        )
        return verified
    unknown = _unknown(ctx, partitions)
    if unknown:
        return {
            tp: errors.UnknownTopicOrPartitionError.code
            if tp in unknown
            else errors.OperationNotAttemptedError.code
            for tp in partitions
        }
    code = await coordinator(ctx).add_partitions(transactional_id, producer_id, epoch, partitions)
    return dict.fromkeys(partitions, for_version(code, ctx.api_version, FENCED_VERSION))


def _results(codes: dict[tuple[str, int], int]) -> list[dict[str, Any]]:
    return [
        {"name": t["name"], "results_by_partition": t["partitions"]}
        for t in by_topic(codes, "partition_index", "partition_error_code")
    ]


async def handle(ctx: RequestContext, request: dict[str, Any]) -> dict[str, Any]:
    if ctx.api_version < BATCHED_VERSION:
        txn = {
            "transactional_id": request["v3_and_below_transactional_id"],
            "producer_id": request["v3_and_below_producer_id"],
            "producer_epoch": request["v3_and_below_producer_epoch"],
            "topics": request.get("v3_and_below_topics") or [],
        }
        codes = await _transaction(ctx, txn, verify_only=False)
        return {"throttle_time_ms": 0, "results_by_topic_v3_and_below": _results(codes)}
    results = []
    for txn in request.get("transactions") or []:
        codes = await _transaction(ctx, txn, bool(txn.get("verify_only")))
        results.append(
            {"transactional_id": txn["transactional_id"], "topic_results": _results(codes)}
        )
    return {"throttle_time_ms": 0, "error_code": 0, "results_by_transaction": results}
