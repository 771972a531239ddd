"""The share coordinator (KIP-932): Initialize, Read, Write, Delete and ReadSummary
ShareGroupState as partition leaders and group coordinators send them, answered from
`__share_group_state`, with Kafka's fencing, merge rules and errors. The same module runs
against Kafka 4.4 with FERROLOG_SHARE_BOOTSTRAP (see test_share_groups)."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec
from ferrolog.client.connection import Connection
from ferrolog.controller.coordinator.share import records
from ferrolog.embedded import EmbeddedBroker
from ferrolog.protocol.messages import Apis

from tests.consume import read
from tests.groups.conftest import create_topic
from tests.groups.share_tools import (
    SHARE_SETTINGS,
    connect,
    share_key,
    topic_id,
)
from tests.waiting import wait_until

pytestmark = pytest.mark.native

NONE, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST = 0, 3, 42
FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH = 74, 124
RETRY = (14, 15, 16)  # the coordinator loads, is not there yet, or moved
AVAILABLE, ACKNOWLEDGED, ARCHIVED = 0, 2, 4
SETTLE_S = 30


@pytest.fixture(scope="module")
def bootstrap() -> Iterator[str]:
    external = os.environ.get("FERROLOG_SHARE_BOOTSTRAP")
    if external:
        yield external
        return
    with EmbeddedBroker(overrides=SHARE_SETTINGS) as broker:
        yield broker.bootstrap_servers


@pytest.fixture
def conn(bootstrap: str) -> Iterator[Connection]:
    connection = connect(bootstrap, "broker-test")
    yield connection
    connection.close()


class SharePartition:
    """One share-partition's state at its share coordinator, asked as a broker asks."""

    def __init__(self, conn: Connection, tid: bytes, partition: int = 0) -> None:
        self.conn, self.tid, self.partition = conn, tid, partition
        self.group = f"share-{uuid.uuid4().hex[:8]}"
        body: Any = {"key_type": 2, "coordinator_keys": [share_key(self.group, tid, partition)]}
        deadline = time.monotonic() + SETTLE_S
        # The first share key creates __share_group_state (Kafka answers 15 meanwhile).
        while (found := conn.request(Apis.FIND_COORDINATOR, 6, body)["coordinators"][0])[
            "error_code"
        ] in RETRY:
            assert time.monotonic() < deadline, found
            time.sleep(0.2)
        assert found["error_code"] == NONE, found

    def _ask(self, api: Any, version: int, fields: dict[str, Any]) -> dict[str, Any]:
        body: Any = {
            "group_id": self.group,
            "topics": [
                {"topic_id": self.tid, "partitions": [{"partition": self.partition, **fields}]}
            ],
        }
        deadline = time.monotonic() + SETTLE_S
        while True:
            (result,) = self.conn.request(api, version, body)["results"]
            (answer,) = result["partitions"]
            if answer["error_code"] not in RETRY:
                return dict(answer)
            assert time.monotonic() < deadline, answer
            time.sleep(0.2)

    def initialize(self, state_epoch: int, start_offset: int) -> dict[str, Any]:
        fields = {"state_epoch": state_epoch, "start_offset": start_offset}
        return self._ask(Apis.INITIALIZE_SHARE_GROUP_STATE, 0, fields)

    def read(self, leader_epoch: int) -> dict[str, Any]:
        return self._ask(Apis.READ_SHARE_GROUP_STATE, 0, {"leader_epoch": leader_epoch})

    def write(
        self,
        leader_epoch: int,
        start_offset: int,
        batches: list[tuple[int, int, int, int]],
        state_epoch: int = 0,
    ) -> dict[str, Any]:
        fields = {
            "state_epoch": state_epoch,
            "leader_epoch": leader_epoch,
            "start_offset": start_offset,
            "delivery_complete_count": -1,
            "state_batches": [
                {"first_offset": f, "last_offset": last, "delivery_state": s, "delivery_count": c}
                for f, last, s, c in batches
            ],
        }
        return self._ask(Apis.WRITE_SHARE_GROUP_STATE, 1, fields)

    def summary(self) -> dict[str, Any]:
        return self._ask(Apis.READ_SHARE_GROUP_STATE_SUMMARY, 1, {"leader_epoch": 0})

    def delete(self) -> dict[str, Any]:
        return self._ask(Apis.DELETE_SHARE_GROUP_STATE, 0, {})


