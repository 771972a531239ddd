"""LeaveGroup (key 13), v0-5: one member (v0-2) or a batch of members, static ones by
instance id (v3+), leave and the group rebalances."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.handlers._groups import coordinator, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    LeaveGroupRequest,
    LeaveGroupResponse,
    LeaveGroupResponseMemberResponse,
)

API_KEY = ApiKey.LEAVE_GROUP
MIN_VERSION = 0
MAX_VERSION = 5
BATCH_VERSION = 3


async def handle(ctx: RequestContext, request: LeaveGroupRequest) -> LeaveGroupResponse:
    if ctx.api_version < BATCH_VERSION:
        leaving: list[tuple[str, str | None]] = [(request.get("member_id") or "", None)]
    else:
        leaving = [
            (m.get("member_id") or "", m.get("group_instance_id")) for m in request["members"]
        ]
    try:
        require_group(ctx, AclOperation.READ, request["group_id"])
        error, results = await coordinator(ctx).leave_group(request["group_id"], leaving)
    except errors.KafkaError as exc:
        error, results = exc.code, [exc.code] * len(leaving)
    if ctx.api_version < BATCH_VERSION:
        return {"throttle_time_ms": 0, "error_code": error or results[0]}
    members: list[LeaveGroupResponseMemberResponse] = [
        {"member_id": member_id, "group_instance_id": instance_id, "error_code": code}
        for (member_id, instance_id), code in zip(leaving, results, strict=True)
    ]
    return {"throttle_time_ms": 0, "error_code": error, "members": members}
