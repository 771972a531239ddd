"""Share groups in cluster mode: the group's coordinator (a `__consumer_offsets` leader) has the
state of its share-partitions created by their share coordinators (`__share_group_state`
leaders, mostly on other brokers), and after the group coordinator's broker is SIGKILLed the
new coordinator serves the group, its assignments and its offsets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Producer
from ferrolog.client.connection import Connection
from ferrolog.controller.coordinator.group.coordinator import partition_for
from ferrolog.protocol.messages import Apis

from tests.cluster.harness import Cluster
from tests.groups.share_tools import (
    ACCEPT,
    SHARE_SETTINGS,
    Member,
    acquired,
    assigned,
    connect,
    earliest,
    fetch_until_acquired,
    heartbeat,
    member_id,
    partition_codes,
    share_key,
    topic_id,
)
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]

GROUP = "share-cluster"
SETTINGS = {
    **SHARE_SETTINGS,
    "offsets.topic.replication.factor": "3",
    "share.coordinator.state.topic.num.partitions": "6",
    "share.coordinator.state.topic.replication.factor": "3",
    "share.coordinator.state.topic.min.isr": "2",
    # Members of this test heartbeat while brokers die: sessions long enough for that.
    "group.share.session.timeout.ms": "20000",
    "group.share.min.session.timeout.ms": "1000",
}


def _find(cluster: Cluster, key: str, key_type: int = 0) -> str:
    """host:port of the coordinator of `key`, once one answers."""

    def found() -> Any:
        with_any = connect(cluster.live_bootstrap().split(",")[0])
        try:
            body: Any = {"key_type": key_type, "coordinator_keys": [key]}
            (answer,) = with_any.request(Apis.FIND_COORDINATOR, 6, body)["coordinators"]
        finally:
            with_any.close()
        return answer if answer["error_code"] == 0 else None

    answer = wait_until(found, 60, what=f"the coordinator of {key}")
    return f"{answer['host']}:{answer['port']}"


def _coordinator(cluster: Cluster, key: str, key_type: int = 0) -> Connection:
    return connect(_find(cluster, key, key_type))


def _heartbeats(cluster: Cluster, members: dict[str, int], topic: str) -> dict[str, Any]:
    """One heartbeat of each member (joining those at epoch 0) through the group's current
    coordinator; returns the responses, and keeps each member's epoch."""
    conn = _coordinator(cluster, GROUP)
    try:
        out = {}
        for member, epoch in members.items():
            topics = [topic] if epoch == 0 else None
            response = heartbeat(conn, GROUP, member, epoch, topics)
            if response["error_code"] == 0:
                members[member] = response["member_epoch"]
            out[member] = response
        return out
    finally:
        conn.close()


def test_share_state_on_other_brokers_and_a_coordinator_failover(
    cluster_factory: Callable[..., Cluster],
) -> None:
    cluster = cluster_factory(3, **SETTINGS)
    cluster.create_topic("work", 6, 3)
    members = {member_id(): 0, member_id(): 0}
    partitions: dict[str, set[int]] = {m: set() for m in members}

    def settled() -> bool:
        for member, response in _heartbeats(cluster, members, "work").items():
            got = assigned(response)
            if got is not None:
                partitions[member] = {p for ps in got.values() for p in ps}
        return sorted(p for ps in partitions.values() for p in ps) == list(range(6)) and all(
            len(ps) == 3 for ps in partitions.values()
        )

    wait_until(settled, 60, step=0.3, what="the six partitions split between two members")
    # Each share-partition's state is at its own share coordinator.
    conn = _coordinator(cluster, GROUP)
    tid = topic_id(conn, "work")
    conn.close()
    summary: Any = {"group_id": GROUP, "topics": [{"topic_id": tid, "partitions": []}]}
    coordinators = set()
    for p in range(6):
        address = _find(cluster, share_key(GROUP, tid, p), key_type=2)
        coordinators.add(address)
        at = connect(address)
        summary["topics"][0]["partitions"] = [{"partition": p, "leader_epoch": 0}]
        (result,) = at.request(Apis.READ_SHARE_GROUP_STATE_SUMMARY, 1, summary)["results"]
        at.close()
        (answer,) = result["partitions"]
        assert answer["error_code"] == 0, answer
        assert answer["state_epoch"] > 0  # initialized, at the group's epoch then
    assert len(coordinators) > 1, "every share-partition on one broker: nothing crossed"
    # The group coordinator's broker dies; the next one loads the group from the log.
    offsets_partition = partition_for(GROUP, int(SETTINGS["offsets.topic.num.partitions"]))
    victim = cluster.leader("__consumer_offsets", offsets_partition)
    cluster.brokers[victim].kill()
    cluster.wait_for_leaders("__consumer_offsets", 4)
    before = {m: set(ps) for m, ps in partitions.items()}
    epochs = dict(members)

    def resumed() -> bool:
        responses = _heartbeats(cluster, members, "work")
        return all(r["error_code"] == 0 for r in responses.values())

    wait_until(resumed, 60, step=0.3, what="the members back at the new coordinator")
    assert members == epochs  # no new epoch: nothing about the group changed
    assert partitions == before
    conn = _coordinator(cluster, GROUP)
    try:
        body: Any = {"groups": [{"group_id": GROUP, "topics": None}]}
        (group,) = conn.request(Apis.DESCRIBE_SHARE_GROUP_OFFSETS, 1, body)["groups"]
    finally:
        conn.close()
    assert group["error_code"] == 0, group
    (topic,) = group["topics"]
    assert sorted(p["partition_index"] for p in topic["partitions"]) == list(range(6))
    # Nobody read yet: no start offset, as Kafka reports it.
    assert {p["start_offset"] for p in topic["partitions"]} == {-1}


def test_a_restarted_leader_loses_no_acknowledgement(
    cluster_factory: Callable[..., Cluster],
) -> None:
    """A member accepts half of what it acquired from a partition's leader; the leader is
    SIGKILLed and started again. The next leader redelivers the other half (delivery count 2),
    never the accepted half: acknowledgements are in the share coordinators' log, replicated,
    before they are answered."""
    cluster = cluster_factory(3, **SETTINGS)
    cluster.create_topic("jobs", 1, 3)
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "linger.ms": 50})
    for i in range(100):
        producer.produce("jobs", f"v{i}".encode(), partition=0)
    assert producer.flush(30) == 0
    group = "share-restart"
    earliest(cluster.live_bootstrap(), group)
    leader_id = cluster.leader("jobs", 0)
    coordinator = _coordinator(cluster, group)
    leader = connect(cluster.brokers[leader_id].bootstrap)
    member = Member(coordinator, group, "jobs", leader)
    member.join()
    assert acquired(fetch_until_acquired(member)) == [(0, 99, 1)]
    assert partition_codes(member.acknowledge([(0, 49, [ACCEPT])])) == [0]
    leader.close()
    coordinator.close()
    cluster.brokers[leader_id].kill()
    cluster.wait_for_leaders("jobs", 1)
    cluster.brokers[leader_id].start()
    cluster.brokers[leader_id].wait_ready()

    def again() -> list[tuple[int, int, int]] | None:
        coordinator = _coordinator(cluster, group)
        at = connect(cluster.brokers[cluster.leader("jobs", 0)].bootstrap)
        try:
            other = Member(coordinator, group, "jobs", at)
            other.join()
            answer = other.fetch()
            return acquired(answer) or None
        finally:
            at.close()
            coordinator.close()

    assert wait_until(again, 90, step=0.5, what="the in-flight half again") == [(50, 99, 2)]
