"""Followers of many partitions replicate in fetch sessions (KIP-227) and stay in sync through
leader kills: three brokers (real ZooKeeper), 100 partitions with replication factor 3, an
acks=all producer over all of them while the leader of partition 0 is SIGKILLed and
restarted twice. No acknowledged record is lost, the replicas end identical, and the spies in
front of the brokers show the followers' fetches: sessions opened by full fetches, then
incremental fetches naming few partitions, and new sessions with the restarted broker."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import KafkaException

from bench.harness.fetch_spy import FetchExchange, FetchSpy
from tests.cluster.checker import AckedProducer, check_no_loss
from tests.cluster.harness import Cluster, ZooKeeper
from tests.consume import read
from tests.waiting import wait_until

# Creating the partitions and restarting a broker that hosts them take most of a minute each
# on a loaded two-core machine (issue 9's scale work); the checks themselves take seconds.
pytestmark = [pytest.mark.native, pytest.mark.slow, pytest.mark.timeout(600)]

TOPIC = "spread"
PARTITIONS = 100
ROUNDS = 2


@pytest.fixture
def spied(
    zookeeper: ZooKeeper, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[Cluster, dict[int, FetchSpy]]]:
    """A cluster whose brokers advertise (and so are fetched from) through spies."""
    cluster = Cluster(zookeeper, tmp_path / "cluster", 3)
    spies = {}
    for node_id, broker in cluster.brokers.items():
        spies[node_id] = FetchSpy(broker.port)
        broker.overrides["advertised.listeners"] = f"PLAINTEXT://{spies[node_id].address}"
    try:
        yield cluster.start(), spies
        report = getattr(request.node, "rep_call", None)  # set by tests/cluster/conftest.py
        if report is not None and report.failed:
            for broker in cluster.brokers.values():
                print(f"--- broker {broker.node_id} log tail ---\n{broker.log_tail(60)}")
    finally:
        cluster.stop()
        for spy in spies.values():
            spy.close()


def _all_in_sync(cluster: Cluster) -> bool:
    try:
        md = cluster.metadata()
    except KafkaException:  # a broker still starting up may not answer in time
        return False
    topic = md.topics.get(TOPIC)
    if topic is None or len(topic.partitions) != PARTITIONS:
        return False
    return all(sorted(p.isrs) == [1, 2, 3] for p in topic.partitions.values())


def _follower_fetches(spies: dict[int, FetchSpy]) -> dict[int, list[FetchExchange]]:
    """Each leader's follower fetches, in the order it answered them."""
    return {n: [e for e in s.exchanges() if e.replica_id >= 0] for n, s in spies.items()}


def test_followers_stay_in_sync_in_fetch_sessions_through_leader_kills(
    spied: tuple[Cluster, dict[int, FetchSpy]],
) -> None:
    cluster, spies = spied
    cluster.create_topic(TOPIC, PARTITIONS, 3, **{"min.insync.replicas": "2"})
    producer = AckedProducer(cluster.bootstrap, TOPIC, PARTITIONS).start()
    restarted = []
    try:
        producer.wait_acked(2 * PARTITIONS)
        for _ in range(ROUNDS):
            victim = cluster.leader(TOPIC, 0)
            cluster.brokers[victim].kill()
            wait_until(
                lambda v=victim: cluster.leader(TOPIC, 0) not in (v, -1),  # type: ignore[misc]
                30,
                what="a new leader for partition 0",
            )
            producer.wait_acked(PARTITIONS)
            spies[victim].clear()
            cluster.brokers[victim].start()
            cluster.brokers[victim].wait_ready()
            restarted.append(victim)
            wait_until(lambda: _all_in_sync(cluster), 180, what="every ISR back to three")
            producer.wait_acked(PARTITIONS)
    finally:
        producer.stop()
    assert not producer.errors, producer.errors[:3]
    check_no_loss(producer.acked, read(cluster.bootstrap, TOPIC, PARTITIONS))
    result = wait_until(
        lambda: (r := cluster.verify_replicas(TOPIC)).returncode == 0 and r,
        timeout=60,
        what="identical replicas",
    )
    assert "replicas identical" in result.stdout

    history = _follower_fetches(spies)
    for leader, seen in history.items():
        opened = [f for f in seen if f.session_epoch == 0 and f.response_session_id != 0]
        incremental = [f for f in seen if f.session_epoch > 0]
        assert opened, f"no follower opened a session with broker {leader}"
        assert len(incremental) > 10 * len(opened), (leader, len(opened), len(incremental))
        assert all(f.error_code == 0 for f in incremental)
    # the restarted broker lost its sessions: its followers opened new ones with full fetches
    assert any(f.session_epoch == 0 and f.response_session_id != 0 for f in history[restarted[-1]])

    # all caught up: every follower fetch is an empty incremental one, answered with nothing
    for spy in spies.values():
        spy.clear()
    wait_until(
        lambda: all(len(f) >= 5 for f in _follower_fetches(spies).values()),
        30,
        what="idle follower fetches",
    )
    for leader, seen in _follower_fetches(spies).items():
        shapes = {(f.session_epoch > 0, f.partitions_asked, f.partitions_answered) for f in seen}
        assert shapes == {(True, 0, 0)}, (leader, shapes)
        assert max(f.response_bytes for f in seen) <= 32
