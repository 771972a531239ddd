"""Metadata (key 3), v0-12: brokers, cluster id, controller id and topics with their
partitions' leader, leader epoch, replicas, ISR and offline replicas.

An unknown topic named in the request is auto-created when `auto.create.topics.enable` is on
and (v4+) the client allows it. As Kafka does, the answer for a topic created by this very
request is LEADER_NOT_AVAILABLE with no partitions: clients retry the request and then see the
topic with its leaders. Internal topics are created with their own settings."""

from __future__ import annotations

import logging

from ferrolog.controller.api import TopicRecord, is_internal, validate_topic_name
from ferrolog.errors import (
    InvalidRequestError,
    InvalidTopicError,
    KafkaError,
    LeaderNotAvailableError,
    UnknownTopicIdError,
    UnknownTopicOrPartitionError,
)
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    MetadataRequest,
    MetadataRequestTopic,
    MetadataResponse,
    MetadataResponseBroker,
    MetadataResponsePartition,
    MetadataResponseTopic,
)

API_KEY = 3
MIN_VERSION = 0
MAX_VERSION = 12

ZERO_UUID = bytes(16)
NOT_REQUESTED = -(2**31)  # authorized-operations fields when the client did not ask

# ACL operation bits (Kafka's AclOperation codes); ferrolog has no authorizer, so a client
# that asks is allowed everything that applies to the resource.
_READ, _WRITE, _CREATE, _DELETE, _ALTER, _DESCRIBE = 3, 4, 5, 6, 7, 8
_CLUSTER_ACTION, _DESCRIBE_CONFIGS, _ALTER_CONFIGS, _IDEMPOTENT_WRITE = 9, 10, 11, 12
TOPIC_OPERATIONS = sum(
    1 << op
    for op in (
        _READ,
        _WRITE,
        _CREATE,
        _DELETE,
        _ALTER,
        _DESCRIBE,
        _DESCRIBE_CONFIGS,
        _ALTER_CONFIGS,
    )
)
CLUSTER_OPERATIONS = sum(
    1 << op
    for op in (
        _CREATE,
        _ALTER,
        _DESCRIBE,
        _CLUSTER_ACTION,
        _DESCRIBE_CONFIGS,
        _ALTER_CONFIGS,
        _IDEMPOTENT_WRITE,
    )
)

log = logging.getLogger(__name__)


async def handle(ctx: RequestContext, request: MetadataRequest) -> MetadataResponse:
    broker = ctx.broker
    controller = broker.controller
    version = ctx.api_version
    requested = request.get("topics")
    # v0 has no null array: an empty list meant "all topics" until v1 made it "none".
    all_topics = requested is None or (version == 0 and not requested)
    topic_ops = TOPIC_OPERATIONS if request.get("include_topic_authorized_operations") else None
    if not all_topics and version < 12 and any(_by_id(entry) for entry in requested or []):
        return _invalid(requested or [])

    if all_topics:
        topics = [_describe(ctx, r, topic_ops) for _, r in sorted(controller.topics().items())]
    else:
        topics = []
        allow_create = broker.config.get_bool("auto.create.topics.enable") and (
            version < 4 or bool(request.get("allow_auto_topic_creation", True))
        )
        for entry in requested or []:
            topics.append(await _lookup(ctx, entry, allow_create, topic_ops))

    return {
        "throttle_time_ms": 0,
        "brokers": listener_brokers(ctx),
        "cluster_id": broker.cluster_id,
        "controller_id": controller.controller_id,
        "topics": topics,
        "cluster_authorized_operations": (
            CLUSTER_OPERATIONS
            if request.get("include_cluster_authorized_operations")
            else NOT_REQUESTED
        ),
    }


