"""The two failure scenarios of KIP-101 (leader epochs instead of the high watermark for
truncation), reproduced with real processes on a two-replica partition:

1. A follower restarts (its high watermark checkpoint may be stale) and, before it has fetched
   again, the leader dies: the follower becomes leader. Truncating to the stale high watermark
   would lose committed records.
2. Leader and follower both go down with different tails; the follower comes back as leader,
   takes new writes at the offsets of the old leader's unreplicated tail, and the old leader
   follows it. Without epochs the replicas would silently diverge.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import NewTopic

from tests.cluster.checker import AckedProducer, check_no_loss
from tests.cluster.harness import Cluster
from tests.consume import read
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]


def _two_replica_topic(cluster: Cluster, name: str, replicas: tuple[int, int] = (1, 2)) -> None:
    admin = cluster.admin()
    topic = NewTopic(
        name,
        num_partitions=1,
        replica_assignment=[list(replicas)],
        config={"min.insync.replicas": "1"},
    )
    admin.create_topics([topic])[name].result(20)
    cluster.wait_for_leaders(name, 1)
    assert cluster.leader(name) == replicas[0]


def _acked_batch(bootstrap: str, topic: str, count: int) -> dict[tuple[int, int], bytes]:
    producer = AckedProducer(bootstrap, topic, 1)
    producer.produce(count)
    producer.stop()
    assert producer.acked_count() == count, producer.errors[:3]
    return producer.acked


def test_follower_restart_then_leader_death_loses_nothing(cluster: Cluster) -> None:
    _two_replica_topic(cluster, "kip101a")
    acked = _acked_batch(cluster.bootstrap, "kip101a", 300)
    cluster.wait_for_isr("kip101a", 0, [1, 2])
    # Follower 2 restarts (truncating by epoch, not by its stale high watermark); as soon as it
    # is back in the ISR, leader 1 dies. It must be back in the ISR first: the controller took
    # it out when its registration went, as Kafka's does, and only an in-sync replica may lead.
    before = cluster.state("kip101a")["zk_version"]
    cluster.brokers[2].kill()
    cluster.brokers[2].start()
    cluster.brokers[2].wait_ready()
    # The shrink comes when the new process replaces the killed one's registration (the
    # controller takes a restarted follower out of the ISR): wait for it and for the expansion
    # that follows, not for the ISR as it was before.
    wait_until(
        lambda: (
            (s := cluster.state("kip101a"))["zk_version"] >= before + 2
            and sorted(s["isr"]) == [1, 2]
        ),
        30,
        what="broker 2 out of the ISR and back in",
    )
    cluster.brokers[1].kill()
    wait_until(lambda: cluster.leader("kip101a") == 2, 30, what="broker 2 to lead")
    acked.update(_acked_batch(cluster.brokers[2].bootstrap, "kip101a", 50))
    check_no_loss(acked, read(cluster.brokers[2].bootstrap, "kip101a", 1))
    cluster.brokers[1].start()
    cluster.brokers[1].wait_ready()
    cluster.wait_for_isr("kip101a", 0, [1, 2], timeout=30)
    wait_until(lambda: cluster.verify_replicas("kip101a").returncode == 0, 30, what="identical")


def test_replicas_restarting_with_different_tails_converge(
    cluster_factory: Callable[..., Cluster],
) -> None:
    # A lag limit well above the few seconds of the setup keeps the follower in the ISR.
    cluster = cluster_factory(**{"replica.lag.time.max.ms": "8000"})
    # The replicas are the two brokers that are not the controller, which must keep acting
    # while they are paused and killed.
    old, new = sorted({1, 2, 3} - {cluster.controller()})
    _two_replica_topic(cluster, "kip101b", (old, new))
    acked = _acked_batch(cluster.bootstrap, "kip101b", 200)
    cluster.wait_for_isr("kip101b", 0, [old, new])
    # The follower stops fetching; the leader takes a tail (acks=1) the follower never reads.
    cluster.brokers[new].pause()
    leader_only = Producer({"bootstrap.servers": cluster.brokers[old].bootstrap, "acks": "1"})
    for i in range(20):
        leader_only.produce("kip101b", value=f"old-tail-{i}".encode(), partition=0)
    assert leader_only.flush(10) == 0
    # The leader goes down and comes back at once: the controller moves the leadership to the
    # paused follower, still in the ISR. Then the follower goes down too, before it has read
    # anything (a fetch answer with the tail may wait in its socket), and comes back: the only
    # replica left in the ISR, it leads again under a new epoch and takes new writes at the
    # offsets where the old leader holds its tail.
    cluster.brokers[old].kill()
    cluster.brokers[old].start()
    wait_until(lambda: cluster.state("kip101b")["leader"] == new, 20, what="a new leader")
    epoch = cluster.state("kip101b")["leader_epoch"]
    cluster.brokers[new].kill()
    cluster.brokers[new].start()
    cluster.brokers[new].wait_ready()
    cluster.brokers[old].wait_ready()
    wait_until(
        lambda: (s := cluster.state("kip101b"))["leader"] == new and s["leader_epoch"] > epoch,
        40,
        what=f"broker {new} to lead again",
    )
    acked.update(_acked_batch(cluster.brokers[new].bootstrap, "kip101b", 50))
    cluster.wait_for_isr("kip101b", 0, [old, new], timeout=40)
    # The reader takes its metadata from any broker, the restarted ones included.
    wait_until(
        lambda: all(
            cluster.partition("kip101b", 0, b.bootstrap).leader == new
            for b in cluster.brokers.values()
        ),
        30,
        what=f"every broker to report leader {new}",
    )
    records = read(cluster.bootstrap, "kip101b", 1)
    check_no_loss(acked, records)
    # The old tail was never committed: the old leader truncated it rather than diverge.
    assert not any(m.value().startswith(b"old-tail-") for m in records[0])
    wait_until(lambda: cluster.verify_replicas("kip101b").returncode == 0, 30, what="identical")
