"""Consumer groups in cluster mode: `__consumer_offsets` is replicated (RF 3), its leaders are
the group coordinators, and when the coordinator's broker dies the group's committed offsets
are served by the new coordinator."""

from __future__ import annotations

import functools
from collections.abc import Callable

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as CTopicPartition
from ferrolog.controller.coordinator.group.coordinator import partition_for

from tests.cluster.harness import Cluster
from tests.groups.restart_scenario import resumes_after, runs, timeout
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]


def _consumer(cluster: Cluster) -> Consumer:
    return Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": "g-cluster",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 6000,
            "socket.timeout.ms": 5000,
            "topic.metadata.refresh.interval.ms": 1000,
        }
    )


def test_committed_offsets_survive_the_coordinator_broker(cluster: Cluster) -> None:
    cluster.create_topic("grp", 1, 3)
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all"})
    for i in range(40):
        producer.produce("grp", value=f"m-{i}".encode())
    assert producer.flush(20) == 0
    consumer = _consumer(cluster)
    consumer.subscribe(["grp"])
    got = []
    wait_until(
        lambda: (
            ((m := consumer.poll(0.5)) is not None and m.error() is None and got.append(m))
            or len(got) >= 20
        ),
        30,
        what="20 records",
    )
    consumer.commit(offsets=[CTopicPartition("grp", 0, 20)], asynchronous=False)
    consumer.close()
    cluster.wait_for_leaders("__consumer_offsets", 3)
    # The coordinator is the leader of the group's partition of __consumer_offsets.
    victim = cluster.leader("__consumer_offsets", partition_for("g-cluster", 3))
    cluster.brokers[victim].kill()
    cluster.wait_for_leaders("__consumer_offsets", 3)
    fresh = _consumer(cluster)
    try:
        committed = wait_until(
            lambda: (
                (c := fresh.committed([CTopicPartition("grp", 0)], timeout=5))
                and c[0].offset >= 0
                and c
            ),
            40,
            what="the committed offset from the new coordinator",
        )
        assert committed[0].offset == 20
    finally:
        fresh.close()


@pytest.mark.timeout(2 * timeout(1, 60))
def test_committed_offsets_survive_a_coordinator_failover(
    cluster_factory: Callable[..., Cluster],
) -> None:
    """Issue 35's scenario (tests/groups/restart_scenario.py) with `__consumer_offsets` at RF 3:
    the group's coordinator stops (SIGTERM: controlled shutdown), then in the next runs dies
    (SIGKILL); another broker loads the group, and the group resumes at its last acknowledged
    commit; the old coordinator comes back before the next run. FERROLOG_RESTART_RUNS=50 runs
    each 50 times."""
    cluster = cluster_factory()
    failed_over: list[int] = []

    def failover(group: str, sigkill: bool) -> str:
        # `__consumer_offsets` is created by the group's first FindCoordinator.
        cluster.wait_for_leaders("__consumer_offsets", 3)
        partition = partition_for(group, 3)
        coordinator = cluster.leader("__consumer_offsets", partition)
        victim = cluster.brokers[coordinator]
        victim.kill() if sigkill else victim.terminate()
        wait_until(
            lambda: cluster.leader("__consumer_offsets", partition) not in (-1, coordinator),
            30,
            what="a new coordinator",
        )
        failed_over.append(coordinator)
        return cluster.live_bootstrap()

    for sigkill in (False, True):
        for _ in range(runs(1)):
            resumes_after(
                cluster.bootstrap, functools.partial(failover, sigkill=sigkill), replication=3
            )
            while failed_over:
                back = cluster.brokers[failed_over.pop()]
                back.start()
                back.wait_ready()
            for partition in range(3):
                cluster.wait_for_isr("__consumer_offsets", partition, list(cluster.brokers))
