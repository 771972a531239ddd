"""Eligible leader replicas (KIP-966) in a three-broker cluster with a real ZooKeeper, as
Kafka 4.4 finalizes them for a new cluster: a topic of three replicas with
`min.insync.replicas=2` loses its brokers one by one, the last leader with them. The replicas
that left the ISR below the minimum held every acknowledged record (the leader's high
watermark stays there), so one of them may lead when it returns, where Kafka's rule before
KIP-966 keeps the partition offline until the last in-sync replica is back. A replica whose
broker stopped uncleanly is not eligible: it may have lost what it acknowledged.

Kafka 4.4.0 (a KRaft controller and three brokers), put through the first test's steps, held
the same lists at each: ISR [1] and ELR [2]; then an empty ISR, ELR [1, 2] and last known
leader 1; after the killed broker 1 registered again, ELR [2] and no leader; then broker 2
leading with an ISR of itself, and all 150 acknowledged records read back."""

from __future__ import annotations

import json
import time
from typing import Any

import click
import pytest
from click.testing import CliRunner
from confluent_kafka.admin import NewTopic
from ferrolog.cli.tools import register
from ferrolog.client.connection import Connection
from ferrolog.features import ELR_FEATURE
from kazoo.exceptions import NoNodeError

from tests.cluster.checker import AckedProducer, check_no_loss
from tests.cluster.harness import ZK_SESSION_MS, Cluster
from tests.consume import read
from tests.handlers.features_tools import SAFE_DOWNGRADE, update
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]

DESCRIBE_TOPIC_PARTITIONS = 75


def _down_to_one(cluster: Cluster, name: str) -> dict[tuple[int, int], bytes]:
    """Topic `[1, 2, 3]`, min ISR 2: records acknowledged by all three, then (3 stopped) by
    1 and 2; 2 stops too, leaving 1 alone in the ISR. Returns every acknowledged record."""
    admin = cluster.admin()
    configs = {"min.insync.replicas": "2"}
    topic = NewTopic(name, num_partitions=1, replica_assignment=[[1, 2, 3]], config=configs)
    admin.create_topics([topic])[name].result(20)
    cluster.wait_for_leaders(name, 1)
    three = AckedProducer(cluster.bootstrap, name, 1)
    three.produce(100)
    three.stop()
    cluster.wait_for_isr(name, 0, [1, 2, 3])
    cluster.brokers[3].terminate()
    cluster.wait_for_isr(name, 0, [1, 2], timeout=30)
    two = AckedProducer(cluster.brokers[1].bootstrap, name, 1, tag="two")
    two.produce(50)
    two.stop()
    assert (three.acked_count(), two.acked_count()) == (100, 50)
    cluster.brokers[2].terminate()
    cluster.wait_for_isr(name, 0, [1], timeout=30)
    return {**three.acked, **two.acked}


def _start(cluster: Cluster, *ids: int) -> None:
    for node in ids:
        cluster.brokers[node].start()
    for node in ids:
        cluster.brokers[node].wait_ready()
    cluster.wait_for_brokers({n for n, b in cluster.brokers.items() if b.running})


def _described(cluster: Cluster, node: int, name: str) -> dict[str, Any]:
    """Partition 0 of `name` as DescribeTopicPartitions v0 answers it on broker `node`."""
    broker = cluster.brokers[node]
    host, port = broker.bootstrap.rsplit(":", 1)
    body = {"topics": [{"name": name}], "response_partition_limit": 10, "cursor": None}
    with Connection(host, int(port), 10.0, "elr-test") as connection:
        answer = connection.request(DESCRIBE_TOPIC_PARTITIONS, 0, body)
    partition: dict[str, Any] = answer["topics"][0]["partitions"][0]
    return partition


def _shown_by_ferrolog_topics(cluster: Cluster, node: int, name: str) -> list[str]:
    """Partition 0's row of `ferrolog topics describe` against broker `node`: partition,
    leader, replicas, ISR, ELR, last known ELR."""

    @click.group()
    def ferrolog() -> None:
        """Stand-in for the `ferrolog` command group."""

    register(ferrolog)
    shown = CliRunner().invoke(
        ferrolog, ["topics", "describe", name, "-b", cluster.brokers[node].bootstrap]
    )
    assert shown.exit_code == 0, shown.output
    assert "Last known ELR" in shown.output, shown.output
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in shown.output.splitlines()]
    return next(row for row in rows if row and row[0] == "0")


