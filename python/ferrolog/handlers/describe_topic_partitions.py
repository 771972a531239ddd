"""DescribeTopicPartitions (key 75), v0 (KIP-966): topics and their partitions, paged by a
cursor, as Kafka 4.4's broker answers it (its DescribeTopicPartitionsRequestHandler and
KRaftMetadataCache, read from the 4.4.0 jars). Kafka 4's admin client describes topics with it
(`kafka-topics --describe`) when the broker has it, and Metadata otherwise.

- No topics named: every topic the principal may DESCRIBE; named: those, a refused one with
  TOPIC_AUTHORIZATION_FAILED (listed last, without its operations), an unknown one with
  UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION for a name that cannot be a topic's).
- Topics in name order from the cursor's topic (and, in it, from the cursor's partition); at
  most min(`ResponsePartitionLimit`, `max.request.partition.size.limit`) partitions, at least
  one: where the limit cuts, `NextCursor` names the topic and partition to go on from.
- Each partition as the controller holds it, with its eligible leader replicas and last known
  leader (KIP-966); a leader that is not a live broker is -1.
- A cursor whose topic is not among the named ones, or whose partition is negative, is an
  INVALID_REQUEST for every named topic."""

from __future__ import annotations

from ferrolog.controller.api import (
    AclOperation,
    ResourceType,
    TopicRecord,
    is_internal,
    validate_topic_name,
)
from ferrolog.errors import (
    InvalidRequestError,
    InvalidTopicError,
    TopicAuthorizationFailedError,
    UnknownTopicOrPartitionError,
)
from ferrolog.handlers._acls import NOT_REQUESTED, TOPIC_OPERATIONS, authorized_operations
from ferrolog.handlers.context import RequestContext
from ferrolog.handlers.metadata import partition_placement
from ferrolog.protocol import ZERO_UUID
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeTopicPartitionsRequest,
    DescribeTopicPartitionsResponse,
    DescribeTopicPartitionsResponseCursor,
    DescribeTopicPartitionsResponsePartition,
    DescribeTopicPartitionsResponseTopic,
)

API_KEY = ApiKey.DESCRIBE_TOPIC_PARTITIONS
MIN_VERSION = 0
MAX_VERSION = 0

Topic = DescribeTopicPartitionsResponseTopic
Partition = DescribeTopicPartitionsResponsePartition


def _topic(name: str, error: int, topic_id: bytes = ZERO_UUID, internal: bool = False) -> Topic:
    return {
        "error_code": error,
        "name": name,
        "topic_id": topic_id,
        "is_internal": internal,
        "partitions": [],
        "topic_authorized_operations": NOT_REQUESTED,
    }


def _refused(
    request: DescribeTopicPartitionsRequest, error: int
) -> DescribeTopicPartitionsResponse:
    """Kafka's answer to a request it throws on: every named topic with `error`."""
    topics = [_topic(t["name"], error) for t in request.get("topics") or []]
    return {"throttle_time_ms": 0, "topics": topics, "next_cursor": None}


async def handle(
    ctx: RequestContext, request: DescribeTopicPartitionsRequest
) -> DescribeTopicPartitionsResponse:
    controller = ctx.broker.controller
    named = [t["name"] for t in request.get("topics") or []]
    every = not named
    cursor = request.get("cursor")
    after = cursor["topic_name"] if cursor is not None else ""
    candidates = sorted({n for n in (controller.topics() if every else named) if n >= after})
    if cursor is not None and (
        (not every and cursor["topic_name"] not in candidates) or cursor["partition_index"] < 0
    ):
        return _refused(request, InvalidRequestError.code)
    visible = ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, candidates)
    limit = max(
        min(ctx.broker.config.get_int("max.request.partition.size.limit"),
            request.get("response_partition_limit", 2000)),
        1,
    )  # fmt: skip
    topics: list[Topic] = []
    next_cursor: DescribeTopicPartitionsResponseCursor | None = None
    known = controller.topics()
    for name in (n for n in candidates if n in visible):
        if limit == 0:
            next_cursor = {"topic_name": name, "partition_index": 0}
            break
        record = known.get(name)
        if record is None:
            if not every:
                topics.append(_topic(name, _unknown(name), internal=is_internal(name)))
            continue
        start = cursor["partition_index"] if cursor is not None and name == after else 0
        partitions, following = _partitions(ctx, record, start, limit)
        described = _topic(name, 0, record.topic_id, is_internal(name))
        topics.append({**described, "partitions": partitions})
        if following is not None:
            next_cursor = {"topic_name": name, "partition_index": following}
            break
        limit -= len(partitions)
    names = [t["name"] or "" for t in topics]  # the empty name too: an invalid one
    ops = authorized_operations(ctx, ResourceType.TOPIC, names, TOPIC_OPERATIONS)
    for t, name in zip(topics, names, strict=True):
        t["topic_authorized_operations"] = ops[name]
    if not every:
        refused = TopicAuthorizationFailedError.code
        topics += [_topic(n, refused) for n in candidates if n not in visible]
    return {"throttle_time_ms": 0, "topics": topics, "next_cursor": next_cursor}


def _unknown(name: str) -> int:
    try:
        validate_topic_name(name)
    except InvalidTopicError:
        return InvalidTopicError.code
    return UnknownTopicOrPartitionError.code


def _partitions(
    ctx: RequestContext, record: TopicRecord, start: int, limit: int
) -> tuple[list[Partition], int | None]:
    """The partitions of `record` from `start`, at most `limit`, and the one to go on from
    when the limit cut the topic short (else None)."""
    controller = ctx.broker.controller
    live = controller.brokers()
    states = controller.partition_states(record.name)
    count = len(record.assignment)
    end = min(count, start + limit)
    out: list[Partition] = []
    for index in range(start, end):
        replicas = record.assignment.get(index)
        if replicas is None:
            continue
        state = states.get(index)
        placement = partition_placement(ctx, record.name, index, replicas, state, live)
        out.append(
            {
                **placement,
                "error_code": 0,
                "eligible_leader_replicas": list(state.elr) if state is not None else [],
                "last_known_elr": list(state.last_known_elr) if state is not None else [],
            }
        )
    return out, (end if end < count else None)
