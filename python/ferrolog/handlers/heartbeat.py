"""Heartbeat (key 12), v0-4: keeps a member's session alive and tells it when a rebalance
started (REBALANCE_IN_PROGRESS) or it fell out of the group."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.handlers._groups import coordinator, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, HeartbeatRequest, HeartbeatResponse

API_KEY = ApiKey.HEARTBEAT
MIN_VERSION = 0
MAX_VERSION = 4


async def handle(ctx: RequestContext, request: HeartbeatRequest) -> HeartbeatResponse:
    try:
        require_group(ctx, AclOperation.READ, request["group_id"])
        code = await coordinator(ctx).heartbeat(request)
    except errors.KafkaError as exc:
        code = exc.code
    return {"throttle_time_ms": 0, "error_code": code}
