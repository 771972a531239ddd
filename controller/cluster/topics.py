"""Topic naming rules (Kafka's `Topic` utility) and a new topic's layout: pure functions."""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ferrolog.controller.cluster.assignment import assign_replicas, validate_assignment
from ferrolog.controller.store.base import TopicRecord
from ferrolog.errors import (
    InvalidPartitionsError,
    InvalidReplicaAssignmentError,
    InvalidReplicationFactorError,
    InvalidRequestError,
    InvalidTopicError,
    PolicyViolationError,
)

if TYPE_CHECKING:
    from ferrolog.config import BrokerConfig
    from ferrolog.controller.api import TopicSpec

MAX_NAME_LENGTH = 249
_LEGAL = re.compile(r"[a-zA-Z0-9._-]+")

# Kafka 4's controller refuses one operation that would write more metadata records than this
# (QuorumController's MAX_RECORDS_PER_USER_OP): a topic, each of its partitions and each config
# count one. The bound also keeps a request for two billion partitions from being planned.
MAX_RECORDS_PER_OPERATION = 10_000
EXCESSIVE_OPERATION = "Unable to perform excessively large batch operation."

CONSUMER_OFFSETS = "__consumer_offsets"
TRANSACTION_STATE = "__transaction_state"
SHARE_GROUP_STATE = "__share_group_state"
INTERNAL_TOPICS = frozenset({CONSUMER_OFFSETS, TRANSACTION_STATE, SHARE_GROUP_STATE})


def is_internal(name: str) -> bool:
    return name in INTERNAL_TOPICS


def validate_topic_name(name: str) -> None:
    """Raises InvalidTopicError unless `name` is a legal topic name."""
    if not name:
        raise InvalidTopicError("topic name is empty")
    if name in (".", ".."):
        raise InvalidTopicError(f"topic name cannot be {name!r}")
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidTopicError(
            f"topic name is {len(name)} characters long, more than {MAX_NAME_LENGTH}"
        )
    if not _LEGAL.fullmatch(name):
        raise InvalidTopicError(
            f"topic name {name!r} has characters other than ASCII alphanumerics, '.', '_', '-'"
        )


def collision_key(name: str) -> str:
    """Metric names replace '.' with '_', so two topics equal up to that swap would clash."""
    return name.replace(".", "_")


def check_collision(name: str, existing: Iterable[str]) -> None:
    """Raises InvalidTopicError if `name` collides with another existing topic."""
    key = collision_key(name)
    for other in existing:
        if other != name and collision_key(other) == key:
            raise InvalidTopicError(
                f"topic {name!r} collides with existing topic {other!r} "
                "('.' and '_' are interchangeable in metric names)"
            )


def internal_topic_spec(name: str, config: BrokerConfig) -> tuple[int, int, dict[str, str]]:
    """(partitions, replication factor, topic configs) of an internal topic, from the broker
    settings Kafka uses for it. The two older ones are compacted: their state is the last
    record per key."""
    if name == CONSUMER_OFFSETS:
        return (
            config.get_int("offsets.topic.num.partitions"),
            config.get_int("offsets.topic.replication.factor"),
            {
                "cleanup.policy": "compact",
                "compression.type": "producer",
                "segment.bytes": str(config.get_int("offsets.topic.segment.bytes")),
            },
        )
    if name == TRANSACTION_STATE:
        return (
            config.get_int("transaction.state.log.num.partitions"),
            config.get_int("transaction.state.log.replication.factor"),
            {
                "cleanup.policy": "compact",
                "compression.type": "uncompressed",
                "min.insync.replicas": str(config.get_int("transaction.state.log.min.isr")),
                "segment.bytes": str(config.get_int("transaction.state.log.segment.bytes")),
            },
        )
    if name == SHARE_GROUP_STATE:
        # Not compacted, as in Kafka (KIP-932): snapshots and updates are pruned by offset.
        return (
            config.get_int("share.coordinator.state.topic.num.partitions"),
            config.get_int("share.coordinator.state.topic.replication.factor"),
            {
                "cleanup.policy": "delete",
                "compression.type": "producer",
                "retention.ms": "-1",
                "min.insync.replicas": str(config.get_int("share.coordinator.state.topic.min.isr")),
                "segment.bytes": str(config.get_int("share.coordinator.state.topic.segment.bytes")),
            },
        )
    raise ValueError(f"{name!r} is not an internal topic")


