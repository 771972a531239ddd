"""Which partition of its internal topic a group or a transactional id lives on: Kafka's
`Utils.abs(key.hashCode) % partitions`, with Java's String.hashCode, so Kafka's tools (and
clients that compute it, like the kafka-transactions tool) agree on the partition. Both
coordinators use it; neither owns it."""

from __future__ import annotations


def java_string_hash(value: str) -> int:
    h = 0
    for unit in value.encode("utf-16-be").hex(" ", 2).split():
        h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def partition_for(key: str, partitions: int) -> int:
    h = java_string_hash(key)
    # Utils.abs maps Integer.MIN_VALUE to 0 rather than overflowing.
    return 0 if h == -(2**31) else abs(h) % partitions