def new_share_partition(bootstrap: str, conn: Connection) -> SharePartition:
    """A share-partition of a new topic, once its share coordinator knows the topic (Kafka's
    learns it from its metadata image a moment after the topic is created)."""
    sp = SharePartition(conn, topic_id(conn, create_topic(bootstrap, 1)))
    deadline = time.monotonic() + SETTLE_S
    while sp.summary()["error_code"] == UNKNOWN_TOPIC_OR_PARTITION:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return sp


def batches(answer: dict[str, Any]) -> list[tuple[int, int, int, int]]:
    return [
        (b["first_offset"], b["last_offset"], b["delivery_state"], b["delivery_count"])
        for b in answer["state_batches"]
    ]


def test_state_is_created_read_written_and_deleted(bootstrap: str, conn: Connection) -> None:
    sp = new_share_partition(bootstrap, conn)
    before = sp.read(0)
    assert (before["error_code"], before["error_message"]) == (
        INVALID_REQUEST,
        "Read operation on uninitialized share partition not allowed.",
    )
    never = sp.summary()
    assert (never["error_code"], never["start_offset"], never["delivery_complete_count"]) == (
        NONE,
        -1,
        -1,
    )
    assert sp.initialize(state_epoch=3, start_offset=-1)["error_code"] == NONE
    read = sp.read(1)
    assert (read["error_code"], read["state_epoch"], read["start_offset"], batches(read)) == (
        NONE,
        3,
        -1,
        [],
    )
    # The read recorded leader epoch 1: a write of an older leader is fenced.
    fenced = sp.write(0, 10, [], state_epoch=3)
    assert (fenced["error_code"], fenced["error_message"]) == (
        FENCED_LEADER_EPOCH,
        "The leader epoch in the request is older than the epoch on the broker.",
    )
    stale = sp.write(1, 10, [], state_epoch=2)
    assert (stale["error_code"], stale["error_message"]) == (
        FENCED_STATE_EPOCH,
        "The coordinator rejected the request because the state epoch did not match.",
    )
    written = sp.write(1, 10, [(10, 14, ACKNOWLEDGED, 1), (15, 19, AVAILABLE, 1)], state_epoch=3)
    assert written["error_code"] == NONE
    # A later write: the start moves to 12, offsets 15-16 delivered again and acknowledged.
    assert sp.write(1, 12, [(15, 16, ACKNOWLEDGED, 2)], state_epoch=3)["error_code"] == NONE
    # An older delivery of 15 cannot undo the newer one; the start never goes back.
    assert sp.write(1, 5, [(15, 15, AVAILABLE, 1)], state_epoch=3)["error_code"] == NONE
    merged = sp.read(1)
    assert (merged["start_offset"], batches(merged)) == (
        12,
        [(12, 14, ACKNOWLEDGED, 1), (15, 16, ACKNOWLEDGED, 2), (17, 19, AVAILABLE, 1)],
    )
    summary = sp.summary()
    assert (summary["state_epoch"], summary["leader_epoch"], summary["start_offset"]) == (3, 1, 12)
    assert sp.delete()["error_code"] == NONE
    assert sp.read(1)["error_code"] == INVALID_REQUEST
    assert sp.delete()["error_code"] == NONE  # nothing left to delete is fine


def test_initialize_replaces_the_state_and_fences_older_epochs(
    bootstrap: str, conn: Connection
) -> None:
    sp = new_share_partition(bootstrap, conn)
    assert sp.initialize(state_epoch=5, start_offset=0)["error_code"] == NONE
    assert sp.read(0)["error_code"] == NONE
    assert sp.write(0, 3, [(3, 9, ARCHIVED, 5)], state_epoch=5)["error_code"] == NONE
    stale = sp.initialize(state_epoch=4, start_offset=100)
    assert stale["error_code"] == FENCED_STATE_EPOCH
    assert sp.initialize(state_epoch=6, start_offset=100)["error_code"] == NONE
    fresh = sp.read(0)
    assert (fresh["state_epoch"], fresh["start_offset"], batches(fresh)) == (6, 100, [])