def plan(
    spec: TopicSpec,
    topics: Mapping[str, TopicRecord],
    brokers: Sequence[int],
    config: BrokerConfig,
    rng: random.Random,
) -> TopicRecord:
    """The topic `spec` asks for, validated (Kafka's errors) and laid out over `brokers`,
    beside the existing `topics`."""
    validate_topic_name(spec.name)
    check_collision(spec.name, topics)
    overrides = {k: v for k, v in spec.configs.items() if v is not None}
    config.topic_config(overrides)  # validates: raises InvalidConfigError
    if spec.assignment:
        if spec.num_partitions != -1 or spec.replication_factor != -1:
            raise InvalidRequestError(
                "both a replica assignment and a partition count or replication factor were given"
            )
        validate_assignment(spec.assignment, brokers)
        layout = {p: list(r) for p, r in spec.assignment.items()}
    else:
        partitions = _default(config, spec.num_partitions, "num.partitions", InvalidPartitionsError)
        factor = _default(
            config,
            spec.replication_factor,
            "default.replication.factor",
            InvalidReplicationFactorError,
        )
        layout = assign_replicas(list(brokers), partitions, factor, rng=rng)
    return TopicRecord(
        name=spec.name, topic_id=uuid.uuid4().bytes, assignment=layout, configs=overrides
    )


def plan_partitions(
    topic: TopicRecord,
    total_count: int,
    assignment: list[list[int]] | None,
    brokers: Sequence[int],
    rng: random.Random,
) -> dict[int, list[int]]:
    """The replicas of the partitions CreatePartitions adds to `topic` to make `total_count`,
    as given (`assignment`) or laid out over `brokers`, validated with Kafka's errors."""
    current = len(topic.assignment)
    if total_count < current:
        raise InvalidPartitionsError(
            f"topic has {current} partitions, more than the requested {total_count}"
        )
    if total_count == current:
        raise InvalidPartitionsError(f"topic already has {current} partitions")
    if total_count - current > MAX_RECORDS_PER_OPERATION:
        raise PolicyViolationError(EXCESSIVE_OPERATION)
    factor = len(topic.assignment[0])
    if assignment is None:
        first = topic.assignment[0][0]
        return assign_replicas(
            list(brokers),
            total_count - current,
            factor,
            start_partition=current,
            start_index=brokers.index(first) if first in brokers else None,
            rng=rng,
        )
    if len(assignment) != total_count - current:
        raise InvalidReplicaAssignmentError(
            f"{len(assignment)} replica sets given for {total_count - current} new partitions"
        )
    added = {current + i: list(r) for i, r in enumerate(assignment)}
    validate_assignment(added, brokers, start_partition=current, replication_factor=factor)
    return added


def records_of(spec: TopicSpec, config: BrokerConfig) -> int:
    """The metadata records Kafka's controller would write for `spec`: the topic, each
    partition, each config (a count it could not use counts as none: it is refused)."""
    if spec.assignment:
        partitions = len(spec.assignment)
    elif spec.num_partitions == -1:
        partitions = config.get_int("num.partitions")
    else:
        partitions = max(spec.num_partitions, 0)
    return 1 + partitions + len(spec.configs)


def _default(config: BrokerConfig, value: int, name: str, error: type[Exception]) -> int:
    if value == -1:
        return config.get_int(name)
    if value < 1:
        raise error(f"{name.split('.')[-1]} must be at least 1, got {value}")
    return value
