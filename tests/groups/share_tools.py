"""What the share group tests ask a broker with: raw ShareGroupHeartbeat, ShareGroupDescribe
and share-state requests (as KafkaShareConsumer and brokers send them), answered as decoded
dicts, and the broker settings that turn share groups on."""

from __future__ import annotations

import base64
import subprocess
import time
import uuid
from typing import Any

from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ResourceType,
)
from ferrolog.client.connection import Connection
from ferrolog.protocol.messages import Apis

from tests.cluster.harness import java_command

NONE, COORDINATOR_NOT_AVAILABLE, INVALID_RECORD_STATE = 0, 15, 121
COORDINATOR_RETRY = (14, COORDINATOR_NOT_AVAILABLE, 16)
# ShareAcknowledge's acknowledgement types.
ACCEPT, RELEASE, REJECT, RENEW = 1, 2, 3, 4
# share.version is finalized on a new cluster (ferrolog's and Kafka 4.4's): no setting turns
# share groups on.
SHARE_SETTINGS = {
    "group.initial.rebalance.delay.ms": "0",
    "offsets.topic.num.partitions": "4",
    "share.coordinator.state.topic.num.partitions": "4",
    # Short sessions, for expiry within a test.
    "group.share.min.session.timeout.ms": "1000",
    "group.share.session.timeout.ms": "1500",
    "group.share.min.heartbeat.interval.ms": "100",
    "group.share.heartbeat.interval.ms": "200",
}


def connect(bootstrap: str, client_id: str = "share-test") -> Connection:
    host, _, port = bootstrap.rpartition(":")
    return Connection(host, int(port), 30, client_id)


def find_coordinator(conn: Connection, group: str) -> None:
    """As a client does first: creates `__consumer_offsets` on a new broker."""
    body: Any = {"key_type": 0, "coordinator_keys": [group]}
    deadline = time.monotonic() + 30
    # Kafka answers COORDINATOR_NOT_AVAILABLE while it creates the topic.
    while (found := conn.request(Apis.FIND_COORDINATOR, 6, body)["coordinators"][0])[
        "error_code"
    ] == COORDINATOR_NOT_AVAILABLE:
        assert time.monotonic() < deadline, found
        time.sleep(0.2)
    assert found["error_code"] == 0, found


def topic_id(conn: Connection, name: str) -> bytes:
    body: Any = {
        "topics": [{"name": name, "topic_id": bytes(16)}],
        "allow_auto_topic_creation": False,
        "include_topic_authorized_operations": False,
    }
    (topic,) = conn.request(Apis.METADATA, 12, body)["topics"]
    return bytes(topic["topic_id"])


def share_key(group: str, tid: bytes, partition: int) -> str:
    """FindCoordinator's key of a share-partition (Kafka's SharePartitionKey)."""
    encoded = base64.urlsafe_b64encode(tid).decode().rstrip("=")
    return f"{group}:{encoded}:{partition}"


def member_id() -> str:
    return str(uuid.uuid4())


def heartbeat(
    conn: Connection,
    group: str,
    member: str,
    epoch: int,
    topics: list[str] | None = None,
    rack: str | None = None,
) -> dict[str, Any]:
    body: Any = {
        "group_id": group,
        "member_id": member,
        "member_epoch": epoch,
        "rack_id": rack,
        "subscribed_topic_names": topics,
    }
    response: dict[str, Any] = dict(conn.request(Apis.SHARE_GROUP_HEARTBEAT, 1, body))
    return response


def describe(conn: Connection, *groups: str) -> list[dict[str, Any]]:
    body: Any = {"group_ids": list(groups), "include_authorized_operations": False}
    return [dict(g) for g in conn.request(Apis.SHARE_GROUP_DESCRIBE, 1, body)["groups"]]


def assigned(response: dict[str, Any]) -> dict[bytes, list[int]] | None:
    """A heartbeat's assignment by topic id (None: not sent)."""
    assignment = response["assignment"]
    if assignment is None:
        return None
    return {bytes(t["topic_id"]): sorted(t["partitions"]) for t in assignment["topic_partitions"]}


