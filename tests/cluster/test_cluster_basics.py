"""Three brokers and a real ZooKeeper: registration, controller election, topic creation
spread across brokers, and Metadata that agrees on every broker."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.cluster.harness import Cluster, wait_until

pytestmark = pytest.mark.native


def test_brokers_register_and_one_controller_is_elected(cluster: Cluster) -> None:
    zk = cluster.zk_client()
    try:
        assert sorted(zk.get_children("/brokers/ids")) == ["1", "2", "3"]
        controller = json.loads(zk.get("/controller")[0])["brokerid"]
        epoch = int(zk.get("/controller_epoch")[0])
        registration = json.loads(zk.get("/brokers/ids/2")[0])
        assert zk.exists("/cluster/id") is not None
    finally:
        zk.stop()
        zk.close()
    assert controller in (1, 2, 3)
    assert epoch >= 1
    assert registration["port"] == cluster.brokers[2].port
    for broker in cluster.brokers.values():
        md = cluster.metadata(broker.bootstrap)
        assert md.controller_id == controller
        assert sorted(md.brokers) == [1, 2, 3]


def test_topic_with_rf3_is_spread_and_every_broker_reports_it(cluster: Cluster) -> None:
    cluster.create_topic("spread", partitions=6, replication=3)
    leaders = Counter()
    for broker in cluster.brokers.values():
        md = cluster.metadata(broker.bootstrap)
        topic = md.topics["spread"]
        assert sorted(topic.partitions) == list(range(6))
        for p in topic.partitions.values():
            assert sorted(p.replicas) == [1, 2, 3]
            assert p.leader == p.replicas[0]
            assert sorted(p.isrs) == [1, 2, 3]
            leaders[p.leader] += 1
    # Round-robin from a random start: each broker leads two of six partitions.
    assert sorted(leaders.values()) == [6, 6, 6]
    state = cluster.state("spread", 0)
    assert state["leader_epoch"] == 0
    assert sorted(state["isr"]) == [1, 2, 3]


def test_controller_failover_elects_another_broker(cluster: Cluster) -> None:
    first = cluster.controller()
    epoch_before = _controller_epoch(cluster)
    cluster.brokers[first].kill()
    survivors = {b for b in cluster.brokers if b != first}
    second = wait_until(
        lambda: (c := cluster.controller()) in survivors and c,
        timeout=30,
        what="a new controller",
    )
    assert second != first
    assert _controller_epoch(cluster) > epoch_before
    # The new controller can still create topics.
    cluster.create_topic("after-failover", partitions=2, replication=2)
    cluster.brokers[first].start()
    cluster.brokers[first].wait_ready()
    cluster.wait_for_brokers({1, 2, 3})
    assert cluster.controller() == second


def _controller_epoch(cluster: Cluster) -> int:
    zk = cluster.zk_client()
    try:
        return int(zk.get("/controller_epoch")[0])
    finally:
        zk.stop()
        zk.close()
