"""Helpers of the disk-fault tests: a small tmpfs as a log directory, a one-partition topic
placed in a given directory, records produced one at a time, and DescribeLogDirs as a client
sees it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.chaos import disk
from kafka import KafkaAdminClient

from tests.handlers.features_tools import request
from tests.waiting import wait_until

FETCH, LIST_OFFSETS, OFFSET_FOR_LEADER_EPOCH = 1, 2, 23


@contextlib.contextmanager
def small_disk(path: Path, size_bytes: int) -> Iterator[Path]:
    """A tmpfs of `size_bytes` mounted at `path` for the block; the test is skipped where
    mounting is not allowed (not root)."""
    try:
        disk.mount_tmpfs(path, size_bytes)
    except OSError as e:
        pytest.skip(f"cannot mount a tmpfs here: {e}")
    try:
        yield path
    finally:
        disk.unmount(path)


def create_in(bootstrap: str, name: str, log_dir: Path) -> None:
    """Topic `name` (one partition, one replica), once its log is open in `log_dir`: a new
    partition goes to the directory holding the fewest, and its log opens when the broker
    takes the leadership, shortly after CreateTopics answers."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, 1, 1)])[name].result(20)
    wait_until(lambda: (log_dir / f"{name}-0").is_dir(), 20, what=f"{name}-0 in {log_dir}")


def produce_one_by_one(
    bootstrap: str, topic: str, values: Iterable[bytes], until_refused: bool = False
) -> tuple[dict[int, bytes], list[int]]:
    """Each value to partition 0 with acks=all, one at a time and without retries (so that a
    refusal is the broker's answer to that record): ({offset: value} acknowledged, error codes
    of those refused). With `until_refused`, stops at the first refusal."""
    producer = Producer(
        {"bootstrap.servers": bootstrap, "acks": "all", "retries": 0, "linger.ms": 0}
    )
    acked: dict[int, bytes] = {}
    refused: list[int] = []

    def delivered(err: KafkaError | None, msg: Any) -> None:
        if err is not None:
            refused.append(err.code())
        else:
            acked[msg.offset()] = msg.value()

    for value in values:
        producer.produce(topic, value=value, partition=0, on_delivery=delivered)
        assert producer.flush(30) == 0, "a record was neither acknowledged nor refused"
        if until_refused and refused:
            break
    return acked, refused


def log_dirs(bootstrap: str, broker: int | None = None) -> dict[str, tuple[int, set[str]]]:
    """DescribeLogDirs through kafka-python, of `broker` (the only one when None): {log dir:
    (error code, topics)}."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        answers = admin.describe_log_dirs(brokers=None if broker is None else [broker])
    finally:
        admin.close()
    (answer,) = answers
    return {
        r["log_dir"]: (r["error_code"], {t["name"] for t in r["topics"]})
        for r in answer["log_dirs"]
    }


def read_errors(bootstrap: str, topic: str, offset: int) -> dict[str, int]:
    """The error codes a consumer gets for partition 0 of `topic`: Fetch at `offset`,
    ListOffsets for the latest offset, OffsetForLeaderEpoch of epoch 0 (KIP-320's check)."""
    fetch = request(bootstrap, FETCH, 12, {
        "replica_id": -1, "max_wait_ms": 0, "min_bytes": 1, "max_bytes": 1 << 20,
        "isolation_level": 0, "session_id": 0, "session_epoch": -1,
        "topics": [{"topic": topic, "partitions": [{
            "partition": 0, "current_leader_epoch": -1, "fetch_offset": offset,
            "last_fetched_epoch": -1, "log_start_offset": -1, "partition_max_bytes": 1 << 20,
        }]}],
        "forgotten_topics_data": [], "rack_id": "",
    })  # fmt: skip
    latest = request(bootstrap, LIST_OFFSETS, 7, {
        "replica_id": -1, "isolation_level": 0,
        "topics": [{"name": topic, "partitions": [{
            "partition_index": 0, "current_leader_epoch": -1, "timestamp": -1,
        }]}],
    })  # fmt: skip
    epoch = request(bootstrap, OFFSET_FOR_LEADER_EPOCH, 4, {
        "replica_id": -1,
        "topics": [{"topic": topic, "partitions": [{
            "partition": 0, "current_leader_epoch": -1, "leader_epoch": 0,
        }]}],
    })  # fmt: skip
    return {
        "fetch": fetch["responses"][0]["partitions"][0]["error_code"],
        "list_offsets": latest["topics"][0]["partitions"][0]["error_code"],
        "offset_for_leader_epoch": epoch["topics"][0]["partitions"][0]["error_code"],
    }
