"""A three-broker cluster (real ZooKeeper) whose only listener is secured and is the
inter-broker listener: SSL with ssl.client.auth=required (each broker presents its key
store), SASL_SSL with SCRAM-SHA-512 between brokers, SASL_PLAINTEXT with PLAIN. Replication
(the native replica fetchers) and the broker-to-broker requests of the controller and the
transaction coordinator all go over it. Producing with acks=all to RF 3 and
min.insync.replicas=2 keeps every acknowledged record across a SIGKILL of a partition leader
(the restarted broker catches up over the secured listener and rejoins the ISR), and a
transaction's markers reach partition leaders on other brokers."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from tests.cluster.harness import Cluster
from tests.cluster.test_failover import hard_bounces

pytestmark = [pytest.mark.native, pytest.mark.slow]

PARTITIONS = 3
TXN_CLUSTER = {
    "transaction.state.log.num.partitions": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
}


def transactions_cross_brokers(cluster: Cluster) -> None:
    client = cluster.client_config
    cluster.create_topic("spread", PARTITIONS, 3)
    # Leaders on more than one broker: the coordinator sends markers to another one.
    assert len({cluster.leader("spread", p) for p in range(PARTITIONS)}) > 1
    producer = Producer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "transactional.id": f"t-{uuid.uuid4().hex[:6]}",
            **client,
        }
    )
    producer.init_transactions(60)
    producer.begin_transaction()
    for i in range(30):
        producer.produce("spread", value=f"a{i}".encode(), partition=i % PARTITIONS)
    producer.flush(30)
    producer.abort_transaction(60)
    producer.begin_transaction()
    for i in range(30):
        producer.produce("spread", value=f"c{i}".encode(), partition=i % PARTITIONS)
    producer.commit_transaction(60)
    assert sorted(read_committed(cluster, "spread")) == sorted(f"c{i}" for i in range(30))


def read_committed(cluster: Cluster, topic: str) -> list[str]:
    """What a read_committed consumer gets: the committed records once every partition's
    markers are in (its position passed the last stable offset), then nothing more."""
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": f"r-{uuid.uuid4().hex[:6]}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            **cluster.client_config,
        }
    )
    values: list[str] = []
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
        deadline = time.monotonic() + 30
        quiet_since = time.monotonic()
        while time.monotonic() < deadline and time.monotonic() - quiet_since < 3:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                values.append(message.value().decode())
                quiet_since = time.monotonic()
    finally:
        consumer.close()
    return values


@pytest.mark.parametrize(
    ("protocol", "mechanism"),
    [("SSL", None), ("SASL_SSL", "SCRAM-SHA-512"), ("SASL_PLAINTEXT", "PLAIN")],
)
def test_a_secured_inter_broker_listener(
    cluster_factory: Callable[..., Cluster], protocol: str, mechanism: str | None
) -> None:
    # The set-up (certificates, SASL logins, the brokers' SCRAM credential) is conftest's
    # `secure`, which test_failover's SASL_SSL variant shares.
    cluster = cluster_factory(security=(protocol, mechanism), **TXN_CLUSTER)
    # The key failover test of the suite, one round: acks=all to RF 3 with
    # min.insync.replicas=2 across a SIGKILL of a partition leader; no acknowledged record
    # lost, the consumer continues without gap, the restarted broker catches up over the
    # secured listener and rejoins every ISR.
    hard_bounces(cluster, lambda: cluster.leader("orders", 0), rounds=1)
    transactions_cross_brokers(cluster)
