"""DescribeShareGroupOffsets (key 90), v0-1: each partition's start offset (the first record
a share group has not finished with) and leader epoch as its share coordinator keeps them; v1
adds the lag (`kafka-share-groups --describe`). As Kafka 4.4: DESCRIBE on the group (else
GROUP_AUTHORIZATION_FAILED), topics the principal may not DESCRIBE are refused per partition
(or left out when all are asked for), a partition without state answers start offset -1, and
every group UNSUPPORTED_VERSION until `share.version` is finalized at 1 or more."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers._groups import coordinator, share_groups_enabled
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol import ZERO_UUID
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeShareGroupOffsetsRequest,
    DescribeShareGroupOffsetsRequestGroup,
    DescribeShareGroupOffsetsResponse,
    DescribeShareGroupOffsetsResponseGroup,
    DescribeShareGroupOffsetsResponseTopic,
)

API_KEY = ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS
MIN_VERSION = 0
MAX_VERSION = 1


def _failed(
    group_id: str, code: int, message: str | None = None
) -> DescribeShareGroupOffsetsResponseGroup:
    return {"group_id": group_id, "topics": [], "error_code": code, "error_message": message}


def _refused(name: str, partitions: list[int]) -> DescribeShareGroupOffsetsResponseTopic:
    code = errors.TopicAuthorizationFailedError.code
    return {
        "topic_name": name,
        "topic_id": ZERO_UUID,
        "partitions": [
            {
                "partition_index": p,
                "start_offset": -1,
                "leader_epoch": 0,
                "lag": -1,
                "error_code": code,
                "error_message": "Topic authorization failed.",
            }
            for p in partitions
        ],
    }


async def _describe(
    ctx: RequestContext, group: DescribeShareGroupOffsetsRequestGroup
) -> DescribeShareGroupOffsetsResponseGroup:
    group_id = group["group_id"]
    if not share_groups_enabled(ctx):
        return _failed(group_id, errors.UnsupportedVersionError.code)
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
        return _failed(group_id, errors.GroupAuthorizationFailedError.code)
    requested = group.get("topics")
    if requested is not None and not requested:
        return _failed(group_id, 0)
    try:
        if requested is None:
            found = await coordinator(ctx).describe_share_group_offsets(group_id, None)
            names = [t["topic_name"] for t in found]
            allowed = ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, names)
            topics = [t for t in found if t["topic_name"] in allowed]
        else:
            names = [t["topic_name"] for t in requested]
            allowed = ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, names)
            wanted = [(t["topic_name"], list(t["partitions"])) for t in requested]
            asked = [(n, ps) for n, ps in wanted if n in allowed]
            topics = await coordinator(ctx).describe_share_group_offsets(group_id, asked)
            topics += [_refused(n, ps) for n, ps in wanted if n not in allowed]
    except errors.KafkaError as exc:
        return _failed(group_id, exc.code, exc.message)
    return {"group_id": group_id, "topics": topics, "error_code": 0, "error_message": None}


async def handle(
    ctx: RequestContext, request: DescribeShareGroupOffsetsRequest
) -> DescribeShareGroupOffsetsResponse:
    groups = [await _describe(ctx, g) for g in request.get("groups") or []]
    return {"throttle_time_ms": 0, "groups": groups}
