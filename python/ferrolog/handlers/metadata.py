"""Metadata (key 3), v0-13: brokers, cluster id, controller id and topics with their
partitions' leader, leader epoch, replicas, ISR and offline replicas.

An unknown topic named in the request is auto-created when `auto.create.topics.enable` is on
and (v4+) the client allows it. As Kafka does, the answer for a topic created by this very
request is LEADER_NOT_AVAILABLE with no partitions: clients retry the request and then see the
topic with its leaders. Internal topics are created with their own settings."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TypedDict

from ferrolog.controller.api import (
    AclOperation,
    BrokerRegistration,
    PartitionState,
    ResourceType,
    TopicRecord,
    is_internal,
    validate_topic_name,
)
from ferrolog.errors import (
    InvalidRequestError,
    InvalidTopicError,
    KafkaError,
    LeaderNotAvailableError,
    ListenerNotFoundError,
    TopicAuthorizationFailedError,
    UnknownTopicIdError,
    UnknownTopicOrPartitionError,
)
from ferrolog.handlers._acls import (
    NOT_REQUESTED,
    TOPIC_OPERATIONS,
    authorized_operations,
    cluster_operations,
)
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol import ZERO_UUID
from ferrolog.protocol.messages import (
    ApiKey,
    MetadataRequest,
    MetadataRequestTopic,
    MetadataResponse,
    MetadataResponseBroker,
    MetadataResponsePartition,
    MetadataResponseTopic,
)

API_KEY = ApiKey.METADATA
MIN_VERSION = 0
MAX_VERSION = 13


log = logging.getLogger(__name__)


async def handle(ctx: RequestContext, request: MetadataRequest) -> MetadataResponse:
    broker = ctx.broker
    controller = broker.controller
    version = ctx.api_version
    requested = request.get("topics")
    # v0 has no null array: an empty list meant "all topics" until v1 made it "none".
    all_topics = requested is None or (version == 0 and not requested)
    with_ops = bool(request.get("include_topic_authorized_operations"))
    if not all_topics and version < 12 and any(_by_id(entry) for entry in requested or []):
        return _invalid(requested or [])

    if all_topics:
        # As Kafka: topics the principal may not DESCRIBE are left out.
        listed = controller.topics()
        visible = ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, listed)
        records = [r for name, r in sorted(listed.items()) if name in visible]
        topics = [_describe(ctx, r) for r in records]
    else:
        topics = []
        allow_create = broker.config.get_bool("auto.create.topics.enable") and (
            version < 4 or bool(request.get("allow_auto_topic_creation", True))
        )
        for entry in requested or []:
            topics.append(await _lookup(ctx, entry, allow_create))
    if with_ops:
        # As Kafka: every topic the principal may DESCRIBE carries its operations, one that
        # does not exist (or has no leader yet) too; only a refused topic does not.
        refused = TopicAuthorizationFailedError.code
        described = [
            (name, t)
            for t in topics
            if (name := t["name"]) is not None and t["error_code"] != refused
        ]
        ops = authorized_operations(
            ctx, ResourceType.TOPIC, [name for name, _ in described], TOPIC_OPERATIONS
        )
        for name, t in described:
            t["topic_authorized_operations"] = ops[name]

    return {
        "throttle_time_ms": 0,
        # v13's (KIP-1102): a broker answers every error per topic; proxies may say more.
        "error_code": 0,
        "brokers": listener_brokers(ctx),
        "cluster_id": broker.cluster_id,
        "controller_id": controller.controller_id,
        "topics": topics,
        "cluster_authorized_operations": (
            cluster_operations(ctx)
            if request.get("include_cluster_authorized_operations")
            else NOT_REQUESTED
        ),
    }


async def _lookup(
    ctx: RequestContext, entry: MetadataRequestTopic, allow_create: bool
) -> MetadataResponseTopic:
    controller = ctx.broker.controller
    name: str | None = entry.get("name")
    topic_id: bytes = entry.get("topic_id") or ZERO_UUID
    refused = TopicAuthorizationFailedError.code
    if name is None:
        record = controller.topic_by_id(topic_id) if topic_id != ZERO_UUID else None
        if record is None:
            return _error(None, topic_id, UnknownTopicIdError.code)
        if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, record.name):
            # Topic ids are not secret; the name is withheld, as Kafka does.
            return _error(None, topic_id, refused)
        return _describe(ctx, record)
    # Refused before existence is told, as Kafka does: a name alone reveals nothing.
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, name):
        return _error(name, ZERO_UUID, refused)
    record = controller.topic(name)
    if record is not None:
        return _describe(ctx, record)
    try:
        validate_topic_name(name)
    except InvalidTopicError:
        return _error(name, ZERO_UUID, InvalidTopicError.code)
    if not allow_create:
        return _error(name, ZERO_UUID, UnknownTopicOrPartitionError.code)
    # Auto-creation needs CREATE on the cluster or on the topic.
    if not ctx.authorize_cluster(AclOperation.CREATE) and not ctx.authorize(
        AclOperation.CREATE, ResourceType.TOPIC, name
    ):
        return _error(name, ZERO_UUID, refused)
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
        "error_code": 0,
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


def _describe(ctx: RequestContext, record: TopicRecord) -> MetadataResponseTopic:
    controller = ctx.broker.controller
    live = controller.brokers()
    states = controller.partition_states(record.name)
    partitions: list[MetadataResponsePartition] = []
    for index, replicas in sorted(record.assignment.items()):
        placement = partition_placement(ctx, record.name, index, replicas, states.get(index), live)
        leader, error = placement["leader_id"], 0
        if leader < 0:
            # As Kafka: a leader that is not among the live brokers this answer lists is no
            # leader (a client given a leader it has no endpoint for cannot follow it).
            error = LeaderNotAvailableError.code
        elif live[leader].endpoint(ctx.listener_name) is None:
            leader = -1
            error = (
                ListenerNotFoundError.code if ctx.api_version >= 6 else LeaderNotAvailableError.code
            )
        partitions.append({**placement, "error_code": error, "leader_id": leader})
    return {
        "error_code": 0,
        "name": record.name,
        "topic_id": record.topic_id,
        "is_internal": is_internal(record.name),
        "partitions": partitions,
        "topic_authorized_operations": NOT_REQUESTED,
    }


class Placement(TypedDict):
    """A partition as the controller holds it, in the fields Metadata and
    DescribeTopicPartitions share."""

    partition_index: int
    leader_id: int
    leader_epoch: int
    replica_nodes: list[int]
    isr_nodes: list[int]
    offline_replicas: list[int]


def partition_placement(
    ctx: RequestContext,
    topic: str,
    index: int,
    replicas: list[int],
    state: PartitionState | None,
    live: Mapping[int, BrokerRegistration],
) -> Placement:
    """Partition `index` of `topic`: its leader is -1 when that is not a live broker."""
    leader = state.leader if state is not None else -1
    offline = ctx.broker.controller.offline_replicas((topic, index))
    return {
        "partition_index": index,
        "leader_id": leader if leader in live else -1,
        "leader_epoch": state.leader_epoch if state is not None else -1,
        "replica_nodes": list(replicas),
        "isr_nodes": list(state.isr) if state is not None else [],
        "offline_replicas": [b for b in replicas if b not in live or b in offline],
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
