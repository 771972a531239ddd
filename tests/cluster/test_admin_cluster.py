"""Leadership moves on request: controlled shutdown on SIGTERM, preferred-leader election
(ElectLeaders through confluent-kafka) and partition reassignment
(AlterPartitionReassignments / ListPartitionReassignments through kafka-python)."""

from __future__ import annotations

import signal
from collections.abc import Callable

import pytest
from confluent_kafka import ElectionType
from confluent_kafka import TopicPartition as CTopicPartition
from confluent_kafka.admin import NewTopic
from kafka import KafkaAdminClient
from kafka import TopicPartition as KTopicPartition

from tests.cluster.checker import AckedProducer, check_no_loss
from tests.cluster.harness import Cluster
from tests.consume import read
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]


def test_sigterm_moves_leadership_away_then_preferred_election_brings_it_back(
    cluster: Cluster,
) -> None:
    cluster.create_topic("cs", 3, 3, **{"min.insync.replicas": "2"})
    victim = cluster.leader("cs", 0)
    producer = AckedProducer(cluster.bootstrap, "cs", 3).start()
    try:
        producer.wait_acked(100)
        assert cluster.brokers[victim].terminate(timeout=30) == 0
        assert "controlled shutdown: leaderships moved" in cluster.brokers[victim].log_tail(80)
        # Moved before the broker went: no partition is offline or still names it.
        for p in range(3):
            assert cluster.leader("cs", p) not in (victim, -1)
        producer.wait_acked(100)
        cluster.brokers[victim].start()
        cluster.brokers[victim].wait_ready()
        for p in range(3):
            cluster.wait_for_isr("cs", p, [1, 2, 3])
        assert cluster.leader("cs", 0) != victim
        admin = cluster.admin()
        future = admin.elect_leaders(ElectionType.PREFERRED, [CTopicPartition("cs", 0)])
        result = future.result(30)
        assert result[CTopicPartition("cs", 0)] is None
        # Written before the answer; other brokers' Metadata follows, as in Kafka, a moment
        # later (each reads the new state from its own watch).
        wait_until(lambda: cluster.leader("cs", 0) == victim, 10, what="the new leader")
        # Already led by its preferred replica: nothing to do (ELECTION_NOT_NEEDED).
        again = admin.elect_leaders(ElectionType.PREFERRED, [CTopicPartition("cs", 0)])
        assert again.result(30)[CTopicPartition("cs", 0)] is not None
        producer.wait_acked(100)
    finally:
        producer.stop()
    check_no_loss(producer.acked, read(cluster.bootstrap, "cs", 3))


def test_reassignment_moves_a_partition_to_other_brokers(
    cluster_factory: Callable[..., Cluster],
) -> None:
    cluster: Cluster = cluster_factory(size=4)
    admin = cluster.admin()
    topic = NewTopic("moving", num_partitions=1, replica_assignment=[[1, 2, 3]])
    admin.create_topics([topic])["moving"].result(20)
    cluster.wait_for_leaders("moving", 1)
    producer = AckedProducer(cluster.bootstrap, "moving", 1).start()
    kadmin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap)
    try:
        producer.wait_acked(200)
        tp = KTopicPartition("moving", 0)
        errors = kadmin.alter_partition_reassignments({tp: [4, 2, 3]})
        assert errors.get(tp) is None
        wait_until(
            lambda: sorted(cluster.partition("moving").replicas) == [2, 3, 4],
            timeout=40,
            what="the partition to move to [4, 2, 3]",
        )
        cluster.wait_for_isr("moving", 0, [2, 3, 4])
        assert cluster.leader("moving") in (2, 3, 4)
        wait_until(
            lambda: kadmin.list_partition_reassignments() == {},
            timeout=20,
            what="no reassignment pending",
        )
        producer.wait_acked(100)
    finally:
        kadmin.close()
        producer.stop()
    check_no_loss(producer.acked, read(cluster.bootstrap, "moving", 1))
    wait_until(lambda: cluster.verify_replicas("moving").returncode == 0, 30, what="identical")


def test_whole_cluster_sigterm_does_not_wait_for_impossible_moves(cluster: Cluster) -> None:
    """Every broker stopping at once: no replica can take a leadership (the controller never
    elects a broker that is shutting down), so controlled shutdown must not wait out its
    timeout. Each broker still stops cleanly (exit 0)."""
    cluster.create_topic("all-stop", 3, 3)
    brokers = list(cluster.brokers.values())
    for broker in brokers:
        broker.signal(signal.SIGTERM)
    # Well under controlled.shutdown.timeout.ms (30 s by default), which is what a broker
    # waiting for a move that cannot happen would take.
    codes = []
    for broker in brokers:
        assert broker.proc is not None
        codes.append(broker.proc.wait(20))
        broker.proc = None
    assert codes == [0, 0, 0]
    for broker in brokers:
        assert "controlled shutdown timed out" not in broker.log_tail(80)
