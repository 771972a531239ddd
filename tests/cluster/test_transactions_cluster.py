"""Transactions in the three-broker cluster: `__transaction_state` replicated (RF 3), markers
written by the coordinator to partition leaders on other brokers (WriteTxnMarkers), KIP-890
verification forwarded to the coordinator's broker, and Kafka's TransactionalMessageCopier
copying exactly once while the coordinator's broker and an output leader are SIGKILLed and
restarted (as in Kafka's transactions system test), with transaction version 2 finalized, as
a Kafka 4.4 cluster has it: the leaders add the partitions for the producer, each end bumps
its epoch."""

from __future__ import annotations

import subprocess
import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from ferrolog.client.connection import Connection

from tests.cluster.harness import Cluster, java_command, needs_kafka_jars
from tests.handlers.features_tools import finalized
from tests.transactions.conftest import read_all
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]

DESCRIBE_TRANSACTIONS = 65
TXN_CLUSTER = {
    "transaction.state.log.num.partitions": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
}


def coordinator_of(cluster: Cluster, transactional_id: str) -> int:
    """The broker FindCoordinator names for the id, asked of a live broker."""
    for broker in cluster.brokers.values():
        if not broker.running:
            continue
        host, _, port = broker.bootstrap.rpartition(":")
        try:
            with Connection(host, int(port), 5, "test") as conn:
                r = conn.request(10, 3, {"key": transactional_id, "key_type": 1})
        except OSError:
            continue
        if r["error_code"] == 0:
            return int(r["node_id"])
    raise AssertionError("no broker names a coordinator")


def test_transactions_span_the_brokers(cluster_factory: Any) -> None:
    cluster: Cluster = cluster_factory(**TXN_CLUSTER)
    cluster.create_topic("spread", 3, 3)
    cluster.wait_for_leaders("spread", 3)
    assert len({cluster.leader("spread", p) for p in range(3)}) > 1
    producer = Producer(
        {"bootstrap.servers": cluster.bootstrap, "transactional.id": f"t-{uuid.uuid4().hex[:6]}"}
    )
    producer.init_transactions(60)
    producer.begin_transaction()
    for i in range(30):
        producer.produce("spread", value=f"a{i}".encode(), partition=i % 3)
    producer.flush(30)
    producer.abort_transaction(60)
    producer.begin_transaction()
    for i in range(30):
        producer.produce("spread", value=f"c{i}".encode(), partition=i % 3)
    producer.commit_transaction(60)
    committed = read_all(cluster.bootstrap, "spread", "read_committed", 30)
    assert sorted(committed) == sorted(f"c{i}" for i in range(30))
    assert len(read_all(cluster.bootstrap, "spread", "read_uncommitted", 60)) == 60


TOPICS = (("in", 1), ("out", 3), ("__transaction_state", 3))


def _bounce(cluster: Cluster, node: int) -> None:
    """SIGKILLs `node` and starts it again, then waits until the controller has acted on the
    restart (every partition's state changed: a new leader where it led, the ISR without it
    elsewhere) and until it is back in every ISR. Without the first wait, a fast restart can
    find the old ISRs still listed and the next bounce follow before anything moved; bouncing
    a second broker before the first has caught up would leave partitions below
    min.insync.replicas, stalling the copier's transaction past its timeout."""
    _wait_all_in_sync(cluster)
    before = {(t, p): cluster.state(t, p)["zk_version"] for t, n in TOPICS for p in range(n)}
    broker = cluster.brokers[node]
    broker.kill()  # SIGKILL
    time.sleep(1)  # on purpose: the others notice it gone before it is back
    broker.start()
    broker.wait_ready(60)
    for (topic, p), version in before.items():
        wait_until(
            lambda t=topic, p=p, v=version: cluster.state(t, p)["zk_version"] > v,  # type: ignore[misc]
            60,
            what=f"the controller to act on the restart of {node} for {topic}-{p}",
        )
    _wait_all_in_sync(cluster)


def _wait_all_in_sync(cluster: Cluster) -> None:
    for topic, partitions in TOPICS:
        for p in range(partitions):
            cluster.wait_for_isr(topic, p, [1, 2, 3], timeout=60)


