"""AlterShareGroupOffsets (key 91), v0: start offsets for an empty share group's partitions
(`kafka-share-groups --reset-offsets --execute`); the group is made if it does not exist. As
Kafka 4.4: READ on the group (else GROUP_AUTHORIZATION_FAILED) and on each topic (else that
topic's partitions are TOPIC_AUTHORIZATION_FAILED), UNKNOWN_TOPIC_OR_PARTITION for what does
not exist, NON_EMPTY_GROUP while the group has members, and UNSUPPORTED_VERSION until
`share.version` is finalized at 1 or more. A top-level error comes alone."""

from __future__ import annotations

from typing import Any

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers._groups import coordinator, share_offsets_refusal, topic_id
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol import ZERO_UUID
from ferrolog.protocol.messages import (
    AlterShareGroupOffsetsRequest,
    AlterShareGroupOffsetsResponse,
    ApiKey,
)

API_KEY = ApiKey.ALTER_SHARE_GROUP_OFFSETS
MIN_VERSION = 0
MAX_VERSION = 0


def _failed(exc: errors.KafkaError) -> AlterShareGroupOffsetsResponse:
    return {
        "throttle_time_ms": 0,
        "error_code": exc.code,
        "error_message": exc.message,
        "responses": [],
    }


async def handle(
    ctx: RequestContext, request: AlterShareGroupOffsetsRequest
) -> AlterShareGroupOffsetsResponse:
    group_id = request["group_id"]
    whole = share_offsets_refusal(ctx, group_id, AclOperation.READ)
    if whole is not None:
        return _failed(whole)
    topics = request.get("topics") or []
    allowed = ctx.authorized(
        AclOperation.READ, ResourceType.TOPIC, [t["topic_name"] for t in topics]
    )
    codes: dict[str, dict[int, int]] = {}
    asked: dict[str, dict[int, int]] = {}
    for t in topics:
        name = t["topic_name"]
        starts = {p["partition_index"]: p["start_offset"] for p in t["partitions"]}
        if name not in allowed:
            codes[name] = dict.fromkeys(starts, errors.TopicAuthorizationFailedError.code)
        elif topic_id(ctx, name) is None:
            codes[name] = dict.fromkeys(starts, errors.UnknownTopicOrPartitionError.code)
        else:
            asked[name] = starts
    try:
        codes.update(await coordinator(ctx).alter_share_group_offsets(group_id, asked))
    except errors.KafkaError as exc:
        return _failed(exc)
    responses: Any = [
        {
            "topic_name": name,
            "topic_id": topic_id(ctx, name) or ZERO_UUID,
            "partitions": [
                {
                    "partition_index": p,
                    "error_code": code,
                    "error_message": errors.for_code(code)().message if code else None,
                }
                for p, code in sorted(partitions.items())
            ],
        }
        for name, partitions in codes.items()
    ]
    return {"throttle_time_ms": 0, "error_code": 0, "error_message": None, "responses": responses}
