"""Dynamic broker configs through AlterConfigs, IncrementalAlterConfigs and DescribeConfigs on
BROKER resources ("0" and "" for the cluster default), against the real controller over a real
LocalStore: stored, applied to the local topics without a restart, described with Kafka's
sources, and refused with Kafka 4.1's answers (INVALID_REQUEST, its messages)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from admin_broker import Broker, call, make_broker
from ferrolog import errors
from ferrolog.controller.store.entities import EntityType
from ferrolog.handlers import alter_configs, describe_configs, incremental_alter_configs

BROKER = 4
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
DYNAMIC_BROKER, DYNAMIC_DEFAULT, STATIC, DEFAULT = 2, 3, 4, 5


@pytest.fixture
def broker(admin_broker: Callable[..., Broker]) -> Broker:
    b = admin_broker(**{"log.retention.hours": "24"})
    b.create("t", 1, {"segment.bytes": "1048576"})
    b.create("kept", 1, {"retention.ms": "7"})
    return b


def incremental(
    broker: Broker, name: str, ops: list[tuple[str, int, str | None]], validate_only: bool = False
) -> dict[str, Any]:
    configs = [{"name": n, "config_operation": op, "value": v} for n, op, v in ops]
    request = {
        "resources": [{"resource_type": BROKER, "resource_name": name, "configs": configs}],
        "validate_only": validate_only,
    }
    response: dict[str, Any] = call(broker, incremental_alter_configs, 1, request)["responses"][0]
    return response


def describe(broker: Broker, name: str) -> dict[str, dict[str, Any]]:
    request = {
        "resources": [{"resource_type": BROKER, "resource_name": name, "configuration_keys": None}],
        "include_synonyms": True,
        "include_documentation": False,
    }
    result = call(broker, describe_configs, 4, request)["results"][0]
    assert result["error_code"] == 0, result
    return {c["name"]: c for c in result["configs"]}


def stored_levels(broker: Broker) -> dict[str, dict[str, str]]:
    """The broker entities the store holds configs of (the cluster default and broker 0)."""
    stored = broker.run(broker.store.entity_configs(EntityType.BROKERS, ("<default>", "0")))
    return {name: config for name, config in stored.items() if config}


def pushed(broker: Broker, topic: str) -> list[dict[str, str]]:
    """The configs given to the native core for `topic` at runtime."""
    return [c[2] for c in broker.native.calls if c[0] == "config" and c[1] == topic]


def test_a_cluster_default_reaches_topics_without_an_override(broker: Broker) -> None:
    assert describe(broker, "") == {}
    assert incremental(broker, "", [("log.retention.ms", SET, "1000")])["error_code"] == 0
    assert pushed(broker, "t")[-1]["retention.ms"] == "1000"
    assert pushed(broker, "kept") == []  # its own retention.ms wins
    default = describe(broker, "")
    assert set(default) == {"log.retention.ms"}
    assert default["log.retention.ms"]["value"] == "1000"
    assert default["log.retention.ms"]["config_source"] == DYNAMIC_DEFAULT
    row = describe(broker, "0")["log.retention.ms"]
    assert (row["value"], row["config_source"]) == ("1000", DYNAMIC_DEFAULT)
    assert [(s["name"], s["source"]) for s in row["synonyms"]] == [
        ("log.retention.ms", DYNAMIC_DEFAULT),
        ("log.retention.hours", STATIC),
        ("log.retention.hours", DEFAULT),
    ]
    # The per-broker level wins over the default.
    assert incremental(broker, "0", [("log.retention.ms", SET, "2000")])["error_code"] == 0
    assert pushed(broker, "t")[-1]["retention.ms"] == "2000"
    assert describe(broker, "0")["log.retention.ms"]["config_source"] == DYNAMIC_BROKER
    assert incremental(broker, "0", [("log.retention.ms", DELETE, None)])["error_code"] == 0
    assert incremental(broker, "", [("log.retention.ms", DELETE, None)])["error_code"] == 0
    assert pushed(broker, "t")[-1]["retention.ms"] == str(24 * 3_600_000)
    assert describe(broker, "") == {}


def test_dynamic_configs_are_stored_and_loaded_at_start(tmp_path: Path) -> None:
    first = make_broker(str(tmp_path))
    try:
        assert incremental(first, "", [("log.segment.bytes", SET, "2097152")])["error_code"] == 0
        assert (
            incremental(first, "0", [("log.cleanup.policy", APPEND, "compact")])["error_code"] == 0
        )
    finally:
        first.close()
    again = make_broker(str(tmp_path))
    try:
        assert again.config.topic_config({})["segment.bytes"] == "2097152"
        assert again.config.topic_config({})["cleanup.policy"] == "delete,compact"
        assert describe(again, "0")["log.cleanup.policy"]["config_source"] == DYNAMIC_BROKER
    finally:
        again.close()


def test_static_properties_and_bad_values_get_kafkas_answers(broker: Broker) -> None:
    static = incremental(broker, "0", [("num.partitions", SET, "3")])
    assert static["error_code"] == errors.InvalidRequestError.code
    assert static["error_message"] == "Cannot update these configs dynamically: Set(num.partitions)"
    hours = incremental(broker, "", [("log.retention.hours", SET, "1")])
    assert hours["error_message"] == (
        "Cannot update these configs dynamically: Set(log.retention.hours)"
    )
    bad = incremental(broker, "0", [("log.segment.bytes", SET, "100")])
    assert bad["error_code"] == errors.InvalidRequestError.code
    assert bad["error_message"] == (
        "Invalid value 100 for configuration log.segment.bytes: Value must be at least 1048576"
    )
    nan = incremental(broker, "", [("log.retention.ms", SET, "abc")])
    assert nan["error_message"] == (
        "Invalid value abc for configuration log.retention.ms: Not a number of type LONG"
    )
    negative = incremental(broker, "0", [("leader.replication.throttled.rate", SET, "-1")])
    assert negative["error_code"] == errors.InvalidRequestError.code
    other = incremental(broker, "7", [("log.retention.ms", SET, "1")])
    assert other["error_code"] == errors.InvalidRequestError.code
    valid = incremental(broker, "0", [("log.retention.ms", SET, "5")], validate_only=True)
    assert valid["error_code"] == 0
    assert describe(broker, "0")["log.retention.ms"]["value"] is None
    assert stored_levels(broker) == {}


def test_throttles_and_custom_configs_are_kept_and_listed(broker: Broker) -> None:
    ops = [
        ("leader.replication.throttled.rate", SET, "1000"),
        ("follower.replication.throttled.rate", SET, "1000"),
        ("custom.plugin.setting", SET, "x"),
    ]
    assert incremental(broker, "0", ops)["error_code"] == 0
    rows = describe(broker, "0")
    assert rows["leader.replication.throttled.rate"]["value"] == "1000"
    assert rows["leader.replication.throttled.rate"]["config_source"] == DYNAMIC_BROKER
    custom = rows["custom.plugin.setting"]
    assert (custom["value"], custom["is_sensitive"]) == (None, True)
    # What kafka-reassign-partitions --verify sends once a move is done.
    clear = [
        ("leader.replication.throttled.rate", DELETE, None),
        ("follower.replication.throttled.rate", DELETE, None),
        ("replica.alter.log.dirs.io.max.bytes.per.second", DELETE, None),
    ]
    assert incremental(broker, "0", clear)["error_code"] == 0
    assert stored_levels(broker) == {"0": {"custom.plugin.setting": "x"}}


def test_alter_configs_replaces_the_level(broker: Broker) -> None:
    assert incremental(broker, "", [("log.retention.bytes", SET, "10")])["error_code"] == 0
    request = {
        "resources": [
            {
                "resource_type": BROKER,
                "resource_name": "",
                "configs": [{"name": "log.segment.bytes", "value": "2097152"}],
            }
        ],
        "validate_only": False,
    }
    assert call(broker, alter_configs, 2, request)["responses"][0]["error_code"] == 0
    assert stored_levels(broker) == {"<default>": {"log.segment.bytes": "2097152"}}
    assert pushed(broker, "t")[-1]["retention.bytes"] == "-1"


def test_a_config_named_twice_refuses_its_resource(broker: Broker) -> None:
    twice = incremental(
        broker, "", [("log.retention.bytes", SET, "10"), ("log.retention.bytes", DELETE, None)]
    )
    assert twice["error_code"] == errors.InvalidRequestError.code
    assert "duplicate config keys: log.retention.bytes" in twice["error_message"]
    request = {
        "resources": [
            {
                "resource_type": BROKER,
                "resource_name": "",
                "configs": [{"name": "log.segment.bytes", "value": v} for v in ("1", "2")],
            }
        ],
        "validate_only": False,
    }
    (answer,) = call(broker, alter_configs, 2, request)["responses"]
    assert answer["error_code"] == errors.InvalidRequestError.code
    assert stored_levels(broker) == {}
