"""AddOffsetsToTxn (key 25), v0-4: adds the group's `__consumer_offsets` partition to the
producer's transaction, so that the TxnOffsetCommit that follows is ended by the
transaction's marker (send_offsets_to_transaction). v4 only tells that the client knows
TRANSACTION_ABORTABLE, which this API does not answer."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.errors import GroupAuthorizationFailedError, TransactionalIdAuthorizationFailedError
from ferrolog.handlers._txn import coordinator, for_version, may_write, offsets_partition
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, ApiKey

API_KEY = ApiKey.ADD_OFFSETS_TO_TXN
MIN_VERSION = 0
MAX_VERSION = 4

FENCED_VERSION = 2


async def handle(ctx: RequestContext, request: AddOffsetsToTxnRequest) -> AddOffsetsToTxnResponse:
    # As Kafka: WRITE on the transactional id, then READ on the group.
    if not may_write(ctx, request["transactional_id"]):
        return {"throttle_time_ms": 0, "error_code": TransactionalIdAuthorizationFailedError.code}
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request["group_id"]):
        return {"throttle_time_ms": 0, "error_code": GroupAuthorizationFailedError.code}
    code = await coordinator(ctx).add_partitions(
        request["transactional_id"],
        request["producer_id"],
        request["producer_epoch"],
        [offsets_partition(ctx, request["group_id"])],
    )
    return {"throttle_time_ms": 0, "error_code": for_version(code, ctx.api_version, FENCED_VERSION)}
