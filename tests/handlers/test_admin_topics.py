"""CreateTopics, DeleteTopics and CreatePartitions handlers against the real controller over a
real LocalStore; every response is also encoded at each supported version."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from admin_broker import Broker, call
from ferrolog import errors
from ferrolog.handlers import create_partitions, create_topics, delete_topics


@pytest.fixture
def broker(admin_broker: Callable[..., Broker]) -> Broker:
    return admin_broker(**{"num.partitions": "3"})


def topic(name: str, partitions: int = -1, factor: int = -1, **kw: Any) -> dict[str, Any]:
    return {
        "name": name,
        "num_partitions": partitions,
        "replication_factor": factor,
        "assignments": kw.get("assignments", []),
        "configs": kw.get("configs", []),
    }


def test_create_with_defaults_reports_layout_and_configs(broker: Broker) -> None:
    request = {
        "topics": [topic("orders", configs=[{"name": "retention.ms", "value": "1000"}])],
        "timeout_ms": 1000,
        "validate_only": False,
    }
    result = call(broker, create_topics, 7, request)["topics"][0]
    assert result["error_code"] == 0
    assert result["num_partitions"] == 3  # num.partitions
    assert result["replication_factor"] == 1
    record = broker.stored()["orders"]
    assert result["topic_id"] == record.topic_id != bytes(16)
    configs = {c["name"]: c for c in result["configs"]}
    assert configs["retention.ms"]["value"] == "1000"
    assert configs["retention.ms"]["config_source"] == 1  # topic override
    assert configs["cleanup.policy"]["config_source"] == 5  # default
    assert record.configs == {"retention.ms": "1000"}


@pytest.mark.parametrize("version", range(create_topics.MIN_VERSION, create_topics.MAX_VERSION + 1))
def test_create_at_every_version(broker: Broker, version: int) -> None:
    request = {"topics": [topic("t", 2), topic("t2", 0)], "timeout_ms": 1000}
    results = call(broker, create_topics, version, request)["topics"]
    assert [r["error_code"] for r in results] == [0, errors.InvalidPartitionsError.code]


@pytest.mark.parametrize("version", range(delete_topics.MIN_VERSION, delete_topics.MAX_VERSION + 1))
def test_delete_at_every_version(broker: Broker, version: int) -> None:
    call(broker, create_topics, 7, {"topics": [topic("x")]})
    if version >= 6:
        request = {"topics": [{"name": "x", "topic_id": bytes(16)}, {"name": "y"}]}
    else:
        request = {"topic_names": ["x", "y"]}
    results = call(broker, delete_topics, version, request)["responses"]
    assert [r["error_code"] for r in results] == [0, errors.UnknownTopicOrPartitionError.code]


def test_create_existing_topic_is_an_error_per_topic(broker: Broker) -> None:
    call(broker, create_topics, 7, {"topics": [topic("a")]})
    response = call(broker, create_topics, 4, {"topics": [topic("a"), topic("b", 2)]})
    by_name = {t["name"]: t for t in response["topics"]}
    assert by_name["a"]["error_code"] == errors.TopicAlreadyExistsError.code
    assert "already exists" in by_name["a"]["error_message"]
    assert by_name["b"]["error_code"] == 0
    assert len(broker.stored()["b"].assignment) == 2


def test_validate_only_creates_nothing(broker: Broker) -> None:
    response = call(broker, create_topics, 5, {"topics": [topic("v", 2)], "validate_only": True})
    assert response["topics"][0]["error_code"] == 0
    assert response["topics"][0]["num_partitions"] == 2
    assert "v" not in broker.stored()


def test_manual_assignment_goes_to_the_controller(broker: Broker) -> None:
    assignments = [
        {"partition_index": 0, "broker_ids": [0]},
        {"partition_index": 1, "broker_ids": [0]},
    ]
    response = call(broker, create_topics, 7, {"topics": [topic("m", assignments=assignments)]})
    assert response["topics"][0]["error_code"] == 0
    assert broker.stored()["m"].assignment == {0: [0], 1: [0]}


def test_assignment_with_counts_is_refused(broker: Broker) -> None:
    assignments = [{"partition_index": 0, "broker_ids": [0]}]
    response = call(broker, create_topics, 7, {"topics": [topic("x", 1, assignments=assignments)]})
    assert response["topics"][0]["error_code"] == errors.InvalidRequestError.code
    assert broker.stored() == {}
    assert broker.native.calls == []


def test_bad_config_and_null_config_are_invalid_config(broker: Broker) -> None:
    request = {
        "topics": [
            topic("c1", configs=[{"name": "retention.ms", "value": "soon"}]),
            topic("c2", configs=[{"name": "retention.ms", "value": None}]),
        ]
    }
    codes = [t["error_code"] for t in call(broker, create_topics, 7, request)["topics"]]
    assert codes == [errors.InvalidConfigError.code] * 2
    assert broker.stored() == {}


def test_duplicate_names_are_refused_once(broker: Broker) -> None:
    response = call(broker, create_topics, 7, {"topics": [topic("d"), topic("d")]})
    assert [t["error_code"] for t in response["topics"]] == [errors.InvalidRequestError.code]
    assert "d" not in broker.stored()


def test_failed_create_reports_no_layout(broker: Broker) -> None:
    response = call(broker, create_topics, 7, {"topics": [topic("r", 1, 3)]})
    result = response["topics"][0]
    assert result["error_code"] == errors.InvalidReplicationFactorError.code
    assert (result["num_partitions"], result["replication_factor"]) == (-1, -1)
    assert result["configs"] is None


def test_delete_by_name_old_versions(broker: Broker) -> None:
    call(broker, create_topics, 7, {"topics": [topic("gone")]})
    response = call(broker, delete_topics, 4, {"topic_names": ["gone", "never"], "timeout_ms": 1})
    codes = {r["name"]: r["error_code"] for r in response["responses"]}
    assert codes == {"gone": 0, "never": errors.UnknownTopicOrPartitionError.code}
    assert "gone" not in broker.stored()


def test_delete_by_topic_id_v6(broker: Broker) -> None:
    call(broker, create_topics, 7, {"topics": [topic("byid"), topic("byname")]})
    topic_id = broker.stored()["byid"].topic_id
    request = {
        "topics": [
            {"name": None, "topic_id": topic_id},
            {"name": "byname", "topic_id": bytes(16)},
            {"name": None, "topic_id": b"\x01" * 16},
            {"name": "other", "topic_id": topic_id},
        ]
    }
    results = call(broker, delete_topics, 6, request)["responses"]
    assert results[0] == {
        "name": "byid",
        "topic_id": topic_id,
        "error_code": 0,
        "error_message": None,
    }
    assert results[1]["error_code"] == 0
    assert results[2]["error_code"] == errors.UnknownTopicIdError.code
    assert results[2]["name"] is None
    assert results[3]["error_code"] == errors.InvalidRequestError.code
    assert broker.stored() == {}


def test_delete_disabled(admin_broker: Callable[..., Broker]) -> None:
    broker = admin_broker(**{"delete.topic.enable": "false"})
    call(broker, create_topics, 7, {"topics": [topic("kept")]})
    response = call(broker, delete_topics, 5, {"topic_names": ["kept"]})
    assert response["responses"][0]["error_code"] == errors.TopicDeletionDisabledError.code
    response = call(broker, delete_topics, 2, {"topic_names": ["kept"]})
    assert response["responses"][0]["error_code"] == errors.InvalidRequestError.code
    assert "kept" in broker.stored()


def test_create_partitions(broker: Broker) -> None:
    call(broker, create_topics, 7, {"topics": [topic("grow", 1), topic("placed", 1)]})
    request = {
        "topics": [
            {"name": "grow", "count": 4, "assignments": None},
            {"name": "missing", "count": 2, "assignments": None},
            {"name": "grow2", "count": 1, "assignments": [{"broker_ids": [0]}]},
            {"name": "placed", "count": 2, "assignments": [{"broker_ids": [0]}]},
        ],
        "timeout_ms": 1000,
        "validate_only": False,
    }
    results = call(broker, create_partitions, 3, request)["results"]
    assert [r["error_code"] for r in results] == [
        0,
        errors.UnknownTopicOrPartitionError.code,
        errors.UnknownTopicOrPartitionError.code,
        0,
    ]
    assert len(broker.stored()["grow"].assignment) == 4
    # The given replica lists reach the controller as the new partitions' placement.
    assert broker.stored()["placed"].assignment == {0: [0], 1: [0]}


def test_create_partitions_validate_only_and_shrink(broker: Broker) -> None:
    call(broker, create_topics, 7, {"topics": [topic("g", 2)]})
    request = {"topics": [{"name": "g", "count": 5, "assignments": None}], "validate_only": True}
    assert call(broker, create_partitions, 0, request)["results"][0]["error_code"] == 0
    assert len(broker.stored()["g"].assignment) == 2
    request = {"topics": [{"name": "g", "count": 1, "assignments": None}]}
    result = call(broker, create_partitions, 1, request)["results"][0]
    assert result["error_code"] == errors.InvalidPartitionsError.code
    assert result["error_message"]