async def _lookup(
    ctx: RequestContext, entry: MetadataRequestTopic, allow_create: bool, topic_ops: int | None
) -> MetadataResponseTopic:
    controller = ctx.broker.controller
    name: str | None = entry.get("name")
    topic_id: bytes = entry.get("topic_id") or ZERO_UUID
    if name is None:
        record = controller.topic_by_id(topic_id) if topic_id != ZERO_UUID else None
        if record is None:
            return _error(None, topic_id, UnknownTopicIdError.code)
        return _describe(ctx, record, topic_ops)
    record = controller.topic(name)
    if record is not None:
        return _describe(ctx, record, topic_ops)
    try:
        validate_topic_name(name)
    except InvalidTopicError:
        return _error(name, ZERO_UUID, InvalidTopicError.code)
    if not allow_create:
        return _error(name, ZERO_UUID, UnknownTopicOrPartitionError.code)
    try:
        await controller.auto_create_topic(name)
    except KafkaError as exc:
        log.warning("auto-creation failed topic=%s error=%s", name, exc)
        return _error(name, ZERO_UUID, exc.code)
    return _error(name, ZERO_UUID, LeaderNotAvailableError.code, internal=is_internal(name))


def _by_id(entry: MetadataRequestTopic) -> bool:
    return entry.get("name") is None or (entry.get("topic_id") or ZERO_UUID) != ZERO_UUID


def _invalid(requested: list[MetadataRequestTopic]) -> MetadataResponse:
    """Kafka's answer to lookups by topic id before v12, which those versions lack: every
    topic INVALID_REQUEST, a null name written as "" (their responses cannot carry a null),
    and no brokers."""
    return {
        "throttle_time_ms": 0,
        "brokers": [],
        "cluster_id": None,
        "controller_id": -1,
        "topics": [
            _error(
                entry.get("name") or "",
                entry.get("topic_id") or ZERO_UUID,
                InvalidRequestError.code,
            )
            for entry in requested
        ],
        "cluster_authorized_operations": NOT_REQUESTED,
    }


def _error(
    name: str | None, topic_id: bytes, code: int, internal: bool = False
) -> MetadataResponseTopic:
    return {
        "error_code": code,
        "name": name,
        "topic_id": topic_id,
        "is_internal": internal,
        "partitions": [],
        "topic_authorized_operations": NOT_REQUESTED,
    }


def _describe(
    ctx: RequestContext, record: TopicRecord, topic_ops: int | None
) -> MetadataResponseTopic:
    controller = ctx.broker.controller
    live = controller.brokers()
    states = controller.partition_states(record.name)
    partitions: list[MetadataResponsePartition] = []
    for index, replicas in sorted(record.assignment.items()):
        state = states.get(index)
        leader = state.leader if state is not None else -1
        partitions.append(
            {
                "error_code": 0 if leader >= 0 else LeaderNotAvailableError.code,
                "partition_index": index,
                "leader_id": leader,
                "leader_epoch": state.leader_epoch if state is not None else -1,
                "replica_nodes": list(replicas),
                "isr_nodes": list(state.isr) if state is not None else [],
                "offline_replicas": [b for b in replicas if b not in live],
            }
        )
    return {
        "error_code": 0,
        "name": record.name,
        "topic_id": record.topic_id,
        "is_internal": is_internal(record.name),
        "partitions": partitions,
        "topic_authorized_operations": NOT_REQUESTED if topic_ops is None else topic_ops,
    }


def listener_brokers(ctx: RequestContext) -> list[MetadataResponseBroker]:
    """The live brokers as the client sees them: their endpoints on the listener the request
    came in through, Kafka's rule (a client of the SSL listener is sent SSL endpoints); a
    broker without that listener is left out, as Kafka leaves it out."""
    brokers: list[MetadataResponseBroker] = []
    for b in sorted(ctx.broker.controller.brokers().values(), key=lambda b: b.node_id):
        endpoint = b.endpoint(ctx.listener_name)
        if endpoint is not None:
            brokers.append(
                {
                    "node_id": b.node_id,
                    "host": endpoint.host,
                    "port": endpoint.port,
                    "rack": b.rack,
                }
            )
    return brokers
