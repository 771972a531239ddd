"""DescribeConfigs, AlterConfigs and IncrementalAlterConfigs handlers against the real
controller over a real LocalStore, with the real config table."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from admin_broker import Broker, call
from ferrolog import errors
from ferrolog.handlers import alter_configs, describe_configs, incremental_alter_configs

TOPIC, BROKER = 2, 4
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


@pytest.fixture
def broker(admin_broker: Callable[..., Broker]) -> Broker:
    # A static broker setting, so topic configs can show a STATIC_BROKER_CONFIG source.
    b = admin_broker(**{"log.retention.hours": "24"})
    b.create("t", 1, {"segment.bytes": "1048576"})
    return b


def describe(broker: Broker, version: int = 4, **resource: Any) -> dict[str, Any]:
    request = {
        "resources": [{"configuration_keys": None, **resource}],
        "include_synonyms": resource.pop("synonyms", False),
        "include_documentation": resource.pop("documentation", False),
    }
    request["resources"][0].pop("synonyms", None)
    request["resources"][0].pop("documentation", None)
    result: dict[str, Any] = call(broker, describe_configs, version, request)["results"][0]
    return result


@pytest.mark.parametrize("version", range(1, 5))
def test_describe_topic_sources(broker: Broker, version: int) -> None:
    result = describe(broker, version, resource_type=TOPIC, resource_name="t")
    assert result["error_code"] == 0
    configs = {c["name"]: c for c in result["configs"]}
    assert configs["segment.bytes"]["value"] == "1048576"
    assert configs["segment.bytes"]["config_source"] == 1  # topic override
    assert configs["retention.ms"]["value"] == str(24 * 3_600_000)
    assert configs["retention.ms"]["config_source"] == 4  # static broker config
    assert configs["cleanup.policy"]["config_source"] == 5  # default
    assert not configs["cleanup.policy"]["read_only"]
    assert all(c["synonyms"] == [] and c["documentation"] is None for c in configs.values())


def test_describe_synonyms_and_documentation(broker: Broker) -> None:
    result = describe(
        broker, resource_type=TOPIC, resource_name="t", synonyms=True, documentation=True
    )
    retention = next(c for c in result["configs"] if c["name"] == "retention.ms")
    names = [s["name"] for s in retention["synonyms"]]
    assert names[0] == "log.retention.hours"
    assert retention["synonyms"][0]["source"] == 4
    assert retention["documentation"]
    assert retention["config_type"] == 5  # LONG


def test_describe_only_requested_keys(broker: Broker) -> None:
    result = describe(
        broker,
        resource_type=TOPIC,
        resource_name="t",
        configuration_keys=["retention.ms", "no.such.key"],
    )
    assert [c["name"] for c in result["configs"]] == ["retention.ms"]


def test_describe_unknown_and_invalid_topics(broker: Broker) -> None:
    unknown = describe(broker, resource_type=TOPIC, resource_name="nope")
    assert unknown["error_code"] == errors.UnknownTopicOrPartitionError.code
    assert unknown["configs"] == []
    invalid = describe(broker, resource_type=TOPIC, resource_name="bad/name")
    assert invalid["error_code"] == errors.InvalidTopicError.code
    default = describe(broker, resource_type=TOPIC, resource_name="")
    assert default["error_code"] == errors.InvalidRequestError.code


def test_describe_broker(broker: Broker) -> None:
    result = describe(broker, resource_type=BROKER, resource_name="0", synonyms=True)
    assert result["error_code"] == 0
    configs = {c["name"]: c for c in result["configs"]}
    assert configs["log.retention.hours"]["value"] == "24"
    assert configs["log.retention.hours"]["config_source"] == 4
    assert configs["num.partitions"]["config_source"] == 5
    # Static properties are read-only; Kafka's dynamic ones (log defaults, ...) are not.
    assert configs["num.partitions"]["read_only"]
    assert configs["log.retention.hours"]["read_only"]
    assert not configs["log.retention.ms"]["read_only"]
    assert describe(broker, resource_type=BROKER, resource_name="")["configs"] == []
    other = describe(broker, resource_type=BROKER, resource_name="7")
    assert other["error_code"] == errors.InvalidRequestError.code
    logger = describe(broker, resource_type=8, resource_name="0")
    assert logger["error_code"] == errors.InvalidRequestError.code


def alter(
    broker: Broker, version: int, resources: list[dict[str, Any]], validate_only: bool = False
) -> list[dict[str, Any]]:
    request = {"resources": resources, "validate_only": validate_only}
    responses: list[dict[str, Any]] = call(broker, alter_configs, version, request)["responses"]
    return responses


@pytest.mark.parametrize("version", range(0, 3))
def test_alter_replaces_all_overrides(broker: Broker, version: int) -> None:
    configs = [{"name": "retention.ms", "value": "5000"}]
    result = alter(
        broker, version, [{"resource_type": TOPIC, "resource_name": "t", "configs": configs}]
    )
    assert result[0]["error_code"] == 0
    assert broker.stored()["t"].configs == {"retention.ms": "5000"}  # segment.bytes gone


def test_alter_errors(broker: Broker) -> None:
    broker.create("t2")
    resources = [
        {"resource_type": TOPIC, "resource_name": "nope", "configs": []},
        {
            "resource_type": TOPIC,
            "resource_name": "t",
            "configs": [{"name": "retention.ms", "value": "x"}],
        },
        {
            "resource_type": BROKER,
            "resource_name": "0",
            "configs": [{"name": "log.retention.hours", "value": "1"}],
        },
        {"resource_type": BROKER, "resource_name": "0", "configs": []},
        {
            "resource_type": TOPIC,
            "resource_name": "t2",
            "configs": [{"name": "retention.ms", "value": None}],
        },
    ]
    codes = [r["error_code"] for r in alter(broker, 2, resources)]
    assert codes == [
        errors.UnknownTopicOrPartitionError.code,
        errors.InvalidConfigError.code,
        errors.InvalidRequestError.code,
        errors.InvalidRequestError.code,  # the same resource twice: both refused
        errors.InvalidConfigError.code,
    ]
    assert broker.stored()["t"].configs == {"segment.bytes": "1048576"}


def test_alter_broker_with_nothing_to_change_succeeds(broker: Broker) -> None:
    result = alter(broker, 1, [{"resource_type": BROKER, "resource_name": "0", "configs": []}])
    assert result[0]["error_code"] == 0


def test_alter_validate_only(broker: Broker) -> None:
    configs = [{"name": "retention.ms", "value": "5000"}]
    resource = {"resource_type": TOPIC, "resource_name": "t", "configs": configs}
    assert alter(broker, 0, [resource], validate_only=True)[0]["error_code"] == 0
    assert broker.stored()["t"].configs == {"segment.bytes": "1048576"}


def incremental(
    broker: Broker,
    ops: list[tuple[str, int, str | None]],
    validate_only: bool = False,
    name: str = "t",
    version: int = 1,
) -> dict[str, Any]:
    configs = [{"name": n, "config_operation": op, "value": v} for n, op, v in ops]
    request = {
        "resources": [{"resource_type": TOPIC, "resource_name": name, "configs": configs}],
        "validate_only": validate_only,
    }
    result: dict[str, Any] = call(broker, incremental_alter_configs, version, request)["responses"][
        0
    ]
    return result


@pytest.mark.parametrize("version", [0, 1])
def test_incremental_set_and_delete_keep_other_overrides(broker: Broker, version: int) -> None:
    result = incremental(
        broker, [("retention.ms", SET, "100"), ("segment.bytes", DELETE, None)], version=version
    )
    assert result["error_code"] == 0
    assert broker.stored()["t"].configs == {"retention.ms": "100"}
    incremental(broker, [("max.message.bytes", SET, "2000")])
    assert broker.stored()["t"].configs == {"retention.ms": "100", "max.message.bytes": "2000"}


def test_incremental_append_and_subtract_lists(broker: Broker) -> None:
    assert incremental(broker, [("cleanup.policy", APPEND, "compact")])["error_code"] == 0
    assert broker.stored()["t"].configs["cleanup.policy"] == "delete,compact"
    assert incremental(broker, [("cleanup.policy", APPEND, "compact")])["error_code"] == 0
    assert broker.stored()["t"].configs["cleanup.policy"] == "delete,compact"
    assert incremental(broker, [("cleanup.policy", SUBTRACT, "delete")])["error_code"] == 0
    assert broker.stored()["t"].configs["cleanup.policy"] == "compact"


def test_incremental_errors(broker: Broker) -> None:
    before = dict(broker.stored()["t"].configs)
    not_list = incremental(broker, [("retention.ms", APPEND, "5")])
    assert not_list["error_code"] == errors.InvalidConfigError.code
    bad_op = incremental(broker, [("retention.ms", 9, "5")])
    assert bad_op["error_code"] == errors.InvalidRequestError.code
    dup = incremental(broker, [("retention.ms", SET, "5"), ("retention.ms", DELETE, None)])
    assert dup["error_code"] == errors.InvalidRequestError.code
    null = incremental(broker, [("retention.ms", SET, None)])
    assert null["error_code"] == errors.InvalidConfigError.code
    unknown = incremental(broker, [("retention.ms", SET, "5")], name="nope")
    assert unknown["error_code"] == errors.UnknownTopicOrPartitionError.code
    assert incremental(broker, [("retention.ms", SET, "5")], validate_only=True)["error_code"] == 0
    assert broker.stored()["t"].configs == before


def test_incremental_broker_resource_is_refused(broker: Broker) -> None:
    request = {
        "resources": [
            {
                "resource_type": BROKER,
                "resource_name": "0",
                "configs": [{"name": "num.partitions", "config_operation": SET, "value": "3"}],
            }
        ],
        "validate_only": False,
    }
    result = call(broker, incremental_alter_configs, 1, request)["responses"][0]
    assert result["error_code"] == errors.InvalidRequestError.code
    assert "dynamically" in result["error_message"]


def test_incremental_broker_delete_of_an_unset_config_succeeds(broker: Broker) -> None:
    # What kafka-reassign-partitions --verify sends to clear replication throttles.
    configs = [
        {"name": "leader.replication.throttled.rate", "config_operation": DELETE, "value": None},
        {"name": "follower.replication.throttled.rate", "config_operation": DELETE, "value": None},
    ]
    request = {
        "resources": [{"resource_type": BROKER, "resource_name": "0", "configs": configs}],
        "validate_only": False,
    }
    result = call(broker, incremental_alter_configs, 1, request)["responses"][0]
    assert result["error_code"] == 0
    configs.append({"name": "num.partitions", "config_operation": SET, "value": "3"})
    result = call(broker, incremental_alter_configs, 1, request)["responses"][0]
    assert result["error_code"] == errors.InvalidRequestError.code
    assert "num.partitions" in result["error_message"]
    assert "throttled" not in result["error_message"]


def test_concurrent_incremental_changes_are_not_lost(broker: Broker) -> None:
    def request(name: str, value: str) -> dict[str, Any]:
        config = {"name": name, "config_operation": SET, "value": value}
        return {
            "resources": [{"resource_type": TOPIC, "resource_name": "t", "configs": [config]}],
            "validate_only": False,
        }

    async def both() -> list[dict[str, Any]]:
        ctx = broker.ctx(incremental_alter_configs.API_KEY, 1)
        return await asyncio.gather(
            incremental_alter_configs.handle(ctx, request("retention.ms", "1")),
            incremental_alter_configs.handle(ctx, request("max.message.bytes", "2048")),
        )

    broker.run(both())
    assert broker.stored()["t"].configs == {
        "segment.bytes": "1048576",
        "retention.ms": "1",
        "max.message.bytes": "2048",
    }
