"""Bad group requests over raw sockets get Kafka's error codes, and the group is not left
stuck: a real consumer joins it afterwards."""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer
from ferrolog.embedded import EmbeddedBroker
from ferrolog.protocol import decode_response, encode_request

from tests.groups.conftest import consumer_config, create_topic
from tests.waiting import wait_until

FIND_COORDINATOR, JOIN, HEARTBEAT, SYNC, COMMIT, DESCRIBE, LEAVE = 10, 11, 12, 14, 8, 15, 13
ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, INCONSISTENT_GROUP_PROTOCOL = 22, 25, 23
INVALID_SESSION_TIMEOUT, OFFSET_METADATA_TOO_LARGE = 26, 12
MEMBER_ID_REQUIRED, REBALANCE_IN_PROGRESS, UNKNOWN_TOPIC_OR_PARTITION = 79, 27, 3
COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR = 14, 16
OFFSET_FETCH, UNKNOWN_TOPIC_ID = 9, 100


class Client:
    """One connection; requests in order, like a real client's coordinator connection."""

    def __init__(self, bootstrap: str) -> None:
        host, port = bootstrap.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=15)
        self.correlation = 0

    def call(self, api_key: int, version: int, body: dict[str, Any]) -> dict[str, Any]:
        self.correlation += 1
        payload = encode_request(api_key, version, self.correlation, "raw-groups", body)
        self.sock.sendall(struct.pack(">i", len(payload)) + payload)
        size = struct.unpack(">i", self._exactly(4))[0]
        correlation, response = decode_response(api_key, version, self._exactly(size))
        assert correlation == self.correlation
        return response

    def _exactly(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            assert chunk, "the broker closed the connection"
            buf += chunk
        return buf

    def close(self) -> None:
        self.sock.close()


def subscription(topic: str) -> bytes:
    """A ConsumerProtocolSubscription v0 for one topic."""
    name = topic.encode()
    return struct.pack(">hih", 0, 1, len(name)) + name + struct.pack(">i", -1)


def join_body(group: str, topic: str, member_id: str = "", **kw: Any) -> dict[str, Any]:
    return {
        "group_id": group,
        "session_timeout_ms": kw.get("session", 6000),
        "rebalance_timeout_ms": 3000,
        "member_id": member_id,
        "group_instance_id": None,
        "protocol_type": kw.get("protocol_type", "consumer"),
        "protocols": [{"name": "range", "metadata": subscription(topic)}],
        "reason": None,
    }


def test_bad_group_requests_get_kafka_errors_and_leave_no_stuck_group(
    bootstrap: str, group_id: str
) -> None:
    topic = create_topic(bootstrap, partitions=2)
    client = Client(bootstrap)
    try:
        found = client.call(FIND_COORDINATOR, 4, {"key_type": 0, "coordinator_keys": [group_id]})
        assert found["coordinators"][0]["error_code"] == 0
        # A transactional id's coordinator is found alike (tests/transactions); a key type
        # Kafka does not know is a bad request.
        txn = client.call(FIND_COORDINATOR, 3, {"key": "tx", "key_type": 1})
        assert (txn["error_code"], txn["node_id"]) == (0, found["coordinators"][0]["node_id"])
        unknown = client.call(FIND_COORDINATOR, 3, {"key": "tx", "key_type": 9})
        assert unknown["error_code"] == 42  # INVALID_REQUEST

        # The coordinator may still be loading its __consumer_offsets partition (a busy
        # machine, a fresh broker): real clients retry COORDINATOR_LOAD_IN_PROGRESS, so do we.
        def join_once() -> dict[str, Any] | None:
            answer = client.call(JOIN, 5, join_body(group_id, topic, protocol_type=""))
            return None if answer["error_code"] == COORDINATOR_LOAD_IN_PROGRESS else answer

        error = wait_until(join_once, 30, what="the coordinator to have loaded")["error_code"]
        assert error == INCONSISTENT_GROUP_PROTOCOL
        assert client.call(JOIN, 5, join_body(group_id, topic, session=10))["error_code"] == (
            INVALID_SESSION_TIMEOUT
        )
        assert client.call(JOIN, 5, join_body(group_id, topic, member_id="made-up"))[
            "error_code"
        ] == (UNKNOWN_MEMBER_ID)
        first = client.call(JOIN, 5, join_body(group_id, topic))
        assert first["error_code"] == MEMBER_ID_REQUIRED
        member = first["member_id"]
        joined = client.call(JOIN, 5, join_body(group_id, topic, member_id=member))
        assert joined["error_code"] == 0
        assert joined["leader"] == member
        generation = joined["generation_id"]
        # A different protocol type cannot join a group of consumers.
        assert client.call(JOIN, 5, join_body(group_id, topic, protocol_type="connect"))[
            "error_code"
        ] == (INCONSISTENT_GROUP_PROTOCOL)
        stale_sync = {
            "group_id": group_id,
            "generation_id": generation - 1,
            "member_id": member,
            "group_instance_id": None,
            "assignments": [],
        }
        assert client.call(SYNC, 3, stale_sync)["error_code"] == ILLEGAL_GENERATION
        synced = client.call(
            SYNC,
            3,
            {
                **stale_sync,
                "generation_id": generation,
                "assignments": [{"member_id": member, "assignment": b""}],
            },
        )
        assert synced["error_code"] == 0
        beat = {
            "group_id": group_id,
            "generation_id": generation,
            "member_id": "nobody",
            "group_instance_id": None,
        }
        assert client.call(HEARTBEAT, 3, beat)["error_code"] == UNKNOWN_MEMBER_ID
        beat.update(member_id=member, generation_id=generation + 5)
        assert client.call(HEARTBEAT, 3, beat)["error_code"] == ILLEGAL_GENERATION

        def commit(metadata: str, generation_id: int, name: str = topic) -> int:
            body = {
                "group_id": group_id,
                "generation_id_or_member_epoch": generation_id,
                "member_id": member,
                "group_instance_id": None,
                "topics": [
                    {
                        "name": name,
                        "partitions": [
                            {
                                "partition_index": 0,
                                "committed_offset": 1,
                                "committed_leader_epoch": -1,
                                "committed_metadata": metadata,
                            }
                        ],
                    }
                ],
            }
            code: int = client.call(COMMIT, 8, body)["topics"][0]["partitions"][0]["error_code"]
            return code

        assert commit("m" * 5000, generation) == OFFSET_METADATA_TOO_LARGE
        assert commit("ok", generation - 1) == ILLEGAL_GENERATION
        assert commit("ok", generation, name="no-such-topic") == UNKNOWN_TOPIC_OR_PARTITION
        assert commit("ok", generation) == 0

        described = client.call(
            DESCRIBE,
            5,
            {"groups": [group_id, "no-such-group"], "include_authorized_operations": False},
        )
        states = {g["group_id"]: g["group_state"] for g in described["groups"]}
        assert states == {group_id: "Stable", "no-such-group": "Dead"}
        # The raw member leaves; a real consumer then gets the whole topic.
        left = client.call(
            LEAVE,
            4,
            {"group_id": group_id, "members": [{"member_id": member, "group_instance_id": None}]},
        )
        assert left["error_code"] == 0
        assert left["members"][0]["error_code"] == 0
    finally:
        client.close()
    consumer = Consumer(consumer_config(bootstrap, group_id))
    try:
        consumer.subscribe([topic])

        def owns_all() -> bool:
            consumer.poll(0.1)
            return len(consumer.assignment()) == 2

        wait_until(owns_all)
    finally:
        consumer.close()


def test_a_join_waiting_at_shutdown_is_answered_not_coordinator(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    broker = ferrolog_broker_factory(overrides={"group.initial.rebalance.delay.ms": "60000"})
    bootstrap = broker.bootstrap_servers
    topic = create_topic(bootstrap, partitions=1)
    client = Client(bootstrap)
    observer = Client(bootstrap)
    try:
        found = client.call(FIND_COORDINATOR, 3, {"key": "waiting", "key_type": 0})
        assert found["error_code"] == 0
        describe = {"groups": ["waiting"], "include_authorized_operations": False}
        wait_until(lambda: client.call(DESCRIBE, 5, describe)["groups"][0]["error_code"] == 0)
        body = {**join_body("waiting", topic), "rebalance_timeout_ms": 60_000}
        # v3: no member id round trip; this join now waits for the initial delay.
        payload = encode_request(JOIN, 3, 99, "raw-groups", body)
        client.sock.sendall(struct.pack(">i", len(payload)) + payload)
        # Seen from another connection: this one's answer is what the test reads next.
        wait_until(
            lambda: (
                observer.call(DESCRIBE, 5, describe)["groups"][0]["group_state"]
                == "PreparingRebalance"
            ),
            what="the join to be waiting",
        )
        # Answered by the coordinator as it stops, not cancelled (which closes the connection).
        broker.stop()
        size = struct.unpack(">i", client._exactly(4))[0]
        correlation, response = decode_response(JOIN, 3, client._exactly(size))
        assert correlation == 99
        assert response["error_code"] == NOT_COORDINATOR
    finally:
        observer.close()
        client.close()


def test_offsets_by_topic_id(bootstrap: str, group_id: str) -> None:
    """OffsetCommit and OffsetFetch v10 name topics by id (KIP-516): what is committed by id is
    read by name and by id alike, and an id no topic has is UNKNOWN_TOPIC_ID."""
    topic = create_topic(bootstrap, partitions=2)
    client = Client(bootstrap)
    try:
        meta = client.call(3, 12, {"topics": [{"name": topic}], "allow_auto_topic_creation": False})
        topic_id = bytes(meta["topics"][0]["topic_id"])
        nobody = b"\x07" * 16
        commit = {
            "group_id": group_id,
            "generation_id_or_member_epoch": -1,
            "member_id": "",
            "group_instance_id": None,
            "topics": [
                {"topic_id": tid, "partitions": [{"partition_index": 1, "committed_offset": 5}]}
                for tid in (topic_id, nobody)
            ],
        }

        def commit_once() -> dict[str, Any] | None:
            answer = client.call(COMMIT, 10, commit)
            codes = {p["error_code"] for t in answer["topics"] for p in t["partitions"]}
            return None if COORDINATOR_LOAD_IN_PROGRESS in codes else answer

        answer = wait_until(commit_once, 30, what="the coordinator to have loaded")
        by_id = {bytes(t["topic_id"]): t["partitions"][0]["error_code"] for t in answer["topics"]}
        assert by_id == {topic_id: 0, nobody: UNKNOWN_TOPIC_ID}

        def fetch(version: int, topics: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
            body = {"groups": [{"group_id": group_id, "topics": topics}], "require_stable": False}
            (group,) = client.call(OFFSET_FETCH, version, body)["groups"]
            assert group["error_code"] == 0
            return list(group["topics"])

        (named,) = fetch(9, [{"name": topic, "partition_indexes": [1]}])
        assert named["partitions"][0]["committed_offset"] == 5
        asked = [{"topic_id": tid, "partition_indexes": [1]} for tid in (topic_id, nobody)]
        fetched = {
            bytes(t["topic_id"]): (p["committed_offset"], p["error_code"])
            for t in fetch(10, asked)
            for p in t["partitions"]
        }
        assert fetched == {topic_id: (5, 0), nobody: (-1, UNKNOWN_TOPIC_ID)}
        (everything,) = fetch(10, None)
        assert bytes(everything["topic_id"]) == topic_id
    finally:
        client.close()
