"""KIP-932 share groups, coordinator side: ShareGroupHeartbeat and ShareGroupDescribe as
Kafka 4.4's KafkaShareConsumer sends them, the `simple` assignor, the share-partition state
the group coordinator has the share coordinator create before it assigns a partition, and how
the other group APIs treat a share group's id.

FERROLOG_SHARE_BOOTSTRAP=host:port runs the same tests against another broker (Kafka 4.4
with the settings of `share_tools.SHARE_SETTINGS`) to check that both answer alike."""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.client.connection import Connection
from ferrolog.embedded import EmbeddedBroker
from ferrolog.protocol.messages import Apis

from tests.groups.conftest import create_topic, produce
from tests.groups.share_tools import (
    assigned,
    connect,
    describe,
    find_coordinator,
    heartbeat,
    kafka_share_groups,
    member_id,
    topic_id,
)
from tests.handlers.features_tools import SAFE_DOWNGRADE, UPGRADE, finalized, update

pytestmark = pytest.mark.native

NONE, UNKNOWN_MEMBER_ID, INVALID_REQUEST, GROUP_ID_NOT_FOUND = 0, 25, 42, 69
FENCED_MEMBER_EPOCH, INCONSISTENT_GROUP_PROTOCOL, UNSUPPORTED_VERSION = 110, 23, 35
NON_EMPTY_GROUP = 68
COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR = 14, 15, 16
RETRY = (COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR)
# The assignment interval (1 s) and the share-state initialization come between a join and
# the partitions: a member polls for them as KafkaShareConsumer does.
SETTLE_S = 10


@pytest.fixture
def bootstrap(share_bootstrap: str) -> str:
    return share_bootstrap


@pytest.fixture
def conn(share_conn: Connection) -> Connection:
    return share_conn


def new_group(conn: Connection) -> str:
    group = f"share-{uuid.uuid4().hex[:8]}"
    find_coordinator(conn, group)
    return group


class Member:
    """A share consumer's heartbeats: it joins, then heartbeats at its epoch."""

    def __init__(self, conn: Connection, group: str, topics: list[str]) -> None:
        self.conn, self.group, self.id = conn, group, member_id()
        deadline = time.monotonic() + SETTLE_S
        # As a client, it retries while the group's coordinator loads.
        while (response := heartbeat(conn, group, self.id, 0, topics))["error_code"] in RETRY:
            assert time.monotonic() < deadline, response
            time.sleep(0.1)
        self.response = response
        assert self.response["error_code"] == NONE, self.response
        self.epoch = self.response["member_epoch"]
        self.partitions = assigned(self.response) or {}

    def beat(self) -> dict[str, Any]:
        self.response = heartbeat(self.conn, self.group, self.id, self.epoch)
        assert self.response["error_code"] == NONE, self.response
        self.epoch = self.response["member_epoch"]
        got = assigned(self.response)
        if got is not None:
            self.partitions = got
        return self.response

    def leave(self) -> dict[str, Any]:
        return heartbeat(self.conn, self.group, self.id, -1)


def settle(members: list[Member], done: Any) -> None:
    """Heartbeats every member until `done()` holds."""
    deadline = time.monotonic() + SETTLE_S
    while not done():
        assert time.monotonic() < deadline, [m.response for m in members]
        time.sleep(0.1)
        for m in members:
            m.beat()


def test_a_member_gets_every_partition_once_their_state_exists(
    bootstrap: str, conn: Connection
) -> None:
    topic = create_topic(bootstrap, 3)
    group = new_group(conn)
    member = Member(conn, group, [topic])
    # As Kafka 4.4: a new group is at epoch 1, the join moves it to 2; nothing is assigned
    # before the share coordinator has the partitions' state.
    assert (member.epoch, member.partitions) == (2, {})
    settle([member], lambda: member.partitions)
    assert member.partitions == {topic_id(conn, topic): [0, 1, 2]}
    (described,) = describe(conn, group)
    assert described["group_state"] == "Stable"
    assert described["assignor_name"] == "simple"
    assert described["group_epoch"] == described["assignment_epoch"] == member.epoch
    (shown,) = described["members"]
    assert shown["member_id"] == member.id
    assert shown["client_id"] == "share-test"
    assert shown["subscribed_topic_names"] == [topic]
    assert [
        (t["topic_name"], t["partitions"]) for t in shown["assignment"]["topic_partitions"]
    ] == [(topic, [0, 1, 2])]


