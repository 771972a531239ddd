"""CreatePartitions (key 37), v0-3: grows topics through the controller."""

from __future__ import annotations

from collections import Counter

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers.context import RequestContext
from ferrolog.handlers.mutation_quota import MutationQuota
from ferrolog.protocol.messages import (
    ApiKey,
    CreatePartitionsRequest,
    CreatePartitionsRequestCreatePartitionsTopic,
    CreatePartitionsResponse,
    CreatePartitionsResponseCreatePartitionsTopicResult,
)

API_KEY = ApiKey.CREATE_PARTITIONS
MIN_VERSION = 0
MAX_VERSION = 3


async def _grow(
    ctx: RequestContext,
    topic: CreatePartitionsRequestCreatePartitionsTopic,
    validate_only: bool,
    quota: MutationQuota,
) -> None:
    record = ctx.broker.controller.topic(topic["name"])
    # An unknown topic or a shrink: the controller refuses it, nothing to meter.
    if record is not None and not validate_only and topic["count"] > len(record.assignment):
        quota.admit(topic["count"] - len(record.assignment))
    assignments = topic.get("assignments")
    assignment = None if assignments is None else [list(a["broker_ids"]) for a in assignments]
    await ctx.broker.controller.create_partitions(
        topic["name"], topic["count"], assignment, validate_only=validate_only
    )


async def handle(ctx: RequestContext, request: CreatePartitionsRequest) -> CreatePartitionsResponse:
    topics = request.get("topics") or []
    counts = Counter(t["name"] for t in topics)
    validate_only = bool(request.get("validate_only", False))
    quota = MutationQuota(ctx)
    results: list[CreatePartitionsResponseCreatePartitionsTopicResult] = []
    reported: set[str] = set()
    for topic in topics:
        name = topic["name"]
        try:
            if counts[name] > 1:
                if name in reported:
                    continue
                reported.add(name)
                raise errors.InvalidRequestError(f"topic {name} appears more than once")
            # As Kafka: ALTER on the topic.
            if not ctx.authorize(AclOperation.ALTER, ResourceType.TOPIC, name):
                raise errors.TopicAuthorizationFailedError("Authorization failed.")
            await _grow(ctx, topic, validate_only, quota)
        except errors.KafkaError as exc:
            results.append({"name": name, "error_code": exc.code, "error_message": exc.message})
            continue
        results.append({"name": name, "error_code": 0, "error_message": None})
    return {"throttle_time_ms": quota.throttle_ms(), "results": results}
