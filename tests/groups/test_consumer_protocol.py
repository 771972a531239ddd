"""KIP-848 consumer groups (`group.protocol=consumer`): librdkafka's and the Java client's
consumers, and the heartbeat's rules asked directly (ConsumerGroupHeartbeat v0/v1,
ConsumerGroupDescribe, OffsetCommit v9 with member epochs).

The answers expected are Kafka 4.4.0's (a KRaft broker from bench/cache's jars asked the same:
ListGroups reports type and protocol type "consumer", DescribeGroups a consumer group as Dead,
ConsumerGroupDescribe "Group <id> not found." for an unknown group, UNKNOWN_MEMBER_ID for a
commit of an unknown member); group.version 1 is finalized on a new cluster, as Kafka 4.4
formats one."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient
from ferrolog.embedded import EmbeddedBroker

from bench.harness import brokers
from tests.groups.conftest import create_topic, produce
from tests.groups.consumer_tools import (
    CONSUMER_GROUP_DESCRIBE,
    consumer_groups,
    describe_consumer,
    heartbeat,
    join,
    upgraded_broker,
    wait_for,
)
from tests.groups.test_java_client import console_consumer
from tests.handlers.features_tools import SAFE_DOWNGRADE, UPGRADE, request, update

OFFSET_COMMIT = 8
INVALID_REQUEST, UNSUPPORTED_VERSION, UNKNOWN_MEMBER_ID = 42, 35, 25
FENCED_MEMBER_EPOCH, UNSUPPORTED_ASSIGNOR, STALE_MEMBER_EPOCH = 110, 112, 113
GROUP_ID_NOT_FOUND, UNRELEASED_INSTANCE_ID, INVALID_REGULAR_EXPRESSION = 69, 111, 128
SETTINGS = {
    "offsets.topic.num.partitions": "2",
    "group.consumer.session.timeout.ms": "3000",
    "group.consumer.heartbeat.interval.ms": "200",
    # Below Kafka's bounds, which must move with them.
    "group.consumer.min.session.timeout.ms": "1000",
    "group.consumer.min.heartbeat.interval.ms": "100",
    "offsets.retention.check.interval.ms": "300",
}


@pytest.fixture(scope="module")
def broker() -> Iterator[EmbeddedBroker]:
    with upgraded_broker(SETTINGS) as b:
        yield b


@pytest.fixture
def bootstrap(broker: EmbeddedBroker) -> str:
    return broker.bootstrap_servers


def partitions(answer: dict[str, Any]) -> list[int]:
    assignment = answer["assignment"]
    assert assignment is not None, answer
    return sorted(p for tp in assignment["topic_partitions"] for p in tp["partitions"])


def owned(topic_id: bytes, parts: list[int]) -> list[dict[str, Any]]:
    return [{"topic_id": topic_id, "partitions": parts}] if parts else []


def test_heartbeat_needs_group_version(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    """As Kafka with group.version 0: advertised, but answered UNSUPPORTED_VERSION."""
    fresh = ferrolog_broker_factory().bootstrap_servers
    assert join(fresh, "g", "t")["error_code"] == 0
    assert update(fresh, [("group.version", 0, SAFE_DOWNGRADE)])["error_code"] == 0
    assert join(fresh, "g2", "t")["error_code"] == UNSUPPORTED_VERSION
    assert update(fresh, [("group.version", 1, UPGRADE)])["error_code"] == 0
    assert join(fresh, "g2", "t")["error_code"] == 0


def test_heartbeat_rules(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=6)
    group = f"g-{uuid.uuid4().hex[:8]}"
    # Requests Kafka refuses, with its messages.
    bad = heartbeat(bootstrap, group_id="", member_id="m", rebalance_timeout_ms=1)
    assert (bad["error_code"], bad["error_message"]) == (INVALID_REQUEST, "GroupId can't be empty.")
    bad = join(bootstrap, group, topic, member_id="")
    assert (bad["error_code"], bad["error_message"]) == (
        INVALID_REQUEST,
        "MemberId can't be empty.",
    )
    assert join(bootstrap, group, topic, server_assignor="sticky")["error_code"] == (
        UNSUPPORTED_ASSIGNOR
    )
    # v0: the coordinator names the member.
    v0 = join(bootstrap, f"{group}-v0", topic, version=0, member_id="")
    assert v0["error_code"] == 0, v0
    assert v0["member_id"], v0

    # A joins alone and gets everything at epoch 2 (Kafka 4.4 starts a group at 1).
    a_id = str(uuid.uuid4())
    a = join(bootstrap, group, topic, member_id=a_id)
    assert (a["error_code"], a["member_epoch"], a["member_id"]) == (0, 2, a_id)
    assert partitions(a) == [0, 1, 2, 3, 4, 5]
    assert a["heartbeat_interval_ms"] == 200
    topic_id = a["assignment"]["topic_partitions"][0]["topic_id"]
    # B joins: the group epoch moves to 3, but B gets nothing A still owns.
    b_id = str(uuid.uuid4())
    b = join(bootstrap, group, topic, member_id=b_id)
    assert (b["error_code"], b["member_epoch"], partitions(b)) == (0, 3, [])
    # A is told to give up three partitions, keeping its epoch until it has.
    a = heartbeat(bootstrap, group_id=group, member_id=a_id, member_epoch=2)
    assert (a["member_epoch"], len(partitions(a))) == (2, 3), a
    kept = partitions(a)
    # B still waits while A has not revoked.
    b = heartbeat(bootstrap, group_id=group, member_id=b_id, member_epoch=3)
    assert (b["member_epoch"], b["assignment"]) == (3, None)
    # An epoch ahead of the coordinator's is fenced.
    ahead = heartbeat(bootstrap, group_id=group, member_id=a_id, member_epoch=6)
    assert ahead["error_code"] == FENCED_MEMBER_EPOCH
    # A commits with its epoch; a stale epoch or an old OffsetCommit version is refused.
    commit = {
        "group_id": group,
        "member_id": a_id,
        "group_instance_id": None,
        "topics": [
            {
                "name": topic,
                "partitions": [
                    {
                        "partition_index": kept[0],
                        "committed_offset": 0,
                        "committed_leader_epoch": -1,
                        "committed_metadata": "",
                    }
                ],
            }
        ],
    }

    def commit_error(version: int, epoch: int, member: str = a_id) -> int:
        body = {**commit, "generation_id_or_member_epoch": epoch, "member_id": member}
        answer = request(bootstrap, OFFSET_COMMIT, version, body)
        code: int = answer["topics"][0]["partitions"][0]["error_code"]
        return code

    assert commit_error(9, 0) == STALE_MEMBER_EPOCH
    assert commit_error(9, 3) == STALE_MEMBER_EPOCH  # ahead too, as Kafka answers
    assert commit_error(8, 2) == UNSUPPORTED_VERSION
    assert commit_error(9, 2) == 0
    # Not from outside the group while it has members.
    assert commit_error(9, -1, member="") == UNKNOWN_MEMBER_ID
    # A revokes: it moves to epoch 3, then B gets the other three.
    a = heartbeat(
        bootstrap,
        group_id=group,
        member_id=a_id,
        member_epoch=2,
        topic_partitions=owned(topic_id, kept),
    )
    assert (a["error_code"], a["member_epoch"]) == (0, 3)
    b = heartbeat(bootstrap, group_id=group, member_id=b_id, member_epoch=3)
    assert sorted(partitions(b) + kept) == [0, 1, 2, 3, 4, 5]
    described = request(
        bootstrap,
        CONSUMER_GROUP_DESCRIBE,
        0,
        {"group_ids": [group, "nope"], "include_authorized_operations": False},
    )["groups"]
    assert (described[0]["group_state"], described[0]["group_epoch"]) == ("Stable", 3)
    assert described[0]["assignor_name"] == "uniform"
    assert {m["member_id"]: m["member_epoch"] for m in described[0]["members"]} == {
        a_id: 3,
        b_id: 3,
    }
    assert (described[1]["error_code"], described[1]["error_message"]) == (
        GROUP_ID_NOT_FOUND,
        "Group nope not found.",
    )
    # B leaves: A takes everything back at epoch 4.
    left = heartbeat(bootstrap, group_id=group, member_id=b_id, member_epoch=-1)
    assert (left["error_code"], left["member_epoch"]) == (0, -1)
    a = heartbeat(bootstrap, group_id=group, member_id=a_id, member_epoch=3)
    assert (a["member_epoch"], partitions(a)) == (4, [0, 1, 2, 3, 4, 5])
    gone = heartbeat(bootstrap, group_id=group, member_id=b_id, member_epoch=3)
    assert gone["error_code"] == UNKNOWN_MEMBER_ID


def test_an_empty_group_without_offsets_is_removed(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=1)
    group = f"g-{uuid.uuid4().hex[:8]}"
    member_id = str(uuid.uuid4())
    assert join(bootstrap, group, topic, member_id=member_id)["error_code"] == 0
    heartbeat(bootstrap, group_id=group, member_id=member_id, member_epoch=-1)

    def described() -> dict[str, Any]:
        body = {"group_ids": [group], "include_authorized_operations": False}
        found: dict[str, Any] = request(bootstrap, CONSUMER_GROUP_DESCRIBE, 0, body)["groups"][0]
        return found

    # Empty first, then gone at the next offset expiration check (300 ms here).
    assert described()["group_state"] in ("Empty", "")
    end = time.monotonic() + 10
    while described()["error_code"] != GROUP_ID_NOT_FOUND and time.monotonic() < end:
        time.sleep(0.1)
    assert described()["error_code"] == GROUP_ID_NOT_FOUND


def test_range_assignor(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=5)
    group = f"g-{uuid.uuid4().hex[:8]}"
    ids = sorted(str(uuid.uuid4()) for _ in range(2))
    first = join(bootstrap, group, topic, member_id=ids[1], server_assignor="range")
    assert partitions(first) == [0, 1, 2, 3, 4]
    # The member that sorts first takes the first, larger, range once the other revokes it.
    join(bootstrap, group, topic, member_id=ids[0], server_assignor="range")
    second = heartbeat(bootstrap, group_id=group, member_id=ids[1], member_epoch=2)
    assert partitions(second) == [3, 4]


def test_uniform_assignor_balances_different_subscriptions(bootstrap: str) -> None:
    both, one = create_topic(bootstrap, partitions=2), create_topic(bootstrap, partitions=2)
    group = f"g-{uuid.uuid4().hex[:8]}"
    a_id, b_id = str(uuid.uuid4()), str(uuid.uuid4())
    a = join(bootstrap, group, both, member_id=a_id, subscribed_topic_names=[both, one])
    assert len(partitions(a)) == 4
    # B can only take `both`: A gives both of its partitions up and keeps `one`'s.
    join(bootstrap, group, both, member_id=b_id)
    a = heartbeat(bootstrap, group_id=group, member_id=a_id, member_epoch=2)
    names = {tp["topic_id"] for tp in a["assignment"]["topic_partitions"]}
    assert (len(names), partitions(a)) == (1, [0, 1])
    heartbeat(
        bootstrap,
        group_id=group,
        member_id=a_id,
        member_epoch=2,
        topic_partitions=a["assignment"]["topic_partitions"],
    )
    b = heartbeat(bootstrap, group_id=group, member_id=b_id, member_epoch=3)
    assert partitions(b) == [0, 1]
    assert b["assignment"]["topic_partitions"][0]["topic_id"] not in names


def test_regex_subscription(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=2)
    group = f"g-{uuid.uuid4().hex[:8]}"
    bad = join(bootstrap, group, topic, subscribed_topic_names=None, subscribed_topic_regex="[")
    assert bad["error_code"] == INVALID_REGULAR_EXPRESSION
    member = join(
        bootstrap,
        group,
        topic,
        subscribed_topic_names=None,
        subscribed_topic_regex=f"{topic[:6]}.*",
    )
    assert member["error_code"] == 0
    names = {
        tp["topic_name"]
        for m in describe_consumer(bootstrap, group)["members"]
        for tp in m["assignment"]["topic_partitions"]
    }
    # Every matching topic (other tests' too), never an internal one.
    assert topic in names
    assert not any(n.startswith("__") for n in names)


def test_static_member_restarts_and_a_silent_member_expires(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=4)
    group = f"g-{uuid.uuid4().hex[:8]}"
    a_id, b_id, b2_id = (str(uuid.uuid4()) for _ in range(3))
    a = join(bootstrap, group, topic, member_id=a_id)
    b = join(bootstrap, group, topic, member_id=b_id, instance_id="b")
    # A revokes two; B then gets them.
    a = heartbeat(bootstrap, group_id=group, member_id=a_id, member_epoch=2)
    topic_id = a["assignment"]["topic_partitions"][0]["topic_id"]
    kept = partitions(a)
    heartbeat(
        bootstrap,
        group_id=group,
        member_id=a_id,
        member_epoch=2,
        topic_partitions=owned(topic_id, kept),
    )
    b = heartbeat(bootstrap, group_id=group, member_id=b_id, member_epoch=3)
    b_parts = partitions(b)
    assert sorted(kept + b_parts) == [0, 1, 2, 3]
    # B leaves as a static member (-2) and comes back under a new member id: same
    # partitions, same epoch, no rebalance for A.
    left = heartbeat(bootstrap, group_id=group, member_id=b_id, member_epoch=-2, instance_id="b")
    assert (left["error_code"], left["member_epoch"]) == (0, -2)
    other = join(bootstrap, group, topic, member_id=str(uuid.uuid4()), instance_id="b")
    # -2 released the instance id for its next incarnation, which takes B's place and
    # partitions at a new group epoch (Kafka 4.4 answers so too).
    assert (other["error_code"], other["member_epoch"], partitions(other)) == (0, 4, b_parts)
    b2 = join(bootstrap, group, topic, member_id=b2_id, instance_id="b")
    assert b2["error_code"] == UNRELEASED_INSTANCE_ID
    # A moves to the new epoch without giving anything up.
    a = heartbeat(bootstrap, group_id=group, member_id=a_id, member_epoch=3)
    assert (a["member_epoch"], a["assignment"]) == (4, None)
    # The member stops heartbeating: after the session timeout (3 s here) A has everything.
    time.sleep(1.5)
    heartbeat(bootstrap, group_id=group, member_id=a_id, member_epoch=4)
    time.sleep(2)
    a = heartbeat(bootstrap, group_id=group, member_id=a_id, member_epoch=4)
    assert (a["member_epoch"], partitions(a)) == (5, [0, 1, 2, 3])


def test_librdkafka_consumers_share_rebalance_and_resume(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=6)
    produce(bootstrap, topic, per_partition=5, partitions=6)
    group = f"g-{uuid.uuid4().hex[:8]}"
    config = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "group.protocol": "consumer",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    }
    one, two = Consumer(config), Consumer(config)
    try:
        for c in (one, two):
            c.subscribe([topic])

        def split() -> bool:
            a = {tp.partition for tp in one.assignment()}
            b = {tp.partition for tp in two.assignment()}
            return len(a) == 3 and len(b) == 3 and a | b == set(range(6))

        received: dict[int, int] = {}
        assert wait_for(split, [one, two], 30, received), (one.assignment(), two.assignment())
        admin = AdminClient({"bootstrap.servers": bootstrap})
        listed = admin.list_consumer_groups().result(timeout=10)
        mine = [g for g in listed.valid if g.group_id == group]
        assert mine, listed.valid
        assert str(mine[0].type).endswith("CONSUMER"), mine

        # `two` reads its three partitions to their end and commits; it leaves, and `one`
        # takes all six. (By position, not by count: before the split settled, `two` may
        # have read from a partition that went to `one`.)
        def two_read_all() -> bool:
            positions = two.position(two.assignment())
            return len(positions) == 3 and all(tp.offset == 5 for tp in positions)

        assert wait_for(two_read_all, [one, two], 20, received), received
        two.commit(asynchronous=False)
        two.close()
        assert wait_for(lambda: len(one.assignment()) == 6, [one], 30), one.assignment()
    finally:
        one.close()
    # A new member resumes from the committed offsets: the 15 read are not read again.
    three = Consumer(config)
    try:
        three.subscribe([topic])
        got = 0
        end = time.monotonic() + 30
        while got < 15 and time.monotonic() < end:
            m = three.poll(0.1)
            if m is not None and m.error() is None:
                got += 1
        assert got == 15
        committed = three.committed([TopicPartition(topic, p) for p in range(6)], timeout=10)
        assert sorted(max(tp.offset, 0) for tp in committed) == [0, 0, 0, 5, 5, 5]
        extra = three.poll(1.0)
        assert extra is None or extra.error() is not None
    finally:
        three.close()


@pytest.mark.skipif(not brokers.jars_available(), reason="needs java and Kafka's jars")
def test_java_console_consumer_with_the_consumer_protocol(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=3)
    produce(bootstrap, topic, per_partition=4, partitions=3)
    group = f"g-{uuid.uuid4().hex[:8]}"
    read = console_consumer(bootstrap, topic, group, 12, protocol="consumer")
    # Kafka's kafka-consumer-groups reads the group through ConsumerGroupDescribe.
    rows = consumer_groups(bootstrap, group, "--offsets")[1:]
    assert sorted(row[1:4] for row in rows) == [[topic, str(p), "4"] for p in range(3)], rows
    assert sorted(read) == sorted(f"{p}-{i}" for p in range(3) for i in range(4))
