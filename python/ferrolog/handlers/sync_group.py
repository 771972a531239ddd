"""SyncGroup (key 14), v0-5: the leader hands out the assignment; every member waits for it
(see `ferrolog.controller.coordinator.group.membership`)."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.controller.coordinator.api import sync_response
from ferrolog.handlers._groups import coordinator, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, SyncGroupRequest, SyncGroupResponse

API_KEY = ApiKey.SYNC_GROUP
MIN_VERSION = 0
MAX_VERSION = 5


async def handle(ctx: RequestContext, request: SyncGroupRequest) -> SyncGroupResponse:
    try:
        require_group(ctx, AclOperation.READ, request["group_id"])
        response = await coordinator(ctx).sync_group(request)
    except errors.KafkaError as exc:
        response = sync_response(exc.code)
    return response
