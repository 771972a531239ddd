"""DescribeGroups (key 15), v0-6: each group's state, protocol and members (with their
subscription and assignment once stable). A group that does not exist or is not a classic
group is Dead; v6 says why as well, with GROUP_ID_NOT_FOUND and Kafka's message (KIP-1043)."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.controller.coordinator.api import describe_error
from ferrolog.handlers._groups import coordinator, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeGroupsRequest,
    DescribeGroupsResponse,
    DescribeGroupsResponseDescribedGroup,
)

API_KEY = ApiKey.DESCRIBE_GROUPS
MIN_VERSION = 0
MAX_VERSION = 6
GROUP_NOT_FOUND_VERSION = 6
NONE, DEAD = 0, "Dead"


def _describe(ctx: RequestContext, group_id: str) -> DescribeGroupsResponseDescribedGroup:
    try:
        require_group(ctx, AclOperation.DESCRIBE, group_id)
        return coordinator(ctx).describe_group(group_id)
    except errors.GroupIdNotFoundError as exc:
        if ctx.api_version < GROUP_NOT_FOUND_VERSION:
            return describe_error(group_id, NONE, state=DEAD)
        return describe_error(group_id, exc.code, exc.message, state=DEAD)
    except errors.KafkaError as exc:
        return describe_error(group_id, exc.code)


async def handle(ctx: RequestContext, request: DescribeGroupsRequest) -> DescribeGroupsResponse:
    return {
        "throttle_time_ms": 0,
        "groups": [_describe(ctx, group_id) for group_id in request.get("groups") or []],
    }