def test_an_eligible_replica_leads_when_the_last_in_sync_one_is_gone(cluster: Cluster) -> None:
    acked = _down_to_one(cluster, "elr")
    state = cluster.state("elr")
    assert (state["isr"], state["eligible_leader_replicas"]) == ([1], [2])
    cluster.brokers[1].kill()
    _start(cluster, 3)
    wait_until(
        lambda: cluster.state("elr")["isr"] == [],
        30,
        what="the controller to empty the ISR of the dead leader",
    )
    state = cluster.state("elr")
    assert (state["leader"], state["eligible_leader_replicas"], state["last_known_elr"]) == (
        -1,
        [1, 2],
        [1],
    )

    def described() -> tuple[list[int], list[int]]:
        partition = _described(cluster, 3, "elr")
        return partition["eligible_leader_replicas"], partition["last_known_elr"]

    wait_until(lambda: described() == ([1, 2], [1]), 10, what="DescribeTopicPartitions on 3")
    assert _shown_by_ferrolog_topics(cluster, 3, "elr") == ["0", "none", "1,2,3", "", "1,2", "1"]
    # 1 was killed: it may have lost what it acknowledged, so it leaves the ELR and does not
    # lead, though it led last and 2 is not back.
    _start(cluster, 1)
    wait_until(
        lambda: cluster.state("elr")["eligible_leader_replicas"] == [2],
        30,
        what="the controller to take 1 out of the ELR",
    )
    assert cluster.state("elr")["leader"] == -1
    _start(cluster, 2)
    wait_until(lambda: cluster.leader("elr") == 2, 30, what="2 to lead, eligible")
    check_no_loss(acked, read(cluster.bootstrap, "elr", 1))
    cluster.wait_for_isr("elr", 0, [1, 2, 3], timeout=60)
    state = cluster.state("elr")
    assert "eligible_leader_replicas" not in state
    assert "last_known_elr" not in state
    wait_until(lambda: cluster.verify_replicas("elr").returncode == 0, 30, what="identical")
    # Only a process's first registration tells how the previous one stopped: after a lost
    # session, 1 registers again as a broker that did not stop at all.
    first = _registration(cluster, 1)
    assert first is not None
    assert first.get("unclean_shutdown") is True
    cluster.brokers[1].pause()
    wait_until(lambda: _registration(cluster, 1) is None, ZK_SESSION_MS / 1000 + 20, what="expiry")
    cluster.brokers[1].resume()
    again = wait_until(lambda: _registration(cluster, 1), 30, what="1 to register again")
    assert "unclean_shutdown" not in again


def _registration(cluster: Cluster, node: int) -> dict[str, Any] | None:
    """Broker `node`'s registration znode, None while it has none."""
    zk = cluster.zk_client()
    try:
        data, _ = zk.get(f"/brokers/ids/{node}")
    except NoNodeError:
        return None
    finally:
        zk.stop()
        zk.close()
    raw: dict[str, Any] = json.loads(data)
    return raw


def test_without_the_feature_the_partition_waits_for_its_last_in_sync_replica(
    cluster: Cluster,
) -> None:
    controller = cluster.brokers[cluster.controller()]
    answer = update(controller.bootstrap, [(ELR_FEATURE, 0, SAFE_DOWNGRADE)])
    assert answer["error_code"] == 0, answer
    acked = _down_to_one(cluster, "old")
    assert "eligible_leader_replicas" not in cluster.state("old")
    cluster.brokers[1].terminate()
    _start(cluster, 3, 2)
    # Time, not a condition: the partition must stay offline through several controller
    # passes with 2 and 3 alive; nothing happens that a wait could see.
    time.sleep(3)
    assert (cluster.leader("old"), cluster.state("old")["isr"]) == (-1, [1])
    _start(cluster, 1)
    wait_until(lambda: cluster.leader("old") == 1, 30, what="1 to lead again")
    check_no_loss(acked, read(cluster.bootstrap, "old", 1))
