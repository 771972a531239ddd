"""DeleteTopics (key 20), v1-6: deletes topics by name (every version) or by topic id (v6)."""

from __future__ import annotations

from collections import Counter

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers.context import RequestContext
from ferrolog.handlers.mutation_quota import MutationQuota
from ferrolog.protocol import ZERO_UUID
from ferrolog.protocol.messages import (
    ApiKey,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
    DeleteTopicsResponseDeletableTopicResult,
)

API_KEY = ApiKey.DELETE_TOPICS
MIN_VERSION = 1
MAX_VERSION = 6


def _result(
    name: str | None, topic_id: bytes, exc: errors.KafkaError | None = None
) -> DeleteTopicsResponseDeletableTopicResult:
    return {
        "name": name,
        "topic_id": topic_id,
        "error_code": 0 if exc is None else exc.code,
        "error_message": None if exc is None else exc.message,
    }


async def handle(ctx: RequestContext, request: DeleteTopicsRequest) -> DeleteTopicsResponse:
    # v0-5 name topics in `topic_names`; v6 in `topics` with a name or an id each.
    if ctx.api_version >= 6:
        wanted = [(t.get("name"), t.get("topic_id") or ZERO_UUID) for t in request["topics"]]
    else:
        wanted = [(name, ZERO_UUID) for name in request.get("topic_names") or []]
    controller = ctx.broker.controller
    quota = MutationQuota(ctx)
    names = Counter(name for name, _ in wanted if name is not None)
    results = []
    for name, topic_id in wanted:
        try:
            if name is not None and topic_id != ZERO_UUID:
                raise errors.InvalidRequestError("give a topic name or a topic id, not both")
            if name is None:
                record = controller.topic_by_id(topic_id)
                if record is None:
                    raise errors.UnknownTopicIdError(f"no topic has id {topic_id.hex()}")
                # As Kafka: a topic named by its id is not named back to a principal that
                # may not DESCRIBE it (the id itself is not secret).
                if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, record.name):
                    raise errors.TopicAuthorizationFailedError("Authorization failed.")
                name = record.name
            elif names[name] > 1:
                raise errors.InvalidRequestError(f"topic {name} appears more than once")
            # As Kafka: DELETE on the topic (refused before its existence is told).
            if not ctx.authorize(AclOperation.DELETE, ResourceType.TOPIC, name):
                raise errors.TopicAuthorizationFailedError("Authorization failed.")
            record = controller.topic(name)
            if record is not None:
                quota.admit(len(record.assignment))
            await controller.delete_topic(name)
        except errors.TopicDeletionDisabledError as exc:
            # TOPIC_DELETION_DISABLED came with v3; older clients would not know the code.
            old = ctx.api_version < 3
            results.append(
                _result(name, topic_id, errors.InvalidRequestError(exc.message) if old else exc)
            )
            continue
        except errors.KafkaError as exc:
            results.append(_result(name, topic_id, exc))
            continue
        results.append(_result(name, topic_id))
    return {"throttle_time_ms": quota.throttle_ms(), "responses": results}
