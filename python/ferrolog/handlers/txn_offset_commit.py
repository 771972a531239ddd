"""TxnOffsetCommit (key 28), v0-6: a transactional producer commits a group's offsets as part
of its transaction (send_offsets_to_transaction, after AddOffsetsToTxn). The group
coordinator appends them as a transactional batch of the producer and holds them pending:
the transaction's COMMIT marker makes them the group's committed offsets, ABORT drops them.
v3 carries the consumer's member id and generation (KIP-447), checked like OffsetCommit's.

With `transaction.partition.verification.enable` (KIP-890), the transaction coordinator
first confirms that AddOffsetsToTxn put the group's partition in the transaction; offsets of
a producer that skipped it get INVALID_TXN_STATE, or TRANSACTION_ABORTABLE from v4 on, as
Kafka 4 answers. A producer of transaction version 2 (v5, KIP-890 part 2) sends no
AddOffsetsToTxn: the group's partition is added to its transaction here, always. v6 names
topics by id (KIP-1319): an id no topic has is UNKNOWN_TOPIC_ID for each of its partitions,
and the answer names topics by id, as OffsetCommit v10 does."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.handlers import _txn
from ferrolog.handlers._groups import by_topic_id, coordinator, readable_topics, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.handlers.offset_commit import partition_exists
from ferrolog.protocol.messages import (
    ApiKey,
    TxnOffsetCommitRequest,
    TxnOffsetCommitResponse,
)

API_KEY = ApiKey.TXN_OFFSET_COMMIT
MIN_VERSION = 0
MAX_VERSION = 6
ABORTABLE_VERSION = 4
ADD_VERSION = 5
TOPIC_ID_VERSION = 6
# What the transaction coordinator's trouble is to a producer committing offsets: retriable
# without looking its group coordinator up again.
_COORDINATOR_AWAY = {
    errors.CoordinatorNotAvailableError.code,
    errors.NotCoordinatorError.code,
    errors.CoordinatorLoadInProgressError.code,
}


async def _added(ctx: RequestContext, request: TxnOffsetCommitRequest) -> int:
    """v5+: 0 once the transaction coordinator added the group's partition to the producer's
    transaction, else its answer as Kafka passes it on."""
    group_partition = _txn.offsets_partition(ctx, request["group_id"])
    codes = await _txn.coordinator(ctx).add_for_producer(
        request["transactional_id"],
        request["producer_id"],
        request["producer_epoch"],
        [group_partition],
        forward=True,
    )
    code = codes[group_partition]
    if code == errors.ProducerFencedError.code:
        return errors.InvalidProducerEpochError.code
    if code in _COORDINATOR_AWAY:
        return errors.CoordinatorLoadInProgressError.code
    return code


async def _verified(ctx: RequestContext, request: TxnOffsetCommitRequest) -> int:
    """0 once the transaction coordinator confirms the group's partition is in the
    producer's transaction, else its answer."""
    if ctx.api_version >= ADD_VERSION:
        return await _added(ctx, request)
    if not ctx.broker.config.get_bool("transaction.partition.verification.enable"):
        return 0
    group_partition = _txn.offsets_partition(ctx, request["group_id"])
    codes: dict[tuple[str, int], int] = await _txn.coordinator(ctx).verify(
        request["transactional_id"],
        request["producer_id"],
        request["producer_epoch"],
        [group_partition],
        forward=True,
    )
    return _txn.not_in_transaction(codes[group_partition], ctx.api_version, ABORTABLE_VERSION)


async def handle(ctx: RequestContext, request: TxnOffsetCommitRequest) -> TxnOffsetCommitResponse:
    if ctx.api_version < TOPIC_ID_VERSION:
        return await _commit(ctx, request)
    return await by_topic_id(ctx, request, lambda named: _commit(ctx, named))


async def _commit(ctx: RequestContext, request: TxnOffsetCommitRequest) -> TxnOffsetCommitResponse:
    exists = partition_exists(ctx)
    topics = request["topics"]
    readable: set[str] = set()
    try:
        # As Kafka: WRITE on the transactional id, READ on the group, READ on each topic.
        if not _txn.may_write(ctx, request["transactional_id"]):
            raise errors.TransactionalIdAuthorizationFailedError()
        require_group(ctx, AclOperation.READ, request["group_id"])
        readable = readable_topics(ctx, [t["name"] for t in topics])
        code = await _verified(ctx, request)
        if code:
            raise errors.for_code(code)()
        allowed: TxnOffsetCommitRequest = {
            **request,
            "topics": [t for t in topics if t["name"] in readable],
        }
        response = await coordinator(ctx).commit_txn_offsets(allowed, exists)
        refused = errors.TopicAuthorizationFailedError.code
        response["topics"].extend(
            {
                "name": t["name"],
                "partitions": [
                    {"partition_index": p["partition_index"], "error_code": refused}
                    for p in t["partitions"]
                ],
            }
            for t in topics
            if t["name"] not in readable
        )
    except errors.KafkaError as exc:
        response = {
            "throttle_time_ms": 0,
            "topics": [
                {
                    "name": t["name"],
                    "partitions": [
                        {"partition_index": p["partition_index"], "error_code": exc.code}
                        for p in t["partitions"]
                    ],
                }
                for t in request["topics"]
            ],
        }
    return response
