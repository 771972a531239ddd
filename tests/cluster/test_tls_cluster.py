"""Two brokers, each with a PLAINTEXT listener (the inter-broker one, which replication uses)
and an SSL one: clients of the SSL listener are sent every broker's SSL endpoint, produce with
acks=all to a replicated topic (the followers fetch over PLAINTEXT) and read it back over SSL;
each broker's registration in ZooKeeper lists both listeners in Kafka's layout."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.certs import CertificateAuthority, broker_ssl_settings
from ferrolog.ports import free_port

from tests.cluster.harness import Cluster, ZooKeeper

pytestmark = [pytest.mark.native, pytest.mark.slow]


def test_ssl_clients_of_a_replicated_cluster(zookeeper: ZooKeeper, tmp_path: Path) -> None:
    ca = CertificateAuthority(tmp_path / "ca")
    issued = ca.broker()
    cluster = Cluster(zookeeper, tmp_path / "cluster", size=2)
    ssl_ports = {}
    for node_id, broker in cluster.brokers.items():
        ssl_ports[node_id] = free_port()
        broker.overrides.update(
            {
                "listeners": f"PLAINTEXT://127.0.0.1:{broker.port},"
                f"SSL://127.0.0.1:{ssl_ports[node_id]}",
                "inter.broker.listener.name": "PLAINTEXT",
                # two brokers hold the group's offsets
                "offsets.topic.replication.factor": "2",
                **broker_ssl_settings(issued, ca, "PEM"),
            }
        )
    cluster.start()
    try:
        ssl: dict[str, Any] = {"security.protocol": "SSL", "ssl.ca.location": str(ca.ca_pem)}
        bootstrap = f"127.0.0.1:{ssl_ports[1]}"
        admin = AdminClient({"bootstrap.servers": bootstrap, **ssl})
        seen = {b.id: b.port for b in admin.list_topics(timeout=20).brokers.values()}
        assert seen == ssl_ports
        plain = {b.id: b.port for b in cluster.metadata().brokers.values()}
        assert plain == {n: b.port for n, b in cluster.brokers.items()}

        client = cluster.zk_client()
        try:
            registration = json.loads(client.get("/brokers/ids/2")[0])
        finally:
            client.stop()
            client.close()
        assert registration["endpoints"] == [
            f"PLAINTEXT://127.0.0.1:{cluster.brokers[2].port}",
            f"SSL://127.0.0.1:{ssl_ports[2]}",
        ]
        assert registration["listener_security_protocol_map"] == {
            "PLAINTEXT": "PLAINTEXT",
            "SSL": "SSL",
        }
        assert (registration["host"], registration["port"]) == (
            "127.0.0.1",
            cluster.brokers[2].port,
        )

        topic = f"tls-replicated-{uuid.uuid4().hex[:6]}"
        admin.create_topics([NewTopic(topic, 2, 2)])[topic].result(30)
        cluster.wait_for_leaders(topic, 2)
        producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", **ssl})
        sent = {f"k{i}".encode(): os.urandom(500) for i in range(300)}
        for key, value in sent.items():
            producer.produce(topic, value, key)
        assert producer.flush(30) == 0
        for partition in (0, 1):
            cluster.wait_for_isr(topic, partition, [1, 2])
        consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": topic,
                "auto.offset.reset": "earliest",
                **ssl,
            }
        )
        consumer.subscribe([topic])
        got: dict[bytes, bytes] = {}
        deadline = time.monotonic() + 60
        try:
            while len(got) < len(sent) and time.monotonic() < deadline:
                message = consumer.poll(0.5)
                if message is not None and not message.error():
                    got[message.key()] = message.value()
        finally:
            consumer.close()
        assert got == sent
    finally:
        cluster.cleanup()
