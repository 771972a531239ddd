"""Group configs (KIP-848, resource type GROUP) through Kafka 4.4's own `kafka-configs
--entity-type groups`: set, described with their sources, refused outside the broker's bounds
with Kafka's messages, kept in the metadata store, and applied by the coordinator to the
group's members without a restart (a member that stops heartbeating is expelled after the
group's session timeout, not the broker's).

The answers expected are Kafka 4.4.0's: its ConfigCommand lists only a group's own configs
without `--all`, each with the broker property it defaults to as synonyms, and its controller
refuses a value out of bounds with INVALID_CONFIG, "consumer.session.timeout.ms must be in the
range 1000 to 60000 inclusive." (the broker's bounds)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ferrolog.config import BrokerConfig
from ferrolog.controller.group_configs import validate_group_configs
from ferrolog.embedded import EmbeddedBroker
from ferrolog.errors import InvalidConfigError

from tests.cluster.harness import needs_kafka_jars
from tests.groups.conftest import create_topic
from tests.groups.consumer_tools import (
    CONSUMER_GROUP_DESCRIBE,
    heartbeat,
    join,
    kafka_configs,
    upgraded_broker,
)
from tests.handlers.features_tools import request

DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS = 32, 44
GROUP, GROUP_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG = 32, 8, 4, 5
INVALID_REQUEST, INVALID_CONFIG = 42, 40
# The broker's defaults are long, so only a group's own timeout can expel a member quickly.
SETTINGS = {
    "offsets.topic.num.partitions": "2",
    "group.consumer.session.timeout.ms": "60000",
    "group.consumer.min.session.timeout.ms": "1000",
    "group.consumer.heartbeat.interval.ms": "5000",
    "group.consumer.min.heartbeat.interval.ms": "100",
}


@pytest.fixture(scope="module")
def broker() -> Iterator[EmbeddedBroker]:
    with upgraded_broker(SETTINGS) as b:
        yield b


def describe(bootstrap: str, group: str, synonyms: bool = True) -> dict[str, dict[str, Any]]:
    body = {
        "resources": [{"resource_type": GROUP, "resource_name": group, "configuration_keys": None}],
        "include_synonyms": synonyms,
        "include_documentation": False,
    }
    result = request(bootstrap, DESCRIBE_CONFIGS, 4, body)["results"][0]
    assert result["error_code"] == 0, result
    return {c["name"]: c for c in result["configs"]}


def alter(bootstrap: str, group: str, *configs: tuple[str, int, str | None]) -> dict[str, Any]:
    body = {
        "resources": [
            {
                "resource_type": GROUP,
                "resource_name": group,
                "configs": [
                    {"name": n, "config_operation": op, "value": v} for n, op, v in configs
                ],
            }
        ],
        "validate_only": False,
    }
    response: dict[str, Any] = request(bootstrap, INCREMENTAL_ALTER_CONFIGS, 1, body)
    return dict(response["responses"][0])


def test_values_are_checked_against_the_brokers_bounds() -> None:
    broker = BrokerConfig(SETTINGS)
    assert validate_group_configs({"consumer.session.timeout.ms": " 6000 "}, broker) == {
        "consumer.session.timeout.ms": "6000"
    }
    refusals = {
        # The bounds are the broker's group.consumer.{min,max}.session.timeout.ms and
        # group.consumer.{min,max}.heartbeat.interval.ms.
        "consumer.session.timeout.ms=999": "consumer.session.timeout.ms must be in the range "
        "1000 to 60000 inclusive.",
        "consumer.session.timeout.ms=60001": "consumer.session.timeout.ms must be in the range "
        "1000 to 60000 inclusive.",
        "consumer.heartbeat.interval.ms=15001": "consumer.heartbeat.interval.ms must be in the "
        "range 100 to 15000 inclusive.",
        # Against the broker's heartbeat interval (5000) when the group has none of its own.
        "consumer.session.timeout.ms=5000": "consumer.session.timeout.ms must be greater than "
        "consumer.heartbeat.interval.ms",
        # Share groups' the same way, against group.share.{min,max}.* (45000-60000, ...).
        "share.session.timeout.ms=44999": "share.session.timeout.ms must be in the range "
        "45000 to 60000 inclusive.",
        "share.assignment.interval.ms=15001": "share.assignment.interval.ms must be in the "
        "range 0 to 15000 inclusive.",
        # Streams groups' against group.streams.*; warm-up replicas (which Kafka 4.4 never
        # assigns either) are not a group config ferrolog knows.
        "streams.session.timeout.ms=44999": "streams.session.timeout.ms must be in the range "
        "45000 to 60000 inclusive.",
        "streams.num.standby.replicas=3": "streams.num.standby.replicas must be less than or "
        "equal to 2",
        "streams.num.warmup.replicas=1": "Unknown group config name: streams.num.warmup.replicas",
    }
    for setting, message in refusals.items():
        name, _, value = setting.partition("=")
        with pytest.raises(InvalidConfigError) as refused:
            validate_group_configs({name: value}, broker)
        assert refused.value.message == message


def test_a_broker_refuses_to_start_with_a_session_timeout_out_of_bounds() -> None:
    with pytest.raises(InvalidConfigError, match=r"must be greater than or equal to"):
        BrokerConfig({"group.consumer.session.timeout.ms": "3000"})
    with pytest.raises(InvalidConfigError, match=r"heartbeat\.interval\.ms must be less than"):
        BrokerConfig({**SETTINGS, "group.consumer.session.timeout.ms": "5000"})


def test_describe_and_alter_through_the_protocol(broker: EmbeddedBroker) -> None:
    bootstrap = broker.bootstrap_servers
    group = f"g-{uuid.uuid4().hex[:8]}"
    rows = describe(bootstrap, group)
    assert sorted(rows) == [
        "consumer.heartbeat.interval.ms",
        "consumer.session.timeout.ms",
        "share.assignment.interval.ms",
        "share.auto.offset.reset",
        "share.delivery.count.limit",
        "share.heartbeat.interval.ms",
        "share.isolation.level",
        "share.partition.max.record.locks",
        "share.record.lock.duration.ms",
        "share.renew.acknowledge.enable",
        "share.session.timeout.ms",
        "streams.acceptable.recovery.lag",
        "streams.assignment.interval.ms",
        "streams.heartbeat.interval.ms",
        "streams.initial.rebalance.delay.ms",
        "streams.num.standby.replicas",
        "streams.session.timeout.ms",
        "streams.task.offset.interval.ms",
    ]
    session = rows["consumer.session.timeout.ms"]
    # The broker's value is the group config's default: its synonyms are the broker
    # property's values, from the one in effect (set in server.properties) to its default.
    broker_property = "group.consumer.session.timeout.ms"
    assert (session["value"], session["config_source"], session["read_only"]) == (
        "60000",
        STATIC_BROKER_CONFIG,
        False,
    )
    assert [(s["name"], s["value"], s["source"]) for s in session["synonyms"]] == [
        (broker_property, "60000", STATIC_BROKER_CONFIG),
        (broker_property, "45000", DEFAULT_CONFIG),
    ]
    assert alter(bootstrap, group, ("consumer.session.timeout.ms", 0, "6000"))["error_code"] == 0
    session = describe(bootstrap, group)["consumer.session.timeout.ms"]
    assert (session["value"], session["config_source"]) == ("6000", GROUP_CONFIG)
    assert session["synonyms"] == [
        {"name": "consumer.session.timeout.ms", "value": "6000", "source": GROUP_CONFIG},
        {"name": broker_property, "value": "60000", "source": STATIC_BROKER_CONFIG},
        {"name": broker_property, "value": "45000", "source": DEFAULT_CONFIG},
    ]
    # Refusals, as Kafka answers them; nothing changes.
    refused = alter(bootstrap, group, ("consumer.heartbeat.interval.ms", 0, None))
    assert (refused["error_code"], refused["error_message"]) == (
        INVALID_CONFIG,
        "Null value not supported for group configs: consumer.heartbeat.interval.ms",
    )
    refused = alter(bootstrap, group, ("consumer.heartbeat.interval.ms", 2, "100"))
    assert refused["error_code"] == INVALID_CONFIG
    refused = alter(bootstrap, "", ("consumer.session.timeout.ms", 0, "2000"))
    assert (refused["error_code"], refused["error_message"]) == (
        INVALID_REQUEST,
        "Default group resources are not allowed.",
    )
    assert describe(bootstrap, group)["consumer.session.timeout.ms"]["value"] == "6000"
    assert alter(bootstrap, group, ("consumer.session.timeout.ms", 1, None))["error_code"] == 0
    assert describe(bootstrap, group)["consumer.session.timeout.ms"]["value"] == "60000"


def members(bootstrap: str, group: str) -> list[str]:
    body = {"group_ids": [group], "include_authorized_operations": False}
    described = request(bootstrap, CONSUMER_GROUP_DESCRIBE, 0, body)["groups"][0]
    assert described["error_code"] == 0, described
    return sorted(m["member_id"] for m in described["members"])


def test_the_coordinator_applies_a_groups_session_timeout(broker: EmbeddedBroker) -> None:
    bootstrap = broker.bootstrap_servers
    topic = create_topic(bootstrap, partitions=2)
    configured, plain = f"g-{uuid.uuid4().hex[:8]}", f"g-{uuid.uuid4().hex[:8]}"
    first = join(bootstrap, configured, topic)
    assert first["error_code"] == 0
    assert first["heartbeat_interval_ms"] == 5000
    assert join(bootstrap, plain, topic)["error_code"] == 0
    # Set on a group that has members already: they take it from their next heartbeat.
    assert (
        alter(
            bootstrap,
            configured,
            ("consumer.session.timeout.ms", 0, "1500"),
            ("consumer.heartbeat.interval.ms", 0, "300"),
        )["error_code"]
        == 0
    )
    again = heartbeat(
        bootstrap,
        group_id=configured,
        member_id=first["member_id"],
        member_epoch=first["member_epoch"],
    )
    assert again["error_code"] == 0
    assert again["heartbeat_interval_ms"] == 300
    assert len(members(bootstrap, configured)) == 1
    # Then silent: expelled after the group's 1.5 s, while the other group's member, under
    # the broker's 60 s, stays.
    deadline = time.monotonic() + 10
    while members(bootstrap, configured) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert members(bootstrap, configured) == []
    assert time.monotonic() < deadline
    assert len(members(bootstrap, plain)) == 1


@needs_kafka_jars
def test_kafka_configs_sets_and_describes_a_groups_configs(broker: EmbeddedBroker) -> None:
    bootstrap = broker.bootstrap_servers
    group = f"g-{uuid.uuid4().hex[:8]}"
    # Kafka 4.4's `--describe` looks the group up in ListGroups first (and only when it is not
    # there asks ListConfigResources: see test_consumer_parity).
    assert join(bootstrap, group, create_topic(bootstrap))["error_code"] == 0
    done = kafka_configs(
        bootstrap, "--entity-name", group, "--alter", "--add-config",
        "consumer.session.timeout.ms=20000,consumer.heartbeat.interval.ms=1000",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Completed updating config for group {group}." in done.stdout
    shown = kafka_configs(bootstrap, "--entity-name", group, "--describe")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert f"Dynamic configs for group {group} are:" in shown.stdout
    assert "consumer.session.timeout.ms=20000 sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:" \
        "consumer.session.timeout.ms=20000, STATIC_BROKER_CONFIG:group.consumer.session." \
        "timeout.ms=60000, DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}" \
        in shown.stdout  # fmt: skip
    assert "consumer.heartbeat.interval.ms=1000" in shown.stdout
    refused = kafka_configs(
        bootstrap, "--entity-name", group, "--alter", "--add-config",
        "consumer.session.timeout.ms=500",
    )  # fmt: skip
    assert refused.returncode != 0
    assert (
        "consumer.session.timeout.ms must be in the range 1000 to 60000 inclusive."
        in refused.stdout + refused.stderr
    )
    unknown = kafka_configs(
        bootstrap,
        "--entity-name",
        group,
        "--alter",
        "--add-config",
        "streams.num.warmup.replicas=1",
    )
    assert unknown.returncode != 0
    removed = kafka_configs(
        bootstrap, "--entity-name", group, "--alter", "--delete-config",
        "consumer.heartbeat.interval.ms",
    )  # fmt: skip
    assert removed.returncode == 0, removed.stdout + removed.stderr
    shown = kafka_configs(bootstrap, "--entity-name", group, "--describe")
    assert "consumer.heartbeat.interval.ms" not in shown.stdout
    everything = kafka_configs(bootstrap, "--entity-name", group, "--describe", "--all")
    assert "consumer.heartbeat.interval.ms=5000 sensitive=false synonyms={STATIC_BROKER_CONFIG:" \
        "group.consumer.heartbeat.interval.ms=5000, DEFAULT_CONFIG:group.consumer.heartbeat." \
        "interval.ms=5000}" in everything.stdout  # fmt: skip


def test_a_groups_configs_survive_a_restart(tmp_path: Path) -> None:
    group = f"g-{uuid.uuid4().hex[:8]}"
    with EmbeddedBroker(tmp_path / "data", overrides=SETTINGS) as first:
        bootstrap = first.bootstrap_servers
        assert (
            alter(bootstrap, group, ("consumer.heartbeat.interval.ms", 0, "700"))["error_code"] == 0
        )
    with EmbeddedBroker(tmp_path / "data", overrides=SETTINGS) as second:
        bootstrap = second.bootstrap_servers
        interval = describe(bootstrap, group)["consumer.heartbeat.interval.ms"]
        assert (interval["value"], interval["config_source"]) == ("700", GROUP_CONFIG)
        joined = join(bootstrap, group, create_topic(bootstrap))
        assert joined["error_code"] == 0
        assert joined["heartbeat_interval_ms"] == 700
