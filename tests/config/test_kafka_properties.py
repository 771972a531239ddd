"""Every broker property of Kafka 4.4 is in the one config table: served, or known by its
Kafka type, default and dynamic flag (`ferrolog.config.unserved`), refused at start when a
value asks for what ferrolog does not do, else accepted and logged as without effect. The
properties are read from Kafka 4.4.0's jars (`KafkaBrokerProperties.java`), not copied."""

from __future__ import annotations

import logging
import subprocess
from functools import cache
from pathlib import Path

import pytest
from ferrolog.config import BROKER_CONFIGS, BrokerConfig
from ferrolog.config.table import ConfigType
from ferrolog.errors import InvalidConfigError

from tests.cluster.harness import java_command

HERE = Path(__file__).parent
# ferrolog's own properties (the metrics endpoint; the cluster over ZooKeeper, which Kafka 4
# dropped) and the authorizer's (read by Kafka's authorizers from the broker config, not
# KafkaConfig's definitions), and Kafka's replication throttles (DynamicConfig.Broker).
NOT_KAFKA_44_DEFINITIONS = {
    "metrics.listener", "zookeeper.connect", "zookeeper.session.timeout.ms",
    "zookeeper.connection.timeout.ms", "controlled.shutdown.timeout.ms", "super.users",
    "allow.everyone.if.no.acl.found", "leader.replication.throttled.rate",
    "follower.replication.throttled.rate", "replica.alter.log.dirs.io.max.bytes.per.second",
}  # fmt: skip


@cache
def kafka_properties() -> dict[str, tuple[str, bool, str | None]]:
    """Kafka 4.4.0's broker properties: name -> (type, dynamic, default as described)."""
    out = subprocess.run(
        java_command(str(HERE / "KafkaBrokerProperties.java")),
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    table = {}
    for line in out.splitlines():
        name, kind, dynamic, default = line.split("\t")
        table[name] = (
            kind,
            dynamic == "dynamic",
            None if default in ("<none>", "<null>") else default,
        )
    return table


def test_every_kafka_broker_property_is_in_the_table() -> None:
    kafka = kafka_properties()
    assert len(kafka) > 350
    assert sorted(set(kafka) - set(BROKER_CONFIGS)) == []
    assert sorted(set(BROKER_CONFIGS) - set(kafka)) == sorted(NOT_KAFKA_44_DEFINITIONS)


def test_an_unserved_property_has_kafkas_type_default_and_dynamic_flag() -> None:
    kafka = kafka_properties()
    unserved = {n: d for n, d in BROKER_CONFIGS.items() if d.unserved is not None}
    assert len(unserved) > 200
    for name, definition in unserved.items():
        kind, dynamic, default = kafka[name]
        assert (definition.type.name, definition.dynamic, definition.default) == (
            kind, dynamic, default
        ), name  # fmt: skip


def test_a_served_property_has_kafkas_type() -> None:
    kafka = kafka_properties()
    for name, definition in BROKER_CONFIGS.items():
        if name in kafka and definition.unserved is None:
            # ferrolog parses a few of Kafka's LIST and CLASS properties as strings, the same text.
            allowed = (
                {kafka[name][0], "STRING"}
                if kafka[name][0] in ("LIST", "CLASS")
                else {kafka[name][0]}
            )
            assert definition.type.name in allowed, name


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("remote.log.storage.system.enable", "true"),
        ("sasl.oauthbearer.jwks.endpoint.url", "https://idp.example/jwks"),
        ("log.cleaner.io.max.bytes.per.second", "1048576"),
        ("create.topic.policy.class.name", "com.example.Policy"),
        ("transaction.two.phase.commit.enable", "true"),
        ("group.coordinator.rebalance.protocols", "classic"),
    ],
)
def test_a_value_asking_for_what_ferrolog_does_not_do_stops_the_start(
    name: str, value: str
) -> None:
    with pytest.raises(InvalidConfigError) as refused:
        BrokerConfig({name: value})
    reason = BROKER_CONFIGS[name].unserved
    assert reason is not None
    assert reason.reason in refused.value.message
    assert f"{name}={value} is not supported by ferrolog" in refused.value.message


def test_kafkas_default_or_an_equivalent_value_of_a_refused_property_is_accepted() -> None:
    config = BrokerConfig(
        {
            "remote.log.storage.system.enable": "false",
            "log.cleaner.io.max.bytes.per.second": "1.7976931348623157E308",
            "group.coordinator.rebalance.protocols": "classic,consumer",
        }
    )
    assert config.get("group.coordinator.rebalance.protocols") == "classic,consumer"


def test_a_knob_of_kafkas_machinery_is_accepted_described_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="ferrolog.config.broker"):
        config = BrokerConfig({"log.cleaner.threads": "2", "socket.send.buffer.bytes": "102400"})
    assert config.get("log.cleaner.threads") == "2"
    # Logged when it differs from Kafka's default, which 102400 is.
    assert [r.getMessage().split(" has no effect")[0] for r in caplog.records] == [
        "log.cleaner.threads=2"
    ]
    row = next(e for e in config.describe_broker() if e.name == "log.cleaner.threads")
    assert (row.value, row.sensitive, row.read_only) == ("2", False, False)
    assert BROKER_CONFIGS["log.cleaner.threads"].type == ConfigType.INT


def test_kafka_4s_single_node_server_properties_are_served() -> None:
    """What Kafka 4.4's config/server.properties holds: the combined KRaft node."""
    config = BrokerConfig(
        {
            "process.roles": "broker,controller",
            "node.id": "1",
            "controller.quorum.bootstrap.servers": "localhost:9093",
            "listeners": "PLAINTEXT://:9092,CONTROLLER://:9093",
            "advertised.listeners": "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "inter.broker.listener.name": "PLAINTEXT",
            "num.network.threads": "3",
            "share.coordinator.state.topic.replication.factor": "1",
            "share.coordinator.state.topic.min.isr": "1",
        }
    )
    assert config.node_id == 1


@pytest.mark.parametrize(
    "settings",
    [
        {"process.roles": "broker"},
        {"process.roles": "controller"},
        {"process.roles": "broker,controller", "controller.quorum.voters": "1@a:9093,2@b:9093"},
        {"process.roles": "broker,controller", "zookeeper.connect": "localhost:2181"},
    ],
)
def test_a_kraft_cluster_is_refused_at_start(settings: dict[str, str]) -> None:
    with pytest.raises(InvalidConfigError, match="ferrolog serves KRaft's combined single node"):
        BrokerConfig(settings)
