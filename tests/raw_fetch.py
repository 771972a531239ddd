"""A consumer's Fetch of one partition as a raw request body, for the tests that look at what
a broker answers field by field (leader hints, fetch.max.bytes)."""

from __future__ import annotations

from typing import Any


def one_partition(
    version: int, offset: int = 0, topic: str = "", topic_id: bytes = b""
) -> dict[str, Any]:
    """Partition 0 of `topic` (by name up to v12) or `topic_id` (v13+), from `offset`, asking
    for up to 1 MiB; the consumer's replica id in the field `version` carries it in."""
    partition = {"partition": 0, "current_leader_epoch": -1, "fetch_offset": offset,
                 "last_fetched_epoch": -1, "log_start_offset": -1,
                 "partition_max_bytes": 1 << 20}  # fmt: skip
    named = {"topic_id": topic_id} if version >= 13 else {"topic": topic}
    replica = (
        {"replica_state": {"replica_id": -1, "replica_epoch": -1}}
        if version >= 15
        else {"replica_id": -1}
    )
    return {
        **replica,
        "max_wait_ms": 0,
        "min_bytes": 1,
        "max_bytes": 1 << 20,
        "isolation_level": 0,
        "session_id": 0,
        "session_epoch": -1,
        "topics": [{**named, "partitions": [partition]}],
        "forgotten_topics_data": [],
        "rack_id": "",
    }
