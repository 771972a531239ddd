"""Topic naming rules (Kafka's `Topic` utility): pure functions."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ferrolog.errors import InvalidTopicError

if TYPE_CHECKING:
    from ferrolog.config import BrokerConfig

MAX_NAME_LENGTH = 249
_LEGAL = re.compile(r"[a-zA-Z0-9._-]+")

CONSUMER_OFFSETS = "__consumer_offsets"
TRANSACTION_STATE = "__transaction_state"
INTERNAL_TOPICS = frozenset({CONSUMER_OFFSETS, TRANSACTION_STATE})


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
    settings Kafka uses for it. Both are compacted: their state is the last record per key."""
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
    raise ValueError(f"{name!r} is not an internal topic")
