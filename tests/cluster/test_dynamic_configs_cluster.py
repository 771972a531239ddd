"""Dynamic broker configs in a three-broker cluster with a real ZooKeeper, through Kafka 4.1's
own `kafka-configs`: a cluster default set through one broker is in Kafka's layout
(`/config/brokers/<default>`, a `/config/changes` notification naming it), and every broker
applies it without a restart (a lower `log.retention.ms` deletes the old segments of a topic
without an override on every replica); per-broker values, `--describe` and the refusal of a
static property answer as Kafka 4.1 answers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from confluent_kafka import Producer

from bench.harness import kafka_dist
from tests.cluster.harness import Cluster, java_command, needs_kafka_jars
from tests.handlers.features_tools import request
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow, needs_kafka_jars]

CONFIGS = kafka_dist.CONFIG_COMMAND


def kafka_configs(bootstrap: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        java_command(CONFIGS, "--bootstrap-server", bootstrap, "--entity-type", "brokers", *args),
        capture_output=True,
        text=True,
        timeout=120,
    )


def segments(data: Path, topic: str) -> int:
    return len(list((data / f"{topic}-0").glob("*.log")))


def test_a_cluster_default_is_applied_by_every_broker(cluster: Cluster) -> None:
    cluster.create_topic("dyn", 1, 3, **{"internal.segment.bytes": "2048"})
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all"})
    for i in range(30):  # one batch at a time: segments roll between batches
        producer.produce("dyn", f"record-{i:04d}".encode() * 100)
        assert producer.flush(30) == 0
    for broker in cluster.brokers.values():
        wait_until(
            lambda b=broker: segments(b.data, "dyn") > 5,
            timeout=30,
            what=f"broker {broker.node_id} to hold several segments",
        )

    first = cluster.brokers[1].bootstrap
    done = kafka_configs(
        first, "--entity-default", "--alter", "--add-config", "log.retention.ms=1000"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Completed updating default config for brokers in the cluster." in done.stdout

    zk = cluster.zk_client()
    try:
        data, _ = zk.get("/config/brokers/<default>")
        assert json.loads(data) == {"version": 1, "config": {"log.retention.ms": "1000"}}
        changes = zk.get_children("/config/changes")
        notes = [json.loads(zk.get(f"/config/changes/{c}")[0]) for c in changes]
        assert {"version": 2, "entity_path": "brokers/<default>"} in notes
    finally:
        zk.stop()
        zk.close()

    # Every replica, led or followed, deletes its old segments: only the active one stays.
    for broker in cluster.brokers.values():
        wait_until(
            lambda b=broker: segments(b.data, "dyn") == 1,
            timeout=30,
            what=f"broker {broker.node_id} to apply the new retention",
        )

    described = kafka_configs(first, "--entity-default", "--describe")
    assert described.returncode == 0, described.stdout + described.stderr
    assert "Default configs for brokers in the cluster are:" in described.stdout
    assert (
        "log.retention.ms=1000 sensitive=false "
        "synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=1000}"
    ) in described.stdout


def test_per_broker_values_describe_and_refusals_as_on_kafka(cluster: Cluster) -> None:
    bootstrap = cluster.bootstrap
    for args in (
        ["--entity-default", "--alter", "--add-config", "log.retention.ms=1000"],
        ["--entity-name", "2", "--alter", "--add-config",
         "log.retention.ms=2000,follower.replication.throttled.rate=10,log.cleaner.threads=2"],
    ):  # fmt: skip
        done = kafka_configs(bootstrap, *args)
        assert done.returncode == 0, done.stdout + done.stderr
    described = kafka_configs(bootstrap, "--entity-name", "2", "--describe")
    assert described.returncode == 0, described.stdout + described.stderr
    lines = described.stdout.splitlines()
    assert lines[0] == "Dynamic configs for broker 2 are:"
    assert lines[1:] == [
        "  follower.replication.throttled.rate=10 sensitive=false "
        "synonyms={DYNAMIC_BROKER_CONFIG:follower.replication.throttled.rate=10}",
        # Kafka's, without effect on ferrolog (its cleaner), described as Kafka describes it.
        "  log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:"
        "log.cleaner.threads=2, DEFAULT_CONFIG:log.cleaner.threads=1}",
        "  log.retention.ms=2000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:"
        "log.retention.ms=2000, DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=1000, "
        "DEFAULT_CONFIG:log.retention.hours=168}",
    ]
    # Broker 3 has only the default.
    other = kafka_configs(bootstrap, "--entity-name", "3", "--describe", "--all")
    assert (
        "log.retention.ms=1000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:"
        "log.retention.ms=1000, DEFAULT_CONFIG:log.retention.hours=168}"
    ) in other.stdout
    refused = kafka_configs(
        bootstrap, "--entity-name", "1", "--alter", "--add-config", "num.partitions=3"
    )
    assert refused.returncode != 0
    assert (
        "org.apache.kafka.common.errors.InvalidRequestException: Cannot update these configs "
        "dynamically: Set(num.partitions)"
    ) in refused.stdout + refused.stderr
    # Kafka's, dynamic, and a promise ferrolog does not keep yet: refused with the reason.
    unkept = kafka_configs(
        bootstrap,
        "--entity-default",
        "--alter",
        "--add-config",
        "log.cleaner.io.max.bytes.per.second=1000000",
    )
    assert unkept.returncode != 0
    assert (
        "InvalidRequestException: log.cleaner.io.max.bytes.per.second=1000000 is not supported "
        "by ferrolog"
    ) in unkept.stdout + unkept.stderr


def test_a_groups_configs_reach_every_broker(cluster: Cluster) -> None:
    """A group config set through one broker is stored in `/config/groups/<group>`, with a
    `/config/changes` notification naming it, and every broker describes it soon after."""
    first = cluster.brokers[1].bootstrap
    done = subprocess.run(
        java_command(
            CONFIGS, "--bootstrap-server", first, "--entity-type", "groups", "--entity-name",
            "orders", "--alter", "--add-config", "consumer.heartbeat.interval.ms=6000",
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    zk = cluster.zk_client()
    try:
        data, _ = zk.get("/config/groups/orders")
        assert json.loads(data) == {
            "version": 1,
            "config": {"consumer.heartbeat.interval.ms": "6000"},
        }
        changes = sorted(zk.get_children("/config/changes"))
        last, _ = zk.get(f"/config/changes/{changes[-1]}")
        assert json.loads(last) == {"version": 2, "entity_path": "groups/orders"}
    finally:
        zk.stop()
        zk.close()

    def described(bootstrap: str) -> str | None:
        body = {
            "resources": [{"resource_type": 32, "resource_name": "orders",
                           "configuration_keys": ["consumer.heartbeat.interval.ms"]}],
            "include_synonyms": False,
            "include_documentation": False,
        }  # fmt: skip
        configs = request(bootstrap, 32, 4, body)["results"][0]["configs"]
        return str(configs[0]["value"]) if configs else None

    for broker in cluster.brokers.values():
        wait_until(
            lambda b=broker: described(b.bootstrap) == "6000",
            timeout=20,
            what=f"broker {broker.node_id} to describe the group's config",
        )
