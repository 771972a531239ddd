"""Hard bounces while producing with acks=all (RF 3, min.insync.replicas=2): SIGKILL of a
partition leader, again and again, then the same for the controller. No acknowledged record may be
lost, consumers read every one at its offset from the new leaders, and the replicas end up
byte-identical. Each on a plaintext cluster and on one whose only listener, SASL_SSL, is also
the inter-broker listener (SCRAM-SHA-512 between brokers, PLAIN for the clients), so
replication and the controller's requests to the brokers go over it (and `ferrolog
verify-replicas` reads the replicas over it too, with the cluster's `--command-config`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.cluster.checker import (
    AckedProducer,
    TailingConsumer,
    check_continuous,
    check_no_loss,
)
from tests.cluster.harness import Cluster
from tests.consume import read
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]

PARTITIONS = 3
# Five bounces on plaintext; two on SASL_SSL, which adds what security changes (the fetchers'
# and the controller's SASL_SSL connections re-established to a restarted broker and to a new
# leader) and repeats the rest at one ZooKeeper session timeout per bounce.
ROUNDS = {"PLAINTEXT": 5, "SASL_SSL": 2}


def hard_bounces(cluster: Cluster, victim: Callable[[], int], rounds: int) -> None:
    """`rounds` SIGKILLs of `victim()` while producing; the clients connect with the
    cluster's `client_config` (a secured cluster's)."""
    client = cluster.client_config
    cluster.create_topic("orders", PARTITIONS, 3, **{"min.insync.replicas": "2"})
    producer = AckedProducer(cluster.bootstrap, "orders", PARTITIONS, client=client).start()
    tail = TailingConsumer(cluster.bootstrap, "orders", PARTITIONS, client=client).start()
    try:
        producer.wait_acked(200)
        for _ in range(rounds):
            node = victim()
            epochs = [cluster.state("orders", p)["leader_epoch"] for p in range(PARTITIONS)]
            cluster.brokers[node].kill()
            # The survivors take over and keep acknowledging (two of three: min.insync holds).
            wait_until(
                lambda node=node: all(  # type: ignore[misc]
                    cluster.leader("orders", p) not in (node, -1) for p in range(PARTITIONS)
                ),
                timeout=30,
                what="leaders away from the killed broker",
            )
            producer.wait_acked(100)
            cluster.brokers[node].start()
            cluster.brokers[node].wait_ready()
            cluster.wait_for_brokers({1, 2, 3})
            for p in range(PARTITIONS):
                cluster.wait_for_isr("orders", p, [1, 2, 3])
            producer.wait_acked(100)
            moved = [cluster.state("orders", p)["leader_epoch"] for p in range(PARTITIONS)]
            assert any(after > before for before, after in zip(epochs, moved, strict=True))
        producer.stop()
        last = {
            p: max((o for q, o in producer.acked if q == p), default=-1) for p in range(PARTITIONS)
        }
        wait_until(
            lambda: all(
                (tail.records[p][-1][0] if tail.records[p] else -1) >= last[p]
                for p in range(PARTITIONS)
            ),
            60,
            what="the consumer to read every acknowledged record",
        )
    finally:
        producer.stop()
        tail.stop()
    assert producer.acked_count() >= 200 + rounds * 200
    check_continuous(tail.records, producer.acked)
    check_no_loss(producer.acked, read(cluster.bootstrap, "orders", PARTITIONS, config=client))
    result = wait_until(
        lambda: (r := cluster.verify_replicas("orders")).returncode == 0 and r,
        timeout=30,
        what="identical replicas",
    )
    assert "replicas identical" in result.stdout


@pytest.fixture(params=["PLAINTEXT", "SASL_SSL"])
def secured(
    request: pytest.FixtureRequest, cluster_factory: Callable[..., Cluster]
) -> tuple[Cluster, int]:
    security = ("SASL_SSL", "SCRAM-SHA-512") if request.param == "SASL_SSL" else None
    return cluster_factory(security=security), ROUNDS[request.param]


def test_sigkill_of_partition_leader_again_and_again(secured: tuple[Cluster, int]) -> None:
    cluster, rounds = secured
    hard_bounces(cluster, lambda: cluster.leader("orders", 0), rounds)


def test_sigkill_of_controller_again_and_again(secured: tuple[Cluster, int]) -> None:
    cluster, rounds = secured
    hard_bounces(cluster, cluster.controller, rounds)