def kafka_share_groups(bootstrap: str, *args: str) -> str:
    """Kafka 4.4's `kafka-share-groups` (ShareGroupCommand): its standard output, each run of
    blanks as one space. It exits 0 after most errors, which it prints."""
    done = subprocess.run(
        java_command(
            "org.apache.kafka.tools.consumer.group.ShareGroupCommand",
            "--bootstrap-server",
            bootstrap,
            *args,
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return "\n".join(" ".join(line.split()) for line in done.stdout.strip().splitlines())


class Member:
    """A share group member speaking the raw protocol, as KafkaShareConsumer does."""

    def __init__(
        self, conn: Connection, group: str, topic: str, leader: Connection | None = None
    ) -> None:
        """`conn` reaches the group's coordinator, `leader` the leader of partition 0 (the
        same broker when not given)."""
        self.conn, self.group, self.topic = conn, group, topic
        self.leader = leader or conn
        self.tid = topic_id(conn, topic)
        self.id = member_id()
        self.epoch = 0

    def join(self) -> None:
        """Heartbeats until the topic's partition 0 is assigned (its share state exists)."""
        member_epoch = 0
        deadline = time.monotonic() + 30
        while True:
            answer = heartbeat(self.conn, self.group, self.id, member_epoch, [self.topic])
            # A coordinator still loading (a new cluster, a failover) is asked again.
            assert answer["error_code"] in (NONE, *COORDINATOR_RETRY), answer
            member_epoch = answer["member_epoch"] or member_epoch
            if (assigned(answer) or {}).get(self.tid):
                return
            assert time.monotonic() < deadline, answer
            time.sleep(0.2)

    def fetch(
        self,
        acks: list[tuple[int, int, list[int]]] | None = None,
        max_records: int = 500,
        version: int = 1,
        **fields: Any,
    ) -> dict[str, Any]:
        """`fields` replace the request's own (v2's share_acquire_mode, is_renew_ack, ...)."""
        partition: dict[str, Any] = {
            "partition_index": 0,
            "acknowledgement_batches": [
                {"first_offset": f, "last_offset": last, "acknowledge_types": types}
                for f, last, types in acks or []
            ],
        }
        body: Any = {
            "group_id": self.group,
            "member_id": self.id,
            "share_session_epoch": self.epoch,
            "max_wait_ms": 2000,
            "min_bytes": 1,
            "max_bytes": 1 << 20,
            "max_records": max_records,
            "batch_size": max_records,
            "topics": [{"topic_id": self.tid, "partitions": [partition]}],
            "forgotten_topics_data": [],
            **fields,
        }
        answer: dict[str, Any] = dict(self.leader.request(Apis.SHARE_FETCH, version, body))
        if answer["error_code"] == NONE:
            self.epoch = 1 if self.epoch in (0, 2**31 - 1) else self.epoch + 1
        return answer

    def acknowledge(
        self,
        acks: list[tuple[int, int, list[int]]],
        epoch: int | None = None,
        version: int = 1,
        renew: bool = False,
    ) -> Any:
        """`renew`: v2's IsRenewAck."""
        body: Any = {
            "group_id": self.group,
            "member_id": self.id,
            "share_session_epoch": self.epoch if epoch is None else epoch,
            "topics": [
                {
                    "topic_id": self.tid,
                    "partitions": [
                        {
                            "partition_index": 0,
                            "acknowledgement_batches": [
                                {"first_offset": f, "last_offset": last, "acknowledge_types": t}
                                for f, last, t in acks
                            ],
                        }
                    ],
                }
            ],
        }
        if version >= 2:
            body["is_renew_ack"] = renew
        answer = self.leader.request(Apis.SHARE_ACKNOWLEDGE, version, body)
        if answer["error_code"] == NONE and epoch is None:
            self.epoch += 1
        return answer


def acquired(answer: dict[str, Any]) -> list[tuple[int, int, int]]:
    """The acquired ranges, adjacent ones of the same delivery count joined (where a broker
    splits them, at log batches or at the request's batch size, is its own choice)."""
    joined: list[tuple[int, int, int]] = []
    for t in answer["responses"]:
        for p in t["partitions"]:
            for r in p["acquired_records"]:
                first, last, count = r["first_offset"], r["last_offset"], r["delivery_count"]
                if joined and joined[-1][1] + 1 == first and joined[-1][2] == count:
                    first = joined.pop()[0]
                joined.append((first, last, count))
    return joined


def partition_codes(answer: dict[str, Any], field: str = "error_code") -> list[int]:
    return [p[field] for t in answer["responses"] for p in t["partitions"]]


def earliest(bootstrap: str, group: str) -> None:
    set_group_config(bootstrap, group, "share.auto.offset.reset", "earliest")


def set_group_config(bootstrap: str, group: str, name: str, value: str) -> None:
    resource = ConfigResource(
        ResourceType.GROUP,
        group,
        incremental_configs=[ConfigEntry(name, value, incremental_operation=AlterConfigOpType.SET)],
    )
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.incremental_alter_configs([resource])[resource].result(30)


def fetch_until_acquired(member: Member, **kw: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        answer = member.fetch(**kw)
        assert answer["error_code"] == NONE, answer
        if acquired(answer):
            return answer
        assert time.monotonic() < deadline, answer