def test_members_split_the_partitions_and_share_them_when_fewer(
    bootstrap: str, conn: Connection
) -> None:
    three, one = create_topic(bootstrap, 3), create_topic(bootstrap, 1)
    group = new_group(conn)
    a = Member(conn, group, [three])
    settle([a], lambda: a.partitions)
    b = Member(conn, group, [three])
    members = [a, b]
    # Two members, three partitions: each partition goes to one member, 2 and 1.
    settle(
        members,
        lambda: (
            a.partitions
            and b.partitions
            and sum(len(ps) for m in members for ps in m.partitions.values()) == 3
        ),
    )
    split = sorted(ps for m in members for ps in m.partitions.values())
    assert sorted(p for ps in split for p in ps) == [0, 1, 2]
    assert sorted(len(ps) for ps in split) == [1, 2]
    # Three members, one partition: all three read it.
    shared = new_group(conn)
    readers = [Member(conn, shared, [one]) for _ in range(3)]
    settle(readers, lambda: all(r.partitions for r in readers))
    assert [r.partitions for r in readers] == [{topic_id(conn, one): [0]}] * 3


def test_heartbeats_refused_with_kafkas_errors(bootstrap: str, conn: Connection) -> None:
    topic = create_topic(bootstrap, 1)
    group = new_group(conn)

    def refused(member: str, epoch: int, topics: list[str] | None = None) -> tuple[int, Any]:
        r = heartbeat(conn, group, member, epoch, topics)
        return r["error_code"], r["error_message"]

    # Checked before the coordinator: a member id is set and at most 36 characters.
    assert refused("", 0, [topic]) == (INVALID_REQUEST, None)
    assert refused("x" * 37, 0, [topic]) == (INVALID_REQUEST, None)
    assert refused(member_id(), 0) == (
        INVALID_REQUEST,
        "SubscribedTopicNames must be set in first request.",
    )
    assert refused(member_id(), -2, [topic]) == (INVALID_REQUEST, "MemberEpoch is invalid.")
    absent = member_id()
    assert refused(absent, 1) == (GROUP_ID_NOT_FOUND, f"Share group {group} not found.")
    member = Member(conn, group, [topic])
    assert refused(absent, 1) == (
        UNKNOWN_MEMBER_ID,
        f"Member {absent} is not a member of group {group}.",
    )
    code, message = refused(member.id, member.epoch + 1)
    assert code == FENCED_MEMBER_EPOCH
    assert message.startswith("The share group member has a greater member epoch")
    # A member may always join again with epoch 0: it gets the group's current epoch.
    again = heartbeat(conn, group, member.id, 0, [topic])
    assert (again["error_code"], again["member_epoch"]) == (NONE, member.epoch)


def test_leaving_and_expiring_move_the_group_on(bootstrap: str, conn: Connection) -> None:
    topic = create_topic(bootstrap, 2)
    group = new_group(conn)
    a, b = Member(conn, group, [topic]), Member(conn, group, [topic])
    settle([a, b], lambda: a.partitions and b.partitions)
    left = b.leave()
    assert (left["error_code"], left["member_id"], left["member_epoch"]) == (NONE, b.id, -1)
    assert left["assignment"] is None
    settle([a], lambda: a.partitions == {topic_id(conn, topic): [0, 1]})
    # The last member stops heartbeating: its session (1.5 s here) ends and the group is
    # empty, but stays (share groups never expire).
    deadline = time.monotonic() + SETTLE_S
    while describe(conn, group)[0]["members"]:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    (empty,) = describe(conn, group)
    assert empty["group_state"] == "Empty"
    listed = conn.request(Apis.LIST_GROUPS, 5, {"states_filter": [], "types_filter": ["share"]})
    assert {"group_id": group, "protocol_type": "share", "group_state": "Empty",
            "group_type": "share"} in listed["groups"]  # fmt: skip


