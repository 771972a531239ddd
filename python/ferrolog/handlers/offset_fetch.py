"""OffsetFetch (key 9), v1-9: a group's committed offsets (all of them for a null topic
list, v2+); v8+ asks for several groups at once. Offsets are replayed only once durable; v7+'s
`require_stable` (read_committed consumers) gets UNSTABLE_OFFSET_COMMIT for a partition whose
offset an open transaction is about to change, and the consumer retries. v9's member id and
epoch of a KIP-848 consumer group member are checked as Kafka does (UNKNOWN_MEMBER_ID,
STALE_MEMBER_EPOCH)."""

from __future__ import annotations

from typing import Any

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers._groups import coordinator, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    OffsetFetchRequest,
    OffsetFetchRequestTopic,
    OffsetFetchRequestTopics,
    OffsetFetchResponse,
    OffsetFetchResponseGroup,
)

API_KEY = 9
MIN_VERSION = 1
MAX_VERSION = 9
GROUPS_VERSION = 8
LEADER_EPOCH_VERSION = 5


def _fetch(
    ctx: RequestContext,
    group_id: str,
    topics: list[OffsetFetchRequestTopic] | None,
    stable: bool,
    member: tuple[str | None, int] = (None, -1),
) -> tuple[int, list[Any]]:
    # One shape serves both generations of the response (v0-7 topics, v8+ groups' topics): the
    # encoder leaves out the leader epoch for the versions without it.
    try:
        require_group(ctx, AclOperation.DESCRIBE, group_id)
        code, fetched = coordinator(ctx).fetch_offsets(group_id, topics, stable, member)
    except errors.KafkaError as exc:
        return exc.code, []
    if code:
        return code, []
    return 0, _authorized_topics(ctx, fetched, listed=topics is None)


def _authorized_topics(ctx: RequestContext, fetched: list[Any], listed: bool) -> list[Any]:
    """As Kafka: the offsets of topics the principal may not DESCRIBE are left out of a
    fetch of every offset, and answered TOPIC_AUTHORIZATION_FAILED when asked for."""
    allowed = ctx.authorized(
        AclOperation.DESCRIBE, ResourceType.TOPIC, [t["name"] for t in fetched]
    )
    out = []
    for topic in fetched:
        if topic["name"] in allowed:
            out.append(topic)
        elif not listed:
            refused = errors.TopicAuthorizationFailedError.code
            partitions = [
                {**p, "committed_offset": -1, "metadata": "", "error_code": refused}
                for p in topic["partitions"]
            ]
            out.append({**topic, "partitions": partitions})
    return out


def _named(topics: list[OffsetFetchRequestTopics] | None) -> list[OffsetFetchRequestTopic] | None:
    # The coordinator keeps offsets by topic name, which v8-9 always send.
    if topics is None:
        return None
    return [{"name": t["name"], "partition_indexes": t["partition_indexes"]} for t in topics]


async def handle(ctx: RequestContext, request: OffsetFetchRequest) -> OffsetFetchResponse:
    stable = bool(request.get("require_stable"))
    if ctx.api_version >= GROUPS_VERSION:
        groups: list[OffsetFetchResponseGroup] = []
        for g in request.get("groups") or []:
            member = (g.get("member_id"), g.get("member_epoch", -1))
            code, topics = _fetch(ctx, g["group_id"], _named(g.get("topics")), stable, member)
            groups.append({"group_id": g["group_id"], "topics": topics, "error_code": code})
        return {"throttle_time_ms": 0, "groups": groups}
    code, topics = _fetch(ctx, request.get("group_id", ""), request.get("topics"), stable)
    if code and ctx.api_version < 2:
        # v0-1 have no top-level error: it goes on every partition asked for.
        topics = [
            {
                "name": t["name"],
                "partitions": [
                    {
                        "partition_index": p,
                        "committed_offset": -1,
                        "metadata": "",
                        "error_code": code,
                    }
                    for p in t["partition_indexes"]
                ],
            }
            for t in request.get("topics") or []
        ]
    return {"throttle_time_ms": 0, "topics": topics, "error_code": code}
