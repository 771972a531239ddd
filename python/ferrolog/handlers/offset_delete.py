"""OffsetDelete (key 47), v0: deletes a group's committed offsets of some partitions,
refused for topics the group's members still subscribe to (GROUP_SUBSCRIBED_TO_TOPIC)."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.coordinator.group import offsets
from ferrolog.handlers._groups import coordinator
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import OffsetDeleteRequest, OffsetDeleteResponse

API_KEY = 47
MIN_VERSION = 0
MAX_VERSION = 0


async def handle(ctx: RequestContext, request: OffsetDeleteRequest) -> OffsetDeleteResponse:
    group_id = request["group_id"]
    topics = request.get("topics") or []
    try:
        response: OffsetDeleteResponse = await coordinator(ctx).run(
            group_id,
            lambda shard, reply: offsets.offset_delete(shard, group_id, topics, now_ms(), reply),
        )
    except errors.KafkaError as exc:
        response = {"error_code": exc.code, "throttle_time_ms": 0, "topics": []}
    return response
