"""ShareGroupDescribe (key 77), v1: KIP-932 share groups with their epochs, assignor and
members (the partitions each holds). A group that does not exist or is of another type answers
GROUP_ID_NOT_FOUND, and every group UNSUPPORTED_VERSION until `share.version` is finalized at 1
or more, as Kafka 4.4 does."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.controller.coordinator.api import share_describe_error
from ferrolog.handlers._groups import coordinator, require_group, share_groups_enabled
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    ShareGroupDescribeRequest,
    ShareGroupDescribeResponse,
    ShareGroupDescribeResponseDescribedGroup,
)

API_KEY = ApiKey.SHARE_GROUP_DESCRIBE
MIN_VERSION = 1
MAX_VERSION = 1


def _describe(ctx: RequestContext, group_id: str) -> ShareGroupDescribeResponseDescribedGroup:
    if not group_id:
        return share_describe_error("", errors.InvalidGroupIdError.code, None)
    try:
        require_group(ctx, AclOperation.DESCRIBE, group_id)
        return coordinator(ctx).describe_share_group(group_id)
    except errors.KafkaError as exc:
        return share_describe_error(group_id, exc.code, exc.message)


async def handle(
    ctx: RequestContext, request: ShareGroupDescribeRequest
) -> ShareGroupDescribeResponse:
    group_ids = request.get("group_ids") or []
    if not share_groups_enabled(ctx):
        code = errors.UnsupportedVersionError.code
        groups = [share_describe_error(g, code, None) for g in group_ids]
    else:
        groups = [_describe(ctx, g) for g in group_ids]
    return {"throttle_time_ms": 0, "groups": groups}
