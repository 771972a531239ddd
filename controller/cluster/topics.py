"""Topic naming rules (Kafka's `Topic` utility): pure functions."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ferrolog.errors import InvalidTopicError

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
