"""OffsetDelete (key 47), v0: deletes a group's committed offsets of some partitions,
refused for topics the group's members still subscribe to (GROUP_SUBSCRIBED_TO_TOPIC)."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.handlers._groups import coordinator, readable_topics, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, OffsetDeleteRequest, OffsetDeleteResponse

API_KEY = ApiKey.OFFSET_DELETE
MIN_VERSION = 0
MAX_VERSION = 0


async def handle(ctx: RequestContext, request: OffsetDeleteRequest) -> OffsetDeleteResponse:
    group_id = request["group_id"]
    topics = request.get("topics") or []
    try:
        require_group(ctx, AclOperation.DELETE, group_id)
        # As Kafka: the partitions of topics the principal may not READ are refused.
        readable = readable_topics(ctx, [t["name"] for t in topics])
        allowed = [t for t in topics if t["name"] in readable]
        response = await coordinator(ctx).delete_offsets(group_id, allowed)
    except errors.KafkaError as exc:
        return {"error_code": exc.code, "throttle_time_ms": 0, "topics": []}
    refused = errors.TopicAuthorizationFailedError.code
    for t in topics:
        if t["name"] not in readable:
            response["topics"].append(
                {
                    "name": t["name"],
                    "partitions": [
                        {"partition_index": p["partition_index"], "error_code": refused}
                        for p in t["partitions"]
                    ],
                }
            )
    return response
