"""AddPartitionsToTxn (key 24), v0-4: a producer adds partitions to its ongoing transaction
before it writes to them. v0-3 (clients) carry one transaction; v4 (brokers) batches several
and may ask only whether partitions are in their transaction (VerifyOnly, KIP-890), which a
partition leader does before appending the first batch of a transaction.

As Kafka: when any partition does not exist, those get UNKNOWN_TOPIC_OR_PARTITION and the
others OPERATION_NOT_ATTEMPTED, and nothing is added."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.handlers._txn import TopicPartition, coordinator, for_version, grouped
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnRequestAddPartitionsToTxnTopic,
    AddPartitionsToTxnResponse,
    AddPartitionsToTxnResponseAddPartitionsToTxnResult,
    AddPartitionsToTxnResponseAddPartitionsToTxnTopicResult,
)

API_KEY = 24
MIN_VERSION = 0
MAX_VERSION = 4

BATCHED_VERSION = 4
FENCED_VERSION = 2
# The peer of the verifications this broker's native core asks before appending a
# transaction's first batch (`NATIVE_PEER` in native/src/server/api/txn_verify.rs): only
# those are forwarded to the id's coordinator; another broker asking gets this one's answer.
NATIVE_PEER = "ferrolog-native"


def _unknown(ctx: RequestContext, partitions: list[TopicPartition]) -> set[TopicPartition]:
    controller = ctx.broker.controller
    unknown = set()
    for topic, partition in partitions:
        record = controller.topic(topic)
        if record is None or partition not in record.assignment:
            unknown.add((topic, partition))
    return unknown


async def _transaction(
    ctx: RequestContext,
    transactional_id: str,
    producer: tuple[int, int],
    topics: list[AddPartitionsToTxnRequestAddPartitionsToTxnTopic],
    verify_only: bool,
) -> list[AddPartitionsToTxnResponseAddPartitionsToTxnTopicResult]:
    partitions = [(t["name"], p) for t in topics for p in t["partitions"]]
    txn = coordinator(ctx)
    if verify_only:
        forward = ctx.peer == NATIVE_PEER
        codes = await txn.verify(transactional_id, *producer, partitions, forward)
    elif unknown := _unknown(ctx, partitions):
        codes = {
            tp: errors.UnknownTopicOrPartitionError.code
            if tp in unknown
            else errors.OperationNotAttemptedError.code
            for tp in partitions
        }
    else:
        code = await txn.add_partitions(transactional_id, *producer, partitions)
        codes = dict.fromkeys(partitions, for_version(code, ctx.api_version, FENCED_VERSION))
    return [
        {
            "name": topic,
            "results_by_partition": [
                {"partition_index": p, "partition_error_code": code} for p, code in parts
            ],
        }
        for topic, parts in grouped(codes).items()
    ]


async def handle(
    ctx: RequestContext, request: AddPartitionsToTxnRequest
) -> AddPartitionsToTxnResponse:
    if ctx.api_version < BATCHED_VERSION:
        results = await _transaction(
            ctx,
            request.get("v3_and_below_transactional_id", ""),
            (
                request.get("v3_and_below_producer_id", -1),
                request.get("v3_and_below_producer_epoch", -1),
            ),
            request.get("v3_and_below_topics") or [],
            verify_only=False,
        )
        return {"throttle_time_ms": 0, "results_by_topic_v3_and_below": results}
    by_txn: list[AddPartitionsToTxnResponseAddPartitionsToTxnResult] = []
    for txn in request.get("transactions") or []:
        topic_results = await _transaction(
            ctx,
            txn["transactional_id"],
            (txn["producer_id"], txn["producer_epoch"]),
            txn["topics"],
            txn["verify_only"],
        )
        by_txn.append({"transactional_id": txn["transactional_id"], "topic_results": topic_results})
    return {"throttle_time_ms": 0, "error_code": 0, "results_by_transaction": by_txn}
