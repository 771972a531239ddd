"""StreamsGroupDescribe (key 89), v0-1: KIP-1071 streams groups with their epochs, topology
and members (the tasks each holds and is meant to hold). A group that does not exist or is of
another type answers GROUP_ID_NOT_FOUND, and every group UNSUPPORTED_VERSION until
`streams.version` is finalized at 1 or more, as Kafka 4.4 does; a group whose topology names a
topic the principal may not DESCRIBE is not shown (TOPIC_AUTHORIZATION_FAILED, Kafka's words).
ferrolog has no topology description plugin (KIP-1331): v1 says NOT_STORED when a description
is asked for."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.controller.coordinator.api import streams_describe_error
from ferrolog.handlers._groups import coordinator, require_group, streams_groups_enabled
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    StreamsGroupDescribeRequest,
    StreamsGroupDescribeResponse,
    StreamsGroupDescribeResponseDescribedGroup,
)

HIDDEN_TOPICS = "The described group uses topics that the client is not authorized to describe."
API_KEY = ApiKey.STREAMS_GROUP_DESCRIBE
MIN_VERSION = 0
MAX_VERSION = 1


def _describe(
    ctx: RequestContext, group_id: str, with_description: bool
) -> StreamsGroupDescribeResponseDescribedGroup:
    if not group_id:
        return streams_describe_error("", errors.InvalidGroupIdError.code, None)
    try:
        require_group(ctx, AclOperation.DESCRIBE, group_id)
        described = coordinator(ctx).describe_streams_group(group_id, with_description)
    except errors.KafkaError as exc:
        return streams_describe_error(group_id, exc.code, exc.message)
    topology = described["topology"]
    subtopologies = (topology["subtopologies"] or []) if topology is not None else []
    names = sorted(
        {
            name
            for s in subtopologies
            for name in (
                *s["source_topics"],
                *s["repartition_sink_topics"],
                *(t["name"] for t in s["state_changelog_topics"]),
                *(t["name"] for t in s["repartition_source_topics"]),
            )
        }
    )
    if len(ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, names)) < len(names):
        code = errors.TopicAuthorizationFailedError.code
        return streams_describe_error(group_id, code, HIDDEN_TOPICS)
    return described


async def handle(
    ctx: RequestContext, request: StreamsGroupDescribeRequest
) -> StreamsGroupDescribeResponse:
    group_ids = request.get("group_ids") or []
    if not streams_groups_enabled(ctx):
        code = errors.UnsupportedVersionError.code
        groups = [streams_describe_error(g, code, None) for g in group_ids]
    else:
        with_description = bool(request.get("include_topology_description"))
        groups = [_describe(ctx, g, with_description) for g in group_ids]
    return {"throttle_time_ms": 0, "groups": groups}
