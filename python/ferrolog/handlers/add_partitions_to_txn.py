"""AddPartitionsToTxn (key 24), v0-5: a producer adds partitions to its ongoing transaction
before it writes to them. v0-3 (clients) carry one transaction; v4-5 (brokers) batch several
and may ask only whether partitions are in their transaction (VerifyOnly, KIP-890), which a
partition leader does before appending the first batch of a transaction, or add them for a
producer of transaction version 2 (KIP-890 part 2), which adds none itself. A partition that is
not in it is INVALID_TXN_STATE to a v4 asker and TRANSACTION_ABORTABLE to a v5 one, which
passes that on to producers that know it (Produce v11+) as Kafka's brokers do.

As Kafka: when any partition does not exist, those get UNKNOWN_TOPIC_OR_PARTITION and the
others OPERATION_NOT_ATTEMPTED, and nothing is added."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers._txn import (
    TopicPartition,
    coordinator,
    for_version,
    grouped,
    may_write,
    not_in_transaction,
)

# The native core's own verifications (before appending a transaction's first batch) come
# from NATIVE_PEER: only those are forwarded to the id's coordinator; another broker asking
# gets this one's answer.
from ferrolog.handlers.context import NATIVE_PEER, RequestContext
from ferrolog.protocol.messages import (
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnRequestAddPartitionsToTxnTopic,
    AddPartitionsToTxnResponse,
    AddPartitionsToTxnResponseAddPartitionsToTxnResult,
    AddPartitionsToTxnResponseAddPartitionsToTxnTopicResult,
    ApiKey,
)

API_KEY = ApiKey.ADD_PARTITIONS_TO_TXN
MIN_VERSION = 0
MAX_VERSION = 5

BATCHED_VERSION = 4
ABORTABLE_VERSION = 5
FENCED_VERSION = 2


def _unknown(ctx: RequestContext, partitions: list[TopicPartition]) -> set[TopicPartition]:
    controller = ctx.broker.controller
    unknown = set()
    for topic, partition in partitions:
        record = controller.topic(topic)
        if record is None or partition not in record.assignment:
            unknown.add((topic, partition))
    return unknown


def _refused(
    ctx: RequestContext,
    transactional_id: str,
    partitions: list[TopicPartition],
    verify_only: bool,
) -> dict[TopicPartition, int] | None:
    """Kafka's checks of a client's AddPartitionsToTxn (v0-3; v4 is a broker's, checked for
    CLUSTER_ACTION as a whole): WRITE on the transactional id, then WRITE on each topic, the
    partitions of the others then OPERATION_NOT_ATTEMPTED. None: all allowed."""
    if ctx.api_version >= BATCHED_VERSION:
        return None
    if not may_write(ctx, transactional_id):
        return dict.fromkeys(partitions, errors.TransactionalIdAuthorizationFailedError.code)
    writable = ctx.authorized(AclOperation.WRITE, ResourceType.TOPIC, [t for t, _ in partitions])
    if all(t in writable for t, _ in partitions):
        return None
    return {
        (t, p): errors.TopicAuthorizationFailedError.code
        if t not in writable
        else errors.OperationNotAttemptedError.code
        for t, p in partitions
    }


async def _transaction(
    ctx: RequestContext,
    transactional_id: str,
    producer: tuple[int, int],
    topics: list[AddPartitionsToTxnRequestAddPartitionsToTxnTopic],
    verify_only: bool,
) -> list[AddPartitionsToTxnResponseAddPartitionsToTxnTopicResult]:
    partitions = [(t["name"], p) for t in topics for p in t["partitions"]]
    txn = coordinator(ctx)
    refused = _refused(ctx, transactional_id, partitions, verify_only)
    if refused is not None:
        codes = refused
    elif verify_only:
        forward = ctx.peer == NATIVE_PEER
        codes = await txn.verify(transactional_id, *producer, partitions, forward)
        version = ctx.api_version
        codes = {tp: not_in_transaction(c, version, ABORTABLE_VERSION) for tp, c in codes.items()}
    elif unknown := _unknown(ctx, partitions):
        codes = {
            tp: errors.UnknownTopicOrPartitionError.code
            if tp in unknown
            else errors.OperationNotAttemptedError.code
            for tp in partitions
        }
    elif ctx.api_version >= BATCHED_VERSION:
        # A partition leader adding them for a producer of transaction version 2.
        forward = ctx.peer == NATIVE_PEER
        codes = await txn.add_for_producer(transactional_id, *producer, partitions, forward)
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
    # Brokers verifying transactions (v4) need CLUSTER_ACTION; this broker's own native core
    # asks as itself.
    if ctx.peer != NATIVE_PEER and not ctx.authorize_cluster(AclOperation.CLUSTER_ACTION):
        return {
            "throttle_time_ms": 0,
            "error_code": errors.ClusterAuthorizationFailedError.code,
            "results_by_transaction": [],
        }
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