def test_other_protocols_are_told_it_is_a_share_group(bootstrap: str, conn: Connection) -> None:
    topic = create_topic(bootstrap, 1)
    group = new_group(conn)
    Member(conn, group, [topic])
    consumer: Any = {
        "group_id": group, "member_id": str(uuid.uuid4()), "member_epoch": 0,
        "instance_id": None, "rack_id": None, "rebalance_timeout_ms": 30000,
        "subscribed_topic_names": [topic], "subscribed_topic_regex": None,
        "server_assignor": None, "topic_partitions": [],
    }  # fmt: skip
    answer = conn.request(Apis.CONSUMER_GROUP_HEARTBEAT, 1, consumer)
    assert (answer["error_code"], answer["error_message"]) == (
        GROUP_ID_NOT_FOUND,
        f"Group {group} is not a consumer group.",
    )
    join: Any = {
        "group_id": group, "session_timeout_ms": 10000, "rebalance_timeout_ms": 10000,
        "member_id": "", "group_instance_id": None, "protocol_type": "consumer",
        "protocols": [{"name": "range", "metadata": b""}], "reason": None,
    }  # fmt: skip
    joined = conn.request(Apis.JOIN_GROUP, 9, join)
    assert (joined["error_code"], joined["member_id"]) == (INCONSISTENT_GROUP_PROTOCOL, "")
    described = conn.request(
        Apis.DESCRIBE_GROUPS, 6, {"groups": [group], "include_authorized_operations": False}
    )
    (classic,) = described["groups"]
    assert (classic["error_code"], classic["error_message"], classic["group_state"]) == (
        GROUP_ID_NOT_FOUND,
        f"Group {group} is not a classic group.",
        "Dead",
    )
    (other,) = describe(conn, new_group(conn))
    assert other["error_code"] == GROUP_ID_NOT_FOUND
    deleted = conn.request(Apis.DELETE_GROUPS, 2, {"groups_names": [group]})
    assert deleted["results"][0]["error_code"] == NON_EMPTY_GROUP


def test_a_restart_keeps_the_group_and_its_epochs(share_broker: EmbeddedBroker) -> None:
    if os.environ.get("FERROLOG_SHARE_BOOTSTRAP"):
        pytest.skip("restarts the module's own broker")
    bootstrap = share_broker.bootstrap_servers
    conn = connect(bootstrap)
    topic = create_topic(bootstrap, 2)
    group = new_group(conn)
    a, b = Member(conn, group, [topic]), Member(conn, group, [topic])
    settle([a, b], lambda: a.partitions and b.partitions)
    (before,) = describe(conn, group)
    conn.close()
    share_broker.restart()
    conn = connect(share_broker.bootstrap_servers)
    try:
        deadline = time.monotonic() + SETTLE_S
        while (after := describe(conn, group)[0])["error_code"]:
            assert time.monotonic() < deadline, after
            time.sleep(0.1)
        assert after == before
        # The members carry on at their epochs, with their partitions.
        for m in (a, b):
            m.conn = conn
            kept = dict(m.partitions)
            m.beat()
            assert m.partitions == kept
    finally:
        conn.close()


def test_on_for_a_new_cluster_and_off_at_share_version_0(group_broker: EmbeddedBroker) -> None:
    """A new cluster has share.version 1 finalized, as Kafka 4.4 formats one (at 2, whose
    dead-letter queues ferrolog does not have). Downgraded to 0, the share APIs answer
    UNSUPPORTED_VERSION, as Kafka 4.4 does while share.version is 0; upgraded again, they
    serve."""
    bootstrap = group_broker.bootstrap_servers
    assert finalized(bootstrap)[1]["share.version"] == (1, 1)
    conn = connect(bootstrap)
    try:
        Member(conn, new_group(conn), ["t"])
        assert update(bootstrap, [("share.version", 0, SAFE_DOWNGRADE)])["error_code"] == NONE
        try:
            answer = heartbeat(conn, "g", member_id(), 0, ["t"])
            assert (answer["error_code"], answer["error_message"]) == (UNSUPPORTED_VERSION, None)
            (group,) = describe(conn, "g")
            assert group["error_code"] == UNSUPPORTED_VERSION
        finally:
            assert update(bootstrap, [("share.version", 1, UPGRADE)])["error_code"] == NONE
        Member(conn, new_group(conn), ["t"])
    finally:
        conn.close()


