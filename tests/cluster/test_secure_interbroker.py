"""A three-broker cluster (real ZooKeeper) whose only listener is secured and is the
inter-broker listener: SSL with ssl.client.auth=required (each broker presents its key
store), SASL_SSL with SCRAM-SHA-512 between brokers, SASL_PLAINTEXT with PLAIN. Replication
(the native replica fetchers) and the broker-to-broker requests of the controller and the
transaction coordinator all go over it. Producing with acks=all to RF 3 and
min.insync.replicas=2 keeps every acknowledged record across a SIGKILL of a partition leader
(the restarted broker catches up over the secured listener and rejoins the ISR), and a
transaction's markers reach partition leaders on other brokers."""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from ferrolog.certs import CertificateAuthority, broker_ssl_settings
from ferrolog.controller.scram import BY_NAME as SCRAM_MECHANISMS
from ferrolog.controller.scram import ScramCredential
from ferrolog.controller.store.zk_paths import encode_entity_config

from tests.cluster.harness import Cluster, ZooKeeper
from tests.cluster.test_failover import hard_bounces

pytestmark = [pytest.mark.native, pytest.mark.slow]

PARTITIONS = 3
TXN_CLUSTER = {
    "transaction.state.log.num.partitions": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
}


PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
BROKER_LOGIN = ("broker", "broker-secret")  # the brokers' own login towards each other
CLIENT_LOGIN = ("alice", "alice-secret")  # a PLAIN user of the tests' clients


def secured_cluster(
    zookeeper: ZooKeeper, workdir: Path, protocol: str, mechanism: str | None
) -> Cluster:
    """Three brokers whose one listener, `protocol`, is the inter-broker listener; with SASL,
    the brokers log in to each other with `mechanism`, clients with PLAIN."""
    ca = CertificateAuthority(workdir / "ca")
    issued, client = ca.broker(), ca.client()
    cluster = Cluster(zookeeper, workdir / "cluster", size=3, **TXN_CLUSTER)
    settings = {
        "inter.broker.listener.name": protocol,
        **broker_ssl_settings(issued, ca, "PKCS12"),
    }
    client_config = {"security.protocol": protocol, "ssl.ca.location": str(ca.ca_pem)}
    if protocol == "SSL":
        settings["ssl.client.auth"] = "required"
        client_config["ssl.certificate.location"] = str(client.cert_pem)
        client_config["ssl.key.location"] = str(client.key_pem)
    if mechanism is not None:
        user, password = BROKER_LOGIN
        own = f'username="{user}" password="{password}"'
        plain_users = f'user_{user}="{password}" user_{CLIENT_LOGIN[0]}="{CLIENT_LOGIN[1]}"'
        prefix = f"listener.name.{protocol.lower()}"
        settings.update(
            {
                "sasl.enabled.mechanisms": ",".join(dict.fromkeys(["PLAIN", mechanism])),
                "sasl.mechanism.inter.broker.protocol": mechanism,
                f"{prefix}.plain.sasl.jaas.config": f"{PLAIN_MODULE} required {own} {plain_users};",
            }
        )
        if mechanism != "PLAIN":
            settings[f"{prefix}.{mechanism.lower()}.sasl.jaas.config"] = (
                f"{SCRAM_MODULE} required {own};"
            )
            seed_scram_credential(cluster, mechanism, user, password)
        client_config.update(
            {"sasl.mechanism": "PLAIN", "sasl.username": CLIENT_LOGIN[0],
             "sasl.password": CLIENT_LOGIN[1]}
        )  # fmt: skip
    for broker in cluster.brokers.values():
        broker.overrides.update({"listeners": f"{protocol}://127.0.0.1:{broker.port}", **settings})
    cluster.client_config = client_config
    return cluster


def seed_scram_credential(cluster: Cluster, mechanism: str, user: str, password: str) -> None:
    """The brokers' SCRAM credential, written to ZooKeeper before they start (as Kafka's docs
    have it done with kafka-configs --zookeeper): they need it to reach each other at all."""
    info = SCRAM_MECHANISMS[mechanism]
    salt = os.urandom(16)
    salted = hashlib.pbkdf2_hmac(info.hash_name, password.encode(), salt, 4096)
    credential = ScramCredential.from_salted_password(info, salt, salted, 4096)
    client = cluster.zk.client()
    try:
        client.create(
            f"{cluster.chroot}/config/users/{user}",
            encode_entity_config({mechanism: credential.to_config()}),
            makepath=True,
        )
    finally:
        client.stop()
        client.close()


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
    zookeeper: ZooKeeper, tmp_path: Path, protocol: str, mechanism: str | None
) -> None:
    cluster = secured_cluster(zookeeper, tmp_path, protocol, mechanism)
    try:
        cluster.start()
        # The key failover test of the suite, one round: acks=all to RF 3 with
        # min.insync.replicas=2 across a SIGKILL of a partition leader; no acknowledged record
        # lost, the consumer continues without gap, the restarted broker catches up over the
        # secured listener and rejoins every ISR.
        hard_bounces(cluster, lambda: cluster.leader("orders", 0), rounds=1)
        transactions_cross_brokers(cluster)
    except BaseException:
        for broker in cluster.brokers.values():
            print(f"--- broker {broker.node_id} log tail ---\n{broker.log_tail(60)}")
        raise
    finally:
        cluster.cleanup()
