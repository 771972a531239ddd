"""Topic configs out of Kafka 4.1's bounds, sent by an admin client, are refused as Kafka
refuses them: INVALID_CONFIG with Kafka's message, for CreateTopics, IncrementalAlterConfigs
and AlterConfigs alike; the values at the bounds are taken."""

from __future__ import annotations

import itertools
import warnings

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)
from ferrolog.embedded import EmbeddedBroker

pytestmark = pytest.mark.native

# (name, just outside Kafka's bounds, Kafka 4.1's reason, at the bound)
CASES = [
    ("segment.bytes", "1048575", "Value must be at least 1048576", "1048576"),
    ("segment.bytes", "2147483648", "Not a number of type INT", "2147483647"),
    ("retention.ms", "-2", "Value must be at least -1", "-1"),
    ("min.insync.replicas", "0", "Value must be at least 1", "1"),
    ("max.message.bytes", "-1", "Value must be at least 0", "0"),
    ("segment.ms", "0", "Value must be at least 1", "1"),
    ("segment.index.bytes", "3", "Value must be at least 4", "4"),
    ("min.cleanable.dirty.ratio", "1.01", "Value must be no more than 1", "1"),
    ("cleanup.policy", "bogus", "String must be one of: compact, delete", "compact,delete"),
    (
        "compression.type",
        "brotli",
        "String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer",
        "zstd",
    ),
    (
        "message.timestamp.type",
        "Now",
        "String must be one of: CreateTime, LogAppendTime",
        "LogAppendTime",
    ),
    ("preallocate", "yes", "Expected value to be either true or false", "true"),
]
IDS = [f"{name}={bad}" for name, bad, _, _ in CASES]
_names = (f"bounds-{n}" for n in itertools.count())


def refusal(future: object) -> KafkaError:
    with pytest.raises(KafkaException) as refused:
        future.result()  # type: ignore[attr-defined]
    error: KafkaError = refused.value.args[0]
    return error


@pytest.fixture
def admin(ferrolog_broker: EmbeddedBroker) -> AdminClient:
    return AdminClient({"bootstrap.servers": ferrolog_broker.bootstrap_servers})


@pytest.mark.parametrize(("name", "bad", "reason", "edge"), CASES, ids=IDS)
def test_create_topics_refuses_values_out_of_kafkas_bounds(
    admin: AdminClient, name: str, bad: str, reason: str, edge: str
) -> None:
    topic = next(_names)
    error = refusal(admin.create_topics([NewTopic(topic, 1, 1, config={name: bad})])[topic])
    assert error.code() == KafkaError.INVALID_CONFIG
    assert error.str() == f"Invalid value {bad} for configuration {name}: {reason}"
    admin.create_topics([NewTopic(topic, 1, 1, config={name: edge})])[topic].result(timeout=10)


@pytest.mark.parametrize(("name", "bad", "reason", "edge"), CASES, ids=IDS)
def test_incremental_alter_configs_refuses_values_out_of_kafkas_bounds(
    admin: AdminClient, name: str, bad: str, reason: str, edge: str
) -> None:
    topic = next(_names)
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=10)

    def alter(value: str) -> object:
        entry = ConfigEntry(name, value, incremental_operation=AlterConfigOpType.SET)
        resource = ConfigResource("TOPIC", topic, incremental_configs=[entry])
        return admin.incremental_alter_configs([resource])[resource]

    error = refusal(alter(bad))
    assert error.code() == KafkaError.INVALID_CONFIG
    assert error.str() == f"Invalid value {bad} for configuration {name}: {reason}"
    alter(edge).result(timeout=10)  # type: ignore[attr-defined]
    resource = ConfigResource("TOPIC", topic)
    described = admin.describe_configs([resource])[resource].result(timeout=10)
    assert described[name].value == edge


def test_alter_configs_refuses_a_segment_below_kafkas_floor(admin: AdminClient) -> None:
    topic = next(_names)
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=10)
    resource = ConfigResource("TOPIC", topic, set_config={"segment.bytes": "1048575"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # AlterConfigs is Kafka's older API
        error = refusal(admin.alter_configs([resource])[resource])
    assert error.code() == KafkaError.INVALID_CONFIG
    assert error.str() == (
        "Invalid value 1048575 for configuration segment.bytes: Value must be at least 1048576"
    )


def test_internal_segment_bytes_takes_small_segments_and_is_described(
    admin: AdminClient,
) -> None:
    topic = next(_names)
    config = {"internal.segment.bytes": "1024", "segment.bytes": "2097152"}
    admin.create_topics([NewTopic(topic, 1, 1, config=config)])[topic].result(timeout=10)
    resource = ConfigResource("TOPIC", topic)
    described = admin.describe_configs([resource])[resource].result(timeout=10)
    assert described["internal.segment.bytes"].value == "1024"
    assert described["segment.bytes"].value == "2097152"
    plain = next(_names)
    admin.create_topics([NewTopic(plain, 1, 1)])[plain].result(timeout=10)
    resource = ConfigResource("TOPIC", plain)
    assert "internal.segment.bytes" not in admin.describe_configs([resource])[resource].result()