def test_deleting_an_empty_group_deletes_its_share_state(bootstrap: str, conn: Connection) -> None:
    topic = create_topic(bootstrap, 1)
    group = new_group(conn)
    member = Member(conn, group, [topic])
    settle([member], lambda: member.partitions)
    tid = topic_id(conn, topic)
    summary: Any = {
        "group_id": group,
        "topics": [{"topic_id": tid, "partitions": [{"partition": 0, "leader_epoch": 0}]}],
    }

    def initialized() -> bool:
        (result,) = conn.request(Apis.READ_SHARE_GROUP_STATE_SUMMARY, 1, summary)["results"]
        (answer,) = result["partitions"]
        assert answer["error_code"] == NONE, answer
        return bool(answer["delivery_complete_count"] != -1 or answer["state_epoch"] > 0)

    assert initialized()
    assert member.leave()["error_code"] == NONE
    deleted = conn.request(Apis.DELETE_GROUPS, 2, {"groups_names": [group]})
    assert deleted["results"][0]["error_code"] == NONE
    (gone,) = describe(conn, group)
    assert (gone["error_code"], gone["error_message"]) == (
        GROUP_ID_NOT_FOUND,
        f"Group {group} not found.",
    )
    deadline = time.monotonic() + SETTLE_S
    while initialized():
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_kafka_share_groups_resets_describes_and_deletes(bootstrap: str, conn: Connection) -> None:
    topic = create_topic(bootstrap, 2)
    produce(bootstrap, topic, 5, 2)
    group = new_group(conn)
    member = Member(conn, group, [topic])
    settle([member], lambda: member.partitions)
    # Nothing read yet: the share-partitions exist, without a start offset.
    described = kafka_share_groups(bootstrap, "--describe", "--group", group)
    assert f"{group} {topic} 0 - -" in described.splitlines()
    # Gone by itself meanwhile (a session of 1.5 s), or now: the group must be empty.
    assert member.leave()["error_code"] in (NONE, UNKNOWN_MEMBER_ID)
    kafka_share_groups(bootstrap, "--reset-offsets", "--group", group, "--topic", topic,
                       "--to-earliest", "--execute")  # fmt: skip
    kafka_share_groups(bootstrap, "--reset-offsets", "--group", group, "--topic", f"{topic}:1",
                       "--to-offset", "3", "--execute")  # fmt: skip
    verbose = kafka_share_groups(bootstrap, "--describe", "--group", group, "--verbose")
    assert verbose.splitlines()[-2:] == [f"{group} {topic} 0 0 0 5", f"{group} {topic} 1 0 3 2"]
    deleted = kafka_share_groups(
        bootstrap, "--delete-offsets", "--group", group, "--topic", topic, "--topic", "absent"
    )
    assert deleted.splitlines()[-2:] == [
        "absent Error: This server does not host this topic-partition.",
        f"{topic} Successful",
    ]
    gone = kafka_share_groups(bootstrap, "--describe", "--group", group)
    assert gone == f"Share group '{group}' has no offset information."
    removed = kafka_share_groups(bootstrap, "--delete", "--group", group)
    assert removed == f"Deletion of requested share groups ('{group}') was successful."
    assert group not in kafka_share_groups(bootstrap, "--list").splitlines()


def test_a_deleted_topic_leaves_the_groups_share_state(bootstrap: str, conn: Connection) -> None:
    """A topic deleted and created again under its name is new to a share group: its share
    state went with the old topic (Kafka's maybeCleanupShareGroupState)."""
    topic = create_topic(bootstrap, 2)
    group = new_group(conn)
    member = Member(conn, group, [topic])
    settle([member], lambda: member.partitions)
    member.leave()
    everything: Any = {"groups": [{"group_id": group, "topics": None}]}

    def described() -> list[str]:
        (answer,) = conn.request(Apis.DESCRIBE_SHARE_GROUP_OFFSETS, 1, everything)["groups"]
        assert answer["error_code"] == NONE, answer
        return [t["topic_name"] for t in answer["topics"]]

    assert described() == [topic]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.delete_topics([topic])[topic].result(20)
    deadline = time.monotonic() + SETTLE_S
    while True:
        try:
            admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(20)
            break
        except KafkaException:  # still being deleted
            assert time.monotonic() < deadline
            time.sleep(0.2)
    deadline = time.monotonic() + SETTLE_S
    while described():
        assert time.monotonic() < deadline, described()
        time.sleep(0.2)
