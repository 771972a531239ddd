"""TxnOffsetCommit (key 28), v0-4: a transactional producer commits a group's offsets as part
of its transaction (send_offsets_to_transaction, after AddOffsetsToTxn). The group
coordinator appends them as a transactional batch of the producer and holds them pending:
the transaction's COMMIT marker makes them the group's committed offsets, ABORT drops them.
v3 carries the consumer's member id and generation (KIP-447), checked like OffsetCommit's.

With `transaction.partition.verification.enable` (KIP-890), the transaction coordinator
first confirms that AddOffsetsToTxn put the group's partition in the transaction; offsets of
a producer that skipped it get INVALID_TXN_STATE, or TRANSACTION_ABORTABLE from v4 on, as
Kafka 4 answers."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.handlers import _txn
from ferrolog.handlers._groups import coordinator, readable_topics, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.handlers.offset_commit import partition_exists
from ferrolog.protocol.messages import TxnOffsetCommitRequest, TxnOffsetCommitResponse

API_KEY = 28
MIN_VERSION = 0
MAX_VERSION = 4
ABORTABLE_VERSION = 4


async def _verified(ctx: RequestContext, request: TxnOffsetCommitRequest) -> int:
    """0 once the transaction coordinator confirms the group's partition is in the
    producer's transaction, else its answer."""
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
