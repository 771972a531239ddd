"""OffsetFetch (key 9), v1-10: a group's committed offsets (all of them for a null topic
list, v2+); v8+ asks for several groups at once, v10 names topics by id (UNKNOWN_TOPIC_ID for
an id no topic has). Offsets are replayed only once durable; v7+'s
`require_stable` (read_committed consumers) gets UNSTABLE_OFFSET_COMMIT for a partition whose
offset an open transaction is about to change, and the consumer retries. v9's member id and
epoch of a KIP-848 consumer group member are checked as Kafka does (UNKNOWN_MEMBER_ID,
STALE_MEMBER_EPOCH)."""

from __future__ import annotations

from typing import Any

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers._groups import coordinator, require_group, topic_id, topic_name
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol import ZERO_UUID
from ferrolog.protocol.messages import (
    ApiKey,
    OffsetFetchRequest,
    OffsetFetchRequestTopic,
    OffsetFetchRequestTopics,
    OffsetFetchResponse,
    OffsetFetchResponseGroup,
)

API_KEY = ApiKey.OFFSET_FETCH
MIN_VERSION = 1
MAX_VERSION = 10
GROUPS_VERSION = 8
TOPIC_ID_VERSION = 10
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


def _named(
    ctx: RequestContext, topics: list[OffsetFetchRequestTopics] | None
) -> tuple[list[OffsetFetchRequestTopic] | None, list[Any]]:
    """The topics asked for, by name (the coordinator keeps offsets by name; v10 names topics
    by id), and the answers for ids no topic has: UNKNOWN_TOPIC_ID for each partition."""
    if topics is None:
        return None, []
    if ctx.api_version < TOPIC_ID_VERSION:
        by_name: list[OffsetFetchRequestTopic] = [
            {"name": t["name"], "partition_indexes": t["partition_indexes"]} for t in topics
        ]
        return by_name, []
    named: list[OffsetFetchRequestTopic] = []
    unknown: list[Any] = []
    for t in topics:
        name = topic_name(ctx, t["topic_id"])
        if name is not None:
            named.append({"name": name, "partition_indexes": t["partition_indexes"]})
            continue
        code = errors.UnknownTopicIdError.code
        partitions = [
            {"partition_index": p, "committed_offset": -1, "metadata": "", "error_code": code}
            for p in t["partition_indexes"]
        ]
        unknown.append({"name": "", "topic_id": t["topic_id"], "partitions": partitions})
    return named, unknown


def _with_ids(ctx: RequestContext, topics: list[Any], listed: bool) -> list[Any]:
    """v10's answer names topics by id; of all offsets (`listed`), those of topics that no
    longer exist (no id) are left out, as Kafka does."""
    out = []
    for topic in topics:
        found = topic_id(ctx, topic["name"])
        if found is None and listed:
            continue
        out.append({**topic, "topic_id": found if found is not None else ZERO_UUID})
    return out


async def handle(ctx: RequestContext, request: OffsetFetchRequest) -> OffsetFetchResponse:
    stable = bool(request.get("require_stable"))
    if ctx.api_version >= GROUPS_VERSION:
        groups: list[OffsetFetchResponseGroup] = []
        for g in request.get("groups") or []:
            member = (g.get("member_id"), g.get("member_epoch", -1))
            named, unknown = _named(ctx, g.get("topics"))
            code, topics = _fetch(ctx, g["group_id"], named, stable, member)
            if ctx.api_version >= TOPIC_ID_VERSION and not code:
                topics = _with_ids(ctx, topics, listed=named is None) + unknown
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
