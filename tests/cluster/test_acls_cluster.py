"""ACLs in a three-broker cluster with ZooKeeper: an ACL created through one broker applies on
every other broker within a second (Kafka's change notifications), is stored in Kafka's
`/kafka-acl` layout and JSON, and its removal through another broker does too. Brokers reach
each other as `User:ANONYMOUS` over the PLAINTEXT inter-broker listener, a super user here (as
Kafka deployments make the brokers' own principal); clients use an SSL listener with client
certificates. A replicated produce of an allowed principal shows replication unhindered."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient
from ferrolog.certs import CertificateAuthority
from ferrolog.ports import free_port

from tests.acl_broker import principal, request, secured_settings
from tests.cluster.harness import Cluster, ZooKeeper
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]

CREATE_ACLS, DESCRIBE_ACLS, DELETE_ACLS = 30, 29, 31
TOPIC, LITERAL, PREFIXED, ANY = 2, 3, 4, 1
READ, WRITE, ALLOW = 3, 4, 3


def acls_on(bootstrap: str, topic: str) -> set[tuple[int, str, str, int]]:
    """(pattern type, name, principal, operation) of the topic ACLs one broker holds that
    would apply to `topic` (DescribeAcls with pattern type MATCH)."""
    response = request(
        bootstrap,
        DESCRIBE_ACLS,
        3,
        {
            "resource_type_filter": TOPIC,
            "resource_name_filter": topic,
            "pattern_type_filter": 2,
            "principal_filter": None,
            "host_filter": None,
            "operation": ANY,
            "permission_type": ANY,
        },
    )
    assert response["error_code"] == 0, response
    return {
        (r["pattern_type"], r["resource_name"], a["principal"], a["operation"])
        for r in response["resources"]
        for a in r["acls"]
    }


def creation(pattern_type: int, name: str, who: str, operation: int) -> dict[str, Any]:
    return {
        "resource_type": TOPIC,
        "resource_name": name,
        "resource_pattern_type": pattern_type,
        "principal": who,
        "host": "*",
        "operation": operation,
        "permission_type": ALLOW,
    }


def test_acls_apply_on_every_broker_within_a_second(zookeeper: ZooKeeper, tmp_path: Path) -> None:
    ca = CertificateAuthority(tmp_path / "ca")
    issued = ca.broker()
    cluster = Cluster(zookeeper, tmp_path / "cluster", size=3)
    ssl_ports = {}
    for node_id, broker in cluster.brokers.items():
        ssl_ports[node_id] = free_port()
        broker.overrides.update(
            {
                "listeners": f"PLAINTEXT://127.0.0.1:{broker.port},"
                f"SSL://127.0.0.1:{ssl_ports[node_id]}",
                "inter.broker.listener.name": "PLAINTEXT",
                **secured_settings(ca, issued),
            }
        )
    cluster.start()
    try:
        topic = f"acl-{uuid.uuid4().hex[:6]}"
        prefix = topic[:6]
        cluster.create_topic(topic, 1, 3)
        alice = principal("alice")
        others = [cluster.brokers[n].bootstrap for n in (2, 3)]
        assert all(acls_on(b, topic) == set() for b in others)

        created = request(
            cluster.brokers[1].bootstrap,
            CREATE_ACLS,
            3,
            {
                "creations": [
                    creation(LITERAL, topic, alice, WRITE),
                    creation(PREFIXED, prefix, alice, READ),
                ]
            },
        )
        assert [r["error_code"] for r in created["results"]] == [0, 0]
        began = time.monotonic()
        wanted = {(LITERAL, topic, alice, WRITE), (PREFIXED, prefix, alice, READ)}
        wait_until(lambda: all(acls_on(b, topic) == wanted for b in others), timeout=5)
        assert time.monotonic() - began < 1.0

        client = cluster.zk_client()
        try:
            literal = json.loads(client.get(f"/kafka-acl/Topic/{topic}")[0])
            prefixed = json.loads(client.get(f"/kafka-acl-extended/prefixed/Topic/{prefix}")[0])
            changes = client.get_children("/kafka-acl-changes")
            extended_changes = client.get_children("/kafka-acl-extended-changes")
        finally:
            client.stop()
            client.close()
        entry = {"principal": alice, "permissionType": "Allow", "host": "*"}
        assert literal == {"version": 1, "acls": [{**entry, "operation": "Write"}]}
        assert prefixed == {"version": 1, "acls": [{**entry, "operation": "Read"}]}
        assert changes
        assert all(c.startswith("acl_changes_") for c in changes)
        assert extended_changes
        assert all(c.startswith("acl_changes_") for c in extended_changes)

        # alice writes through broker 3's SSL listener with acks=all: the followers (the
        # brokers' own principal) keep replicating.
        cert = ca.client("alice")
        config: dict[str, Any] = {
            "bootstrap.servers": f"127.0.0.1:{ssl_ports[3]}",
            "security.protocol": "SSL",
            "ssl.ca.location": str(ca.ca_pem),
            "ssl.certificate.location": str(cert.cert_pem),
            "ssl.key.location": str(cert.key_pem),
        }
        producer = Producer({**config, "acks": "all"})
        for i in range(20):
            producer.produce(topic, f"v{i}".encode())
        assert producer.flush(30) == 0
        assert topic in AdminClient(config).list_topics(timeout=20).topics

        deleted = request(
            cluster.brokers[2].bootstrap,
            DELETE_ACLS,
            3,
            {
                "filters": [
                    {
                        "resource_type_filter": TOPIC,
                        "resource_name_filter": topic,
                        "pattern_type_filter": LITERAL,
                        "principal_filter": alice,
                        "host_filter": None,
                        "operation": ANY,
                        "permission_type": ANY,
                    }
                ]
            },
        )
        assert len(deleted["filter_results"][0]["matching_acls"]) == 1
        began = time.monotonic()
        left = {(PREFIXED, prefix, alice, READ)}
        brokers = [cluster.brokers[n].bootstrap for n in (1, 3)]
        wait_until(lambda: all(acls_on(b, topic) == left for b in brokers), timeout=5)
        assert time.monotonic() - began < 1.0
    finally:
        cluster.stop()
