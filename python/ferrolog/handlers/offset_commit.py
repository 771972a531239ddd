"""OffsetCommit (key 8), v2-10: commits offsets to `__consumer_offsets` (acks=all) for group
members and for standalone consumers that only `assign` (generation -1, no member id). v9's
KIP-848 member epoch is the generation for classic groups, as in Kafka; a member of a KIP-848
consumer group commits with v9+ and its current member epoch (STALE_MEMBER_EPOCH for another
epoch, UNKNOWN_MEMBER_ID for an unknown member, as Kafka). Offsets of partitions
that do not exist are refused (UNKNOWN_TOPIC_OR_PARTITION), as Kafka does. v10 names topics by
id (KIP-516): an id no topic has is UNKNOWN_TOPIC_ID for each of its partitions, checked
first, and the answer names topics by id."""

from __future__ import annotations

from collections.abc import Callable

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.handlers._groups import by_topic_id, coordinator, readable_topics, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol import ZERO_UUID
from ferrolog.protocol.messages import (
    ApiKey,
    OffsetCommitRequest,
    OffsetCommitResponse,
)

API_KEY = ApiKey.OFFSET_COMMIT
MIN_VERSION = 2
MAX_VERSION = 10
TOPIC_ID_VERSION = 10


def all_failed(request: OffsetCommitRequest, code: int) -> OffsetCommitResponse:
    return {
        "throttle_time_ms": 0,
        "topics": [
            {
                "name": t.get("name", ""),
                "topic_id": t.get("topic_id", ZERO_UUID),
                "partitions": [
                    {"partition_index": p["partition_index"], "error_code": code}
                    for p in t["partitions"]
                ],
            }
            for t in request.get("topics") or []
        ],
    }


def partition_exists(ctx: RequestContext) -> Callable[[str, int], bool]:
    """Whether a partition exists, for refusing offsets of those that do not."""
    controller = ctx.broker.controller

    def exists(topic: str, partition: int) -> bool:
        record = controller.topic(topic)
        return record is not None and partition in record.assignment

    return exists


async def handle(ctx: RequestContext, request: OffsetCommitRequest) -> OffsetCommitResponse:
    if ctx.api_version < TOPIC_ID_VERSION:
        return await _commit(ctx, request)
    return await by_topic_id(ctx, request, lambda named: _commit(ctx, named))


async def _commit(ctx: RequestContext, request: OffsetCommitRequest) -> OffsetCommitResponse:
    exists = partition_exists(ctx)
    topics = request.get("topics") or []
    try:
        require_group(ctx, AclOperation.READ, request["group_id"])
        # As Kafka: the partitions of topics the principal may not READ are refused.
        readable = readable_topics(ctx, [t["name"] for t in topics])
        allowed: OffsetCommitRequest = {
            **request,
            "topics": [t for t in topics if t["name"] in readable],
        }
        response = await coordinator(ctx).commit_offsets(allowed, exists, ctx.api_version)
    except errors.KafkaError as exc:
        return all_failed(request, exc.code)
    refused = [t for t in topics if t["name"] not in readable]
    if refused:
        denied = all_failed(
            {**request, "topics": refused}, errors.TopicAuthorizationFailedError.code
        )
        response["topics"].extend(denied["topics"])
    return response
