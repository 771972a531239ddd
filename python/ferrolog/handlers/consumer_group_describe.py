"""ConsumerGroupDescribe (key 69), v0-1: KIP-848 consumer groups with their epochs, assignor
and members (their current and target assignments; v1 whether each speaks the classic or the
consumer protocol). A group that does not exist or is a classic group answers
GROUP_ID_NOT_FOUND, as Kafka does."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.controller.coordinator.api import consumer_describe_error
from ferrolog.handlers._groups import coordinator, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    ConsumerGroupDescribeRequest,
    ConsumerGroupDescribeResponse,
    ConsumerGroupDescribeResponseDescribedGroup,
)

API_KEY = ApiKey.CONSUMER_GROUP_DESCRIBE
MIN_VERSION = 0
MAX_VERSION = 1


def _describe(ctx: RequestContext, group_id: str) -> ConsumerGroupDescribeResponseDescribedGroup:
    try:
        require_group(ctx, AclOperation.DESCRIBE, group_id)
        return coordinator(ctx).describe_consumer_group(group_id)
    except errors.KafkaError as exc:
        return consumer_describe_error(group_id, exc.code, str(exc) or None)


async def handle(
    ctx: RequestContext, request: ConsumerGroupDescribeRequest
) -> ConsumerGroupDescribeResponse:
    return {
        "throttle_time_ms": 0,
        "groups": [_describe(ctx, group_id) for group_id in request.get("group_ids") or []],
    }
