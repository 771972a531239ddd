"""CreateTopics (key 19), v2-7: creates topics through the controller, one result per topic.

The controller does the validation (name, counts, assignment, configs) and raises Kafka errors;
this module shapes requests into its call and its outcome into the response, including the
v5+ echo of the created topic's partition count, replication factor and configs."""

from __future__ import annotations

from collections import Counter

from ferrolog import errors
from ferrolog.config.values import null_topic_configs
from ferrolog.controller.api import AclOperation, ResourceType, TopicRecord, TopicSpec
from ferrolog.handlers.context import RequestContext
from ferrolog.handlers.mutation_quota import MutationQuota
from ferrolog.protocol import ZERO_UUID
from ferrolog.protocol.messages import (
    ApiKey,
    CreateTopicsRequest,
    CreateTopicsRequestCreatableTopic,
    CreateTopicsResponse,
    CreateTopicsResponseCreatableTopicResult,
)

API_KEY = ApiKey.CREATE_TOPICS
MIN_VERSION = 2
MAX_VERSION = 7


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
        raise null_topic_configs(null_configs)


def _spec(topic: CreateTopicsRequestCreatableTopic) -> TopicSpec:
    _check_shape(topic)
    assignments = topic.get("assignments") or []
    assignment = (
        {a["partition_index"]: list(a["broker_ids"]) for a in assignments} if assignments else None
    )
    # _check_shape refused null values.
    configs = {c["name"]: c["value"] for c in topic.get("configs") or [] if c["value"] is not None}
    return TopicSpec(
        topic["name"], topic["num_partitions"], topic["replication_factor"], assignment, configs
    )


def _created(ctx: RequestContext, record: TopicRecord) -> CreateTopicsResponseCreatableTopicResult:
    replication = max((len(r) for r in record.assignment.values()), default=0)
    if not ctx.authorize(AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, record.name):
        # Created, but its configs are not the principal's to see (Kafka's answer).
        return {
            "name": record.name,
            "topic_id": record.topic_id,
            "error_code": 0,
            "error_message": None,
            "topic_config_error_code": errors.TopicAuthorizationFailedError.code,
            "num_partitions": len(record.assignment),
            "replication_factor": replication,
            "configs": None,
        }
    return {
        "name": record.name,
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
    quota = MutationQuota(ctx)
    # One slot per answered name, in request order: a failure here, or a spec for the
    # controller, which creates all of them as one batch.
    slots: list[CreateTopicsResponseCreatableTopicResult | TopicSpec] = []
    done: set[str] = set()
    # As Kafka: CREATE on the cluster, or else on each topic.
    names = [t["name"] for t in topics]
    creatable = (
        set(names)
        if ctx.authorize_cluster(AclOperation.CREATE)
        else ctx.authorized(AclOperation.CREATE, ResourceType.TOPIC, names)
    )
    for topic in topics:
        name = topic["name"]
        if counts[name] > 1:
            # Kafka answers a repeated name once, with an error, and creates nothing for it:
            # which of the entries was meant is unknowable.
            if name not in done:
                error = errors.InvalidRequestError(f"topic {name} appears more than once")
                slots.append(_failure(name, error))
                done.add(name)
            continue
        if name not in creatable:
            slots.append(
                _failure(name, errors.TopicAuthorizationFailedError("Authorization failed."))
            )
            continue
        try:
            slots.append(_spec(topic))
        except errors.KafkaError as exc:
            slots.append(_failure(name, exc))
    specs = [s for s in slots if isinstance(s, TopicSpec)]
    created = await ctx.broker.controller.create_topics(specs, validate_only, quota.admit)
    outcomes = iter(created)
    results: list[CreateTopicsResponseCreatableTopicResult] = []
    for slot in slots:
        if not isinstance(slot, TopicSpec):
            results.append(slot)
            continue
        outcome = next(outcomes)
        if isinstance(outcome, errors.KafkaError):
            results.append(_failure(slot.name, outcome))
        else:
            results.append(_created(ctx, outcome))
    return {"throttle_time_ms": quota.throttle_ms(), "topics": results}
