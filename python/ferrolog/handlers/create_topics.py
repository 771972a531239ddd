"""CreateTopics (key 19), v2-7: creates topics through the controller, one result per topic.

The controller does the validation (name, counts, assignment, configs) and raises Kafka errors;
this module shapes requests into its call and its outcome into the response, including the
v5+ echo of the created topic's partition count, replication factor and configs."""

from __future__ import annotations

from collections import Counter

from ferrolog import errors
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    CreateTopicsRequest,
    CreateTopicsRequestCreatableTopic,
    CreateTopicsResponse,
    CreateTopicsResponseCreatableTopicResult,
)

API_KEY = 19
MIN_VERSION = 2
MAX_VERSION = 7

ZERO_UUID = bytes(16)


def _failure(name: str, exc: errors.KafkaError) -> CreateTopicsResponseCreatableTopicResult:
    return {
        "name": name,
        "topic_id": ZERO_UUID,
        "error_code": exc.code,
        "error_message": exc.message,
        "num_partitions": -1,
        "replication_factor": -1,
        "configs": None,
    }


def _check_shape(topic: CreateTopicsRequestCreatableTopic) -> None:
    """What Kafka refuses before it looks at the cluster."""
    assignments = topic.get("assignments") or []
    if assignments and (topic["num_partitions"] != -1 or topic["replication_factor"] != -1):
        raise errors.InvalidRequestError(
            "both num_partitions or replication_factor and replica assignments were set; "
            "use one or the other"
        )
    indexes = [a["partition_index"] for a in assignments]
    if len(set(indexes)) != len(indexes):
        raise errors.InvalidReplicaAssignmentError("a partition is assigned more than once")
    null_configs = [c["name"] for c in topic.get("configs") or [] if c.get("value") is None]
    if null_configs:
        raise errors.InvalidConfigError(
            f"null value not supported for topic configs: {', '.join(null_configs)}"
        )


async def _create_one(
    ctx: RequestContext, topic: CreateTopicsRequestCreatableTopic, validate_only: bool
) -> CreateTopicsResponseCreatableTopicResult:
    name = topic["name"]
    try:
        _check_shape(topic)
        assignments = topic.get("assignments") or []
        assignment = (
            {a["partition_index"]: list(a["broker_ids"]) for a in assignments}
            if assignments
            else None
        )
        configs = {c["name"]: c["value"] for c in topic.get("configs") or []}
        record = await ctx.broker.controller.create_topic(
            name,
            topic["num_partitions"],
            topic["replication_factor"],
            assignment,
            configs,
            validate_only=validate_only,
        )
    except errors.KafkaError as exc:
        return _failure(name, exc)
    replication = max((len(r) for r in record.assignment.values()), default=0)
    return {
        "name": name,
        "topic_id": record.topic_id,
        "error_code": 0,
        "error_message": None,
        "num_partitions": len(record.assignment),
        "replication_factor": replication,
        "configs": [
            {
                "name": entry.name,
                "value": entry.value,
                "read_only": entry.read_only,
                "config_source": int(entry.source),
                "is_sensitive": entry.sensitive,
            }
            for entry in ctx.broker.config.describe_topic(record.configs)
        ],
    }


async def handle(ctx: RequestContext, request: CreateTopicsRequest) -> CreateTopicsResponse:
    topics = request.get("topics") or []
    counts = Counter(t["name"] for t in topics)
    validate_only = bool(request.get("validate_only", False))
    results: list[CreateTopicsResponseCreatableTopicResult] = []
    done: set[str] = set()
    for topic in topics:
        name = topic["name"]
        if counts[name] > 1:
            # Kafka answers a repeated name once, with an error, and creates nothing for it:
            # which of the entries was meant is unknowable.
            if name not in done:
                results.append(
                    _failure(
                        name,
                        errors.InvalidRequestError(f"topic {name} appears more than once"),
                    )
                )
                done.add(name)
            continue
        results.append(await _create_one(ctx, topic, validate_only))
    return {"throttle_time_ms": 0, "topics": results}
