"""DeleteShareGroupOffsets (key 92), v0: an empty share group forgets where it is in the
given topics (their share-partitions' state is deleted; `kafka-share-groups --delete-offsets`).
As Kafka 4.4: DELETE on the group (else GROUP_AUTHORIZATION_FAILED) and READ on each topic
(else TOPIC_AUTHORIZATION_FAILED for it), GROUP_ID_NOT_FOUND and NON_EMPTY_GROUP with Kafka's
messages, per topic UNKNOWN_TOPIC_OR_PARTITION when there is nothing to delete, and
UNSUPPORTED_VERSION until `share.version` is finalized at 1 or more."""

from __future__ import annotations

from typing import Any

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers._groups import coordinator, share_offsets_refusal
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol import ZERO_UUID
from ferrolog.protocol.messages import (
    ApiKey,
    DeleteShareGroupOffsetsRequest,
    DeleteShareGroupOffsetsResponse,
)

API_KEY = ApiKey.DELETE_SHARE_GROUP_OFFSETS
MIN_VERSION = 0
MAX_VERSION = 0


def _failed(exc: errors.KafkaError) -> DeleteShareGroupOffsetsResponse:
    return {
        "throttle_time_ms": 0,
        "error_code": exc.code,
        "error_message": exc.message,
        "responses": [],
    }


async def handle(
    ctx: RequestContext, request: DeleteShareGroupOffsetsRequest
) -> DeleteShareGroupOffsetsResponse:
    group_id = request["group_id"]
    whole = share_offsets_refusal(ctx, group_id, AclOperation.DELETE)
    if whole is not None:
        return _failed(whole)
    names = [t["topic_name"] for t in request.get("topics") or []]
    allowed = ctx.authorized(AclOperation.READ, ResourceType.TOPIC, names)
    unauthorized: Any = [
        {
            "topic_name": name,
            "topic_id": ZERO_UUID,
            "error_code": errors.TopicAuthorizationFailedError.code,
            "error_message": "Topic authorization failed.",
        }
        for name in names
        if name not in allowed
    ]
    try:
        results = await coordinator(ctx).delete_share_group_offsets(
            group_id, [n for n in names if n in allowed]
        )
    except errors.KafkaError as exc:
        return _failed(exc)
    responses: Any = [
        {"topic_name": name, "topic_id": tid, "error_code": code, "error_message": message}
        for name, tid, code, message in results
    ]
    return {
        "throttle_time_ms": 0,
        "error_code": 0,
        "error_message": None,
        "responses": unauthorized + responses,
    }
