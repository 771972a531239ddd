"""A three-broker cluster (real ZooKeeper) whose only listener is secured and is the
inter-broker listener, with `ssl.client.auth=required`: replication (the native replica
fetchers), the controller's and the transaction coordinator's broker-to-broker requests all
go over it, presenting each broker's key store. Producing with acks=all to RF 3 and
min.insync.replicas=2 keeps every acknowledged record across a SIGKILL of a partition
leader (the restarted broker catches up over TLS and rejoins the ISR), and a transaction's
markers reach partition leaders on other brokers."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from tests.cluster.checker import AckedProducer, check_no_loss, read_all
from tests.cluster.harness import Cluster, ZooKeeper
from tests.tls_certs import CertificateAuthority, broker_ssl_settings
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]

PARTITIONS = 3
TXN_CLUSTER = {
    "transaction.state.log.num.partitions": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
}


def secured_cluster(zookeeper: ZooKeeper, workdir: Path, protocol: str) -> Cluster:
    """Three brokers whose one listener, `protocol`, is the inter-broker listener."""
    ca = CertificateAuthority(workdir / "ca")
    issued, client = ca.broker(), ca.client()
    cluster = Cluster(zookeeper, workdir / "cluster", size=3, **TXN_CLUSTER)
    for broker in cluster.brokers.values():
        broker.overrides.update(
            {
                "listeners": f"{protocol}://127.0.0.1:{broker.port}",
                "inter.broker.listener.name": protocol,
                "ssl.client.auth": "required",
                **broker_ssl_settings(issued, ca, "PKCS12"),
            }
        )
    cluster.client_config = {
        "security.protocol": protocol,
        "ssl.ca.location": str(ca.ca_pem),
        "ssl.certificate.location": str(client.cert_pem),
        "ssl.key.location": str(client.key_pem),
    }
    return cluster


def survives_a_leader_sigkill(cluster: Cluster) -> None:
    client = cluster.client_config
    cluster.create_topic("orders", PARTITIONS, 3, **{"min.insync.replicas": "2"})
    producer = AckedProducer(cluster.bootstrap, "orders", PARTITIONS, client=client).start()
    try:
        producer.wait_acked(200)
        # acks=all completing means the followers fetched over the secured listener; the full
        # ISR says all of them do.
        for p in range(PARTITIONS):
            cluster.wait_for_isr("orders", p, [1, 2, 3])
        victim = cluster.leader("orders", 0)
        cluster.brokers[victim].kill()
        wait_until(
            lambda: all(cluster.leader("orders", p) not in (victim, -1) for p in range(3)),
            timeout=30,
            what="leaders away from the killed broker",
        )
        producer.wait_acked(100)
        cluster.brokers[victim].start()
        cluster.brokers[victim].wait_ready()
        cluster.wait_for_brokers({1, 2, 3})
        for p in range(PARTITIONS):
            cluster.wait_for_isr("orders", p, [1, 2, 3])
        producer.wait_acked(100)
    finally:
        producer.stop()
    assert not producer.errors, producer.errors[-3:]
    check_no_loss(producer.acked, read_all(cluster.bootstrap, "orders", PARTITIONS, client=client))


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


@pytest.mark.parametrize("protocol", ["SSL"])
def test_a_secured_inter_broker_listener(
    zookeeper: ZooKeeper, tmp_path: Path, protocol: str
) -> None:
    cluster = secured_cluster(zookeeper, tmp_path, protocol)
    try:
        cluster.start()
        survives_a_leader_sigkill(cluster)
        transactions_cross_brokers(cluster)
    except BaseException:
        for broker in cluster.brokers.values():
            print(f"--- broker {broker.node_id} log tail ---\n{broker.log_tail(60)}")
        raise
    finally:
        cluster.cleanup()
