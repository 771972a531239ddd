"""JoinGroup (key 11), v0-9: the classic group protocol's join phase. The answer waits for
the rebalance (see `ferrolog.controller.coordinator.group.membership`)."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.controller.coordinator.api import JoinCall, join_response
from ferrolog.handlers._groups import client_host, coordinator, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, JoinGroupRequest, JoinGroupResponse

API_KEY = ApiKey.JOIN_GROUP
MIN_VERSION = 0
MAX_VERSION = 9
# v7 made the protocol name nullable; before, an error carries "".
NULLABLE_PROTOCOL_VERSION = 7


async def handle(ctx: RequestContext, request: JoinGroupRequest) -> JoinGroupResponse:
    req: JoinCall = {**request, "version": ctx.api_version, "client_id": ctx.client_id}
    try:
        require_group(ctx, AclOperation.READ, request["group_id"])
        response = await coordinator(ctx).join_group(req, client_host(ctx))
    except errors.KafkaError as exc:
        response = join_response(exc.code, request.get("member_id") or "")
    if ctx.api_version < NULLABLE_PROTOCOL_VERSION and response["protocol_name"] is None:
        response = {**response, "protocol_name": ""}
    return response