def test_unknown_partitions_and_bad_requests(bootstrap: str, conn: Connection) -> None:
    tid = new_share_partition(bootstrap, conn).tid
    missing = SharePartition(conn, tid, partition=5)
    assert missing.initialize(0, -1)["error_code"] == UNKNOWN_TOPIC_OR_PARTITION
    negative = SharePartition(conn, tid)
    negative.partition = -1
    answer = negative.initialize(0, -1)
    assert (answer["error_code"], answer["error_message"]) == (
        INVALID_REQUEST,
        "The partition id cannot be a negative number.",
    )
    bad_epoch = SharePartition(conn, tid).initialize(-1, -1)
    assert (bad_epoch["error_code"], bad_epoch["error_message"]) == (
        INVALID_REQUEST,
        "The state epoch cannot be a negative number.",
    )
    body: Any = {"key_type": 2, "coordinator_keys": ["no-colons-here"]}
    (found,) = conn.request(Apis.FIND_COORDINATOR, 6, body)["coordinators"]
    assert found["error_code"] == INVALID_REQUEST
    old: Any = {"key_type": 2, "coordinator_keys": [share_key("g", tid, 0)]}
    (found,) = conn.request(Apis.FIND_COORDINATOR, 5, old)["coordinators"]
    assert found["error_code"] == INVALID_REQUEST


def test_the_state_survives_a_restart(bootstrap: str, conn: Connection) -> None:
    if os.environ.get("FERROLOG_SHARE_BOOTSTRAP"):
        pytest.skip("restarts a broker of its own")
    with EmbeddedBroker(overrides={**SHARE_SETTINGS, **UPDATES_PER_SNAPSHOT, **PRUNE}) as broker:
        own = connect(broker.bootstrap_servers, "broker-test")
        sp = SharePartition(own, topic_id(own, create_topic(broker.bootstrap_servers, 1)))
        assert sp.initialize(1, 0)["error_code"] == NONE
        assert sp.read(1)["error_code"] == NONE
        # Past the snapshot interval (3 updates here): a snapshot, then updates after it.
        for first in range(0, 50, 10):
            answer = sp.write(1, first, [(first, first + 9, ACKNOWLEDGED, 1)], state_epoch=1)
            assert answer["error_code"] == NONE
        # The prune (every second here) deletes the records before the last snapshot, and
        # what is left loads the same state after the restart.
        state_log = broker.bootstrap_servers

        def pruned() -> bool:
            return log_start_offsets(state_log, SHARE_GROUP_STATE, 4) > 0

        wait_until(pruned, 15, what="__share_group_state pruned")
        before = sp.read(1)
        own.close()
        broker.restart()
        sp.conn = connect(broker.bootstrap_servers, "broker-test")
        after = sp.read(1)
        assert (after["start_offset"], batches(after)) == (
            before["start_offset"],
            batches(before),
        )
        assert (after["start_offset"], batches(after)) == (40, [(40, 49, ACKNOWLEDGED, 1)])
        sp.conn.close()


UPDATES_PER_SNAPSHOT = {"share.coordinator.snapshot.update.records.per.snapshot": "3"}
PRUNE = {"share.coordinator.state.topic.prune.interval.ms": "1000"}
SHARE_GROUP_STATE = "__share_group_state"


def log_start_offsets(bootstrap: str, topic: str, partitions: int) -> int:
    """The sum of `topic`'s partitions' log start offsets."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    wanted = {TopicPartition(topic, p): OffsetSpec.earliest() for p in range(partitions)}
    return sum(f.result(30).offset for f in admin.list_offsets(wanted).values())


def test_a_deleted_topics_share_state_is_deleted(bootstrap: str, conn: Connection) -> None:
    """Deleting a topic deletes its share-partitions' state: a tombstone for each in
    __share_group_state, as Kafka's share coordinator writes on a topic deletion."""
    topic = create_topic(bootstrap, 1)
    sp = SharePartition(conn, topic_id(conn, topic))
    assert sp.initialize(1, 0)["error_code"] == NONE
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.delete_topics([topic])[topic].result(30)
    key = (sp.group, sp.tid, 0)

    def tombstoned() -> bool:
        found = read(bootstrap, SHARE_GROUP_STATE, partitions=4)
        decoded = [
            records.decode(m.key(), m.value()) for ms in found.values() for m in ms if m.key()
        ]
        return any(r is not None and r.key == key and r.value is None for r in decoded)

    wait_until(tombstoned, 20, step=0.5, what="a tombstone for the deleted topic's state")
