"""Three brokers and a real ZooKeeper: registration, controller election, topic creation
spread across brokers, and Metadata that agrees on every broker."""

from __future__ import annotations

import json
import socket
import struct
from collections import Counter

import ferrolog_native
import pytest
from ferrolog.protocol import decode_response, encode_request

from tests.cluster.harness import Cluster
from tests.waiting import wait_until

pytestmark = pytest.mark.native

NOT_LEADER_OR_FOLLOWER = 6


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


def _raw_produce(host_port: str, topic: str) -> int:
    """One Produce v8 request straight to a broker; returns the partition's error code."""
    host, port = host_port.split(":")
    batch = ferrolog_native.build_batch([(None, b"stale", [], 1000)])
    body = {
        "transactional_id": None,
        "acks": -1,
        "timeout_ms": 5000,
        "topic_data": [{"name": topic, "partition_data": [{"index": 0, "records": batch}]}],
    }
    frame = encode_request(0, 8, 1, "stale-client", body)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", _recv(sock, 4))[0]
        _, response = decode_response(0, 8, _recv(sock, size))
    return int(response["responses"][0]["partition_responses"][0]["error_code"])


def _recv(sock: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        assert chunk, "connection closed"
        out += chunk
    return out


def test_a_follower_answers_not_leader_or_follower(cluster: Cluster) -> None:
    cluster.create_topic("stale", 1, 3)
    leader = cluster.leader("stale")
    follower = next(b for b in (1, 2, 3) if b != leader)
    # Metadata shows the store; the leader's native core takes the role a moment later.
    wait_until(lambda: _raw_produce(cluster.brokers[leader].bootstrap, "stale") == 0, 20)
    assert _raw_produce(cluster.brokers[follower].bootstrap, "stale") == NOT_LEADER_OR_FOLLOWER


def test_a_paused_controller_is_fenced_when_it_resumes(cluster: Cluster) -> None:
    cluster.create_topic("ctl", 3, 3)
    old = cluster.controller()
    cluster.brokers[old].pause()
    try:
        new = wait_until(
            lambda: (c := cluster.controller()) not in (old, -1) and c, 30, what="a new controller"
        )
        # The new controller runs an election while the old one sleeps.
        victim = next(b for b in (1, 2, 3) if b not in (old, new))
        cluster.brokers[victim].kill()
        wait_until(
            lambda: all(cluster.leader("ctl", p) == new for p in range(3)),
            30,
            what="the new controller to move leaderships to itself",
        )
        epoch = _controller_epoch(cluster)
    finally:
        cluster.brokers[old].resume()
    # The old controller wakes with a stale view; whatever it tries is fenced, and it learns
    # that it is no longer the controller.
    wait_until(
        lambda: (
            "no longer controller" in cluster.brokers[old].log_tail(200)
            or "controller fenced" in cluster.brokers[old].log_tail(200)
        ),
        30,
        what="the old controller to stand down",
    )
    assert cluster.controller() == new
    assert _controller_epoch(cluster) == epoch
    for p in range(3):
        assert cluster.state("ctl", p)["controller_epoch"] <= epoch
        assert cluster.leader("ctl", p) == new
