"""DeleteGroups (key 42), v0-3: removes empty groups and their committed offsets
(tombstones in `__consumer_offsets`); a group with members gets NON_EMPTY_GROUP. v3's error
message is only for streams groups' topology plugin (KIP-1071), which ferrolog does not
have: it stays null."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.handlers._groups import coordinator, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    DeleteGroupsRequest,
    DeleteGroupsResponse,
    DeleteGroupsResponseDeletableGroupResult,
)

API_KEY = ApiKey.DELETE_GROUPS
MIN_VERSION = 0
MAX_VERSION = 3


async def _delete(ctx: RequestContext, group_id: str) -> int:
    try:
        require_group(ctx, AclOperation.DELETE, group_id)
        code = await coordinator(ctx).delete_group(group_id)
    except errors.KafkaError as exc:
        code = exc.code
    return code


async def handle(ctx: RequestContext, request: DeleteGroupsRequest) -> DeleteGroupsResponse:
    results: list[DeleteGroupsResponseDeletableGroupResult] = [
        {"group_id": group_id, "error_code": await _delete(ctx, group_id), "error_message": None}
        for group_id in request.get("groups_names") or []
    ]
    return {"throttle_time_ms": 0, "results": results}