@needs_kafka_jars
@pytest.mark.timeout(600)  # ten bounces, each waited out until every replica is back in sync
def test_copier_is_exactly_once_through_hard_bounces(cluster_factory: Any) -> None:
    cluster: Cluster = cluster_factory(**TXN_CLUSTER)
    # A new cluster finalizes transaction version 2: the copier's producer bumps its epoch.
    for broker in cluster.brokers.values():
        wait_until(
            lambda b=broker: finalized(b.bootstrap)[1].get("transaction.version") == (2, 2),
            timeout=10,
            what=f"broker {broker.node_id} to report transaction.version 2",
        )
    cluster.create_topic("in", 1, 3)
    cluster.create_topic("out", 3, 3)
    cluster.wait_for_leaders("out", 3)
    records, per_transaction = 20000, 50
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "linger.ms": 5})
    for i in range(records):
        producer.produce("in", value=f"r{i}".encode(), partition=0)
    assert producer.flush(60) == 0
    txn_id, group = f"copier-{uuid.uuid4().hex[:6]}", f"cg-{uuid.uuid4().hex[:6]}"
    args = [
        "--broker-list", cluster.bootstrap,
        "--input-topic", "in",
        "--input-partition", "0",
        "--output-topic", "out",
        "--consumer-group", group,
        "--transactional-id", txn_id,
        "--transaction-size", str(per_transaction),
        "--transaction-timeout", "10000",
        "--max-messages", str(records),
        "--use-group-metadata",
    ]  # fmt: skip
    copier = subprocess.Popen(
        java_command("org.apache.kafka.tools.TransactionalMessageCopier", *args),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    bounces = 0
    try:
        wait_until(lambda: coordinator_of(cluster, txn_id) > 0, 60, what="a coordinator")
        for _ in range(5):
            if copier.poll() is not None:
                break
            _bounce(cluster, coordinator_of(cluster, txn_id))
            bounces += 1
            _bounce(cluster, cluster.leader("out", bounces % 3))
            bounces += 1
        output, _ = copier.communicate(timeout=600)
    finally:
        if copier.poll() is None:
            copier.kill()
            copier.communicate()
    assert copier.returncode == 0, output[-4000:]
    assert bounces == 10, f"the copier finished after {bounces} bounces of 10"
    copied = read_all(cluster.bootstrap, "out", "read_committed", records, idle=5)
    assert len(copied) == records
    assert sorted(copied) == sorted(f"r{i}" for i in range(records))
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": group})
    try:
        (committed,) = consumer.committed([TopicPartition("in", 0)], timeout=30)
    finally:
        consumer.close()
    assert committed.offset == records
    # Transaction version 2 in use: every end moved the producer's epoch on.
    coordinator = cluster.brokers[coordinator_of(cluster, txn_id)]
    host, _, port = coordinator.bootstrap.rpartition(":")
    with Connection(host, int(port), 10, "test") as conn:
        described = conn.request(DESCRIBE_TRANSACTIONS, 0, {"transactional_ids": [txn_id]})
    (state,) = described["transaction_states"]
    assert state["producer_epoch"] >= records // per_transaction, state
    for topic in ("out", "__transaction_state", "__consumer_offsets"):
        wait_until(
            lambda topic=topic: cluster.verify_replicas(topic).returncode == 0,  # type: ignore[misc]
            60,
            what=f"identical replicas of {topic}",
        )


@pytest.mark.timeout(600)
def test_librdkafka_transactions_are_exactly_once_through_bounces(cluster_factory: Any) -> None:
    """librdkafka's transactional producer while the coordinator's broker, then a leader of
    its output, is SIGKILLed in the middle of a transaction: every record of a transaction it
    committed is read once under read_committed, none of one it had to abort. librdkafka 2.16
    does not use transaction version 2 (KIP-890 part 2) where a cluster finalizes it: its
    epoch stays where InitProducerId put it, here as against a Kafka 4.4.0 broker."""
    cluster: Cluster = cluster_factory(**TXN_CLUSTER)
    for topic, partitions in TOPICS[:2]:
        cluster.create_topic(topic, partitions, 3)
    cluster.wait_for_leaders("out", 3)
    txn_id = f"rd-{uuid.uuid4().hex[:6]}"
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "transactional.id": txn_id})
    producer.init_transactions(60)
    committed: list[str] = []
    aborted = 0
    for n in range(6):
        values = [f"t{n}-{i}" for i in range(40)]
        producer.begin_transaction()
        for i, value in enumerate(values):
            producer.produce("out", value=value.encode(), partition=i % 3)
            if i == 20 and n in (1, 3):
                victim = coordinator_of(cluster, txn_id) if n == 1 else cluster.leader("out", 0)
                _bounce(cluster, victim)
        try:
            producer.commit_transaction(120)
            committed += values
        except KafkaException as exc:
            if not exc.args[0].txn_requires_abort():
                raise
            producer.abort_transaction(120)
            aborted += 1
    assert aborted <= 2, f"{aborted} of 6 transactions aborted"
    got = read_all(cluster.bootstrap, "out", "read_committed", len(committed), idle=5)
    assert sorted(got) == sorted(committed)
    coordinator = cluster.brokers[coordinator_of(cluster, txn_id)]
    host, _, port = coordinator.bootstrap.rpartition(":")
    with Connection(host, int(port), 10, "test") as conn:
        answer = conn.request(DESCRIBE_TRANSACTIONS, 0, {"transactional_ids": [txn_id]})
    (described,) = answer["transaction_states"]
    assert (described["error_code"], described["producer_epoch"]) == (0, 0), described
