"""`unclean.leader.election.enable`: off (the default), a partition whose whole ISR is gone
stays offline rather than lose data; on, it comes back with an out-of-sync replica as leader,
losing what only the ISR had (as documented), and the replicas converge on the new leader.
An ElectLeaders request of the unclean type (KIP-460) does the same for one partition on
demand."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import ElectionType, KafkaError, TopicPartition
from confluent_kafka.admin import NewTopic

from tests.cluster.checker import AckedProducer, check_no_loss
from tests.cluster.harness import Cluster
from tests.consume import read
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]


def _isr_of_one(cluster: Cluster, name: str, unclean: bool) -> dict[tuple[int, int], bytes]:
    """Topic `[1, 2]`; 2 dies and leaves the ISR; records acknowledged by 1 alone; then 1
    dies too. Returns the records only 1 had."""
    configs = {"min.insync.replicas": "1", "unclean.leader.election.enable": str(unclean).lower()}
    admin = cluster.admin()
    topic = NewTopic(name, num_partitions=1, replica_assignment=[[1, 2]], config=configs)
    admin.create_topics([topic])[name].result(20)
    cluster.wait_for_leaders(name, 1)
    before = AckedProducer(cluster.bootstrap, name, 1)
    before.produce(100)
    before.stop()
    cluster.wait_for_isr(name, 0, [1, 2])
    cluster.brokers[2].kill()
    cluster.wait_for_isr(name, 0, [1], timeout=30)
    only_on_1 = AckedProducer(cluster.brokers[1].bootstrap, name, 1, tag="only-on-1")
    only_on_1.produce(50)
    only_on_1.stop()
    assert only_on_1.acked_count() == 50
    cluster.brokers[1].kill()
    wait_until(lambda: cluster.leader(name) == -1, 30, what="the partition to go offline")
    cluster.brokers[2].start()
    cluster.brokers[2].wait_ready()
    cluster.wait_for_brokers({2, 3})
    return {**before.acked, **only_on_1.acked}


def test_unclean_off_keeps_the_partition_offline(cluster: Cluster) -> None:
    acked = _isr_of_one(cluster, "clean", unclean=False)
    # Time, not a condition: the partition must stay offline through several controller
    # passes with 2 alive but out of sync; nothing happens that a wait could see.
    time.sleep(3)
    assert cluster.leader("clean") == -1
    # KIP-966 (as Kafka 4.4 formats a new cluster): the ISR empties, its last member is
    # eligible and is the last known leader.
    state = cluster.state("clean")
    assert (state["isr"], state["eligible_leader_replicas"], state["last_known_elr"]) == (
        [],
        [1],
        [1],
    )
    cluster.brokers[1].start()
    cluster.brokers[1].wait_ready()
    wait_until(lambda: cluster.leader("clean") == 1, 30, what="1 to lead again")
    check_no_loss(acked, read(cluster.bootstrap, "clean", 1))
    cluster.wait_for_isr("clean", 0, [1, 2], timeout=30)
    wait_until(lambda: cluster.verify_replicas("clean").returncode == 0, 30, what="identical")


def _converges_on_2(cluster: Cluster, name: str, acked: dict[tuple[int, int], bytes]) -> None:
    """With 2 leading uncleanly: it takes writes, 1 returns and truncates to it. What 2 had is
    kept, and what it took afterwards; the records only 1 had are gone."""
    after = AckedProducer(cluster.brokers[2].bootstrap, name, 1, tag="after")
    after.produce(20)
    after.stop()
    cluster.brokers[1].start()
    cluster.brokers[1].wait_ready()
    cluster.wait_for_isr(name, 0, [1, 2], timeout=30)
    records = read(cluster.bootstrap, name, 1)
    check_no_loss(after.acked, records)
    values = {m.value() for m in records[0]}
    assert not any(v.startswith(b"only-on-1-") for v in values)
    assert all(v in values for v in acked.values() if v.startswith(b"v-"))
    wait_until(lambda: cluster.verify_replicas(name).returncode == 0, 30, what="identical")


def test_unclean_on_elects_an_out_of_sync_replica(cluster: Cluster) -> None:
    acked = _isr_of_one(cluster, "unclean", unclean=True)
    wait_until(lambda: cluster.leader("unclean") == 2, 30, what="2 to lead uncleanly")
    assert cluster.state("unclean")["isr"] == [2]
    _converges_on_2(cluster, "unclean", acked)


def test_elect_leaders_unclean_brings_an_offline_partition_back(cluster: Cluster) -> None:
    acked = _isr_of_one(cluster, "asked", unclean=False)
    assert cluster.leader("asked") == -1
    tp = TopicPartition("asked", 0)
    admin = cluster.admin()
    preferred = admin.elect_leaders(ElectionType.PREFERRED, [tp]).result(30)[tp]
    assert preferred is not None
    assert preferred.code() == KafkaError.PREFERRED_LEADER_NOT_AVAILABLE
    assert admin.elect_leaders(ElectionType.UNCLEAN, [tp]).result(30)[tp] is None
    assert (cluster.state("asked")["leader"], cluster.state("asked")["isr"]) == (2, [2])
    wait_until(lambda: cluster.leader("asked") == 2, 10, what="Metadata to name 2")
    again = admin.elect_leaders(ElectionType.UNCLEAN, [tp]).result(30)[tp]
    assert again is not None
    assert again.code() == KafkaError.ELECTION_NOT_NEEDED
    _converges_on_2(cluster, "asked", acked)
