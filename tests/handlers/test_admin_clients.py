"""The admin APIs end to end, through real clients against the embedded broker:
confluent-kafka's AdminClient (librdkafka) and kafka-python's KafkaAdminClient."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewPartitions,
    NewTopic,
    ResourceType,
)

TIMEOUT = 20


@pytest.fixture
def bootstrap(ferrolog_broker) -> str:  # type: ignore[no-untyped-def]
    return str(ferrolog_broker.bootstrap_servers)


@pytest.fixture
def admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap})


def fresh_name() -> str:
    return f"adm-{uuid.uuid4().hex[:10]}"


def create(admin: AdminClient, name: str, partitions: int = 1, **configs: str) -> None:
    futures = admin.create_topics(
        [NewTopic(name, num_partitions=partitions, replication_factor=1, config=configs)],
        operation_timeout=TIMEOUT,
    )
    futures[name].result(timeout=TIMEOUT)


def topic_configs(admin: AdminClient, name: str) -> dict[str, ConfigEntry]:
    resource = ConfigResource(ResourceType.TOPIC, name)
    entries: dict[str, ConfigEntry] = admin.describe_configs([resource])[resource].result(
        timeout=TIMEOUT
    )
    return entries


def error_name(exc_info: pytest.ExceptionInfo[KafkaException]) -> str:
    return str(exc_info.value.args[0].name())


# -- confluent-kafka ---------------------------------------------------------------------------


def test_create_describe_delete_topic(admin: AdminClient) -> None:
    name = fresh_name()
    create(admin, name, 3, **{"retention.ms": "3600000"})
    metadata = admin.list_topics(name, timeout=TIMEOUT)
    assert sorted(metadata.topics[name].partitions) == [0, 1, 2]

    with pytest.raises(KafkaException) as exc_info:
        create(admin, name)
    assert error_name(exc_info) == "TOPIC_ALREADY_EXISTS"

    configs = topic_configs(admin, name)
    assert configs["retention.ms"].value == "3600000"
    assert configs["retention.ms"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert configs["cleanup.policy"].source == ConfigSource.DEFAULT_CONFIG.value

    admin.delete_topics([name], operation_timeout=TIMEOUT)[name].result(timeout=TIMEOUT)
    assert name not in admin.list_topics(timeout=TIMEOUT).topics
    with pytest.raises(KafkaException) as exc_info:
        admin.delete_topics([name], operation_timeout=TIMEOUT)[name].result(timeout=TIMEOUT)
    assert error_name(exc_info) == "UNKNOWN_TOPIC_OR_PART"


def test_create_with_broker_defaults_and_invalid_requests(admin: AdminClient) -> None:
    name = fresh_name()
    futures = admin.create_topics([NewTopic(name)], operation_timeout=TIMEOUT)  # -1, -1
    futures[name].result(timeout=TIMEOUT)
    assert len(admin.list_topics(name, timeout=TIMEOUT).topics[name].partitions) >= 1

    bad = NewTopic(fresh_name(), 1, 1, config={"retention.ms": "later"})
    with pytest.raises(KafkaException) as exc_info:
        admin.create_topics([bad])[bad.topic].result(timeout=TIMEOUT)
    assert error_name(exc_info) == "INVALID_CONFIG"

    checked = NewTopic(fresh_name(), 2, 1)
    admin.create_topics([checked], validate_only=True)[checked.topic].result(timeout=TIMEOUT)
    assert checked.topic not in admin.list_topics(timeout=TIMEOUT).topics


def test_create_partitions(admin: AdminClient) -> None:
    name = fresh_name()
    create(admin, name, 1)
    futures = admin.create_partitions([NewPartitions(name, 4)], operation_timeout=TIMEOUT)
    futures[name].result(timeout=TIMEOUT)
    assert len(admin.list_topics(name, timeout=TIMEOUT).topics[name].partitions) == 4
    with pytest.raises(KafkaException) as exc_info:
        admin.create_partitions([NewPartitions(name, 2)])[name].result(timeout=TIMEOUT)
    assert error_name(exc_info) == "INVALID_PARTITIONS"


def test_incremental_alter_configs(admin: AdminClient) -> None:
    name = fresh_name()
    create(admin, name, 1, **{"retention.ms": "1000", "segment.ms": "600000"})
    ops = [
        ConfigEntry("retention.ms", "2000", incremental_operation=AlterConfigOpType.SET),
        ConfigEntry("segment.ms", None, incremental_operation=AlterConfigOpType.DELETE),
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND),
    ]
    resource = ConfigResource(ResourceType.TOPIC, name, incremental_configs=ops)
    admin.incremental_alter_configs([resource])[resource].result(timeout=TIMEOUT)
    configs = topic_configs(admin, name)
    assert configs["retention.ms"].value == "2000"
    assert configs["segment.ms"].source == ConfigSource.DEFAULT_CONFIG.value
    assert configs["cleanup.policy"].value == "delete,compact"

    broker = ConfigResource(
        ResourceType.BROKER,
        "0",
        incremental_configs=[
            ConfigEntry("num.partitions", "7", incremental_operation=AlterConfigOpType.SET)
        ],
    )
    with pytest.raises(KafkaException) as exc_info:
        admin.incremental_alter_configs([broker])[broker].result(timeout=TIMEOUT)
    assert error_name(exc_info) == "INVALID_REQUEST"


def test_describe_broker_configs_and_cluster(admin: AdminClient) -> None:
    cluster = admin.describe_cluster(request_timeout=TIMEOUT).result(timeout=TIMEOUT)
    assert cluster.cluster_id
    assert [node.id for node in cluster.nodes] == [cluster.controller.id]
    broker_id = str(cluster.controller.id)
    resource = ConfigResource(ResourceType.BROKER, broker_id)
    configs = admin.describe_configs([resource])[resource].result(timeout=TIMEOUT)
    assert configs["num.partitions"].is_read_only
    assert "log.dirs" in configs


def test_delete_records(admin: AdminClient, bootstrap: str) -> None:
    name = fresh_name()
    create(admin, name, 1)
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(10):
        producer.produce(name, value=f"v{i}".encode(), partition=0)
    assert producer.flush(TIMEOUT) == 0
    futures = admin.delete_records([TopicPartition(name, 0, 4)], request_timeout=TIMEOUT)
    deleted = next(iter(futures.values())).result(timeout=TIMEOUT)
    assert deleted.low_watermark == 4
    futures = admin.delete_records([TopicPartition(name, 0, 50)], request_timeout=TIMEOUT)
    with pytest.raises(KafkaException) as exc_info:
        next(iter(futures.values())).result(timeout=TIMEOUT)
    assert error_name(exc_info) == "OFFSET_OUT_OF_RANGE"


# -- kafka-python ------------------------------------------------------------------------------


@pytest.fixture
def kp_admin(bootstrap: str) -> Iterator[object]:
    from kafka.admin import KafkaAdminClient

    client = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=TIMEOUT * 1000)
    yield client
    client.close()


def test_kafka_python_topic_admin(kp_admin: object) -> None:
    from kafka.admin import ConfigResource as KpResource
    from kafka.admin import ConfigResourceType
    from kafka.admin import NewTopic as KpNewTopic
    from kafka.errors import TopicAlreadyExistsError

    client = kp_admin
    name = fresh_name()
    client.create_topics(  # type: ignore[attr-defined]
        [
            KpNewTopic(
                name, num_partitions=2, replication_factor=1, topic_configs={"retention.ms": "5000"}
            )
        ]
    )
    assert name in client.list_topics()  # type: ignore[attr-defined]
    with pytest.raises(TopicAlreadyExistsError):
        client.create_topics([KpNewTopic(name, 1, 1)])  # type: ignore[attr-defined]

    described = client.describe_configs(  # type: ignore[attr-defined]
        [KpResource(ConfigResourceType.TOPIC, name)]
    )
    # kafka-python 3 shapes the answer as {type: {name: {key: entry}}}; by default only the
    # keys that differ from their defaults.
    entry = described["topic"][name]["retention.ms"]
    assert entry["value"] == "5000"
    assert entry["config_source"] == "DYNAMIC_TOPIC_CONFIG"
    assert "cleanup.policy" not in described["topic"][name]

    client.alter_configs(  # type: ignore[attr-defined]
        [KpResource(ConfigResourceType.TOPIC, name, configs={"retention.ms": "7000"})]
    )
    described = client.describe_configs(  # type: ignore[attr-defined]
        [KpResource(ConfigResourceType.TOPIC, name)]
    )
    assert described["topic"][name]["retention.ms"]["value"] == "7000"

    log_dirs = client.describe_log_dirs()  # type: ignore[attr-defined]
    dirs = log_dirs[0]["log_dirs"]
    assert len(dirs) == 1
    assert dirs[0]["total_bytes"] >= dirs[0]["usable_bytes"] > 0
    ours = [t for t in dirs[0]["topics"] if t["name"] == name]
    assert sorted(p["partition_index"] for p in ours[0]["partitions"]) == [0, 1]

    cluster = client.describe_cluster()  # type: ignore[attr-defined]
    assert cluster["controller_id"] == cluster["brokers"][0]["broker_id"]
    assert cluster["cluster_id"]

    client.delete_topics([name])  # type: ignore[attr-defined]
    assert name not in client.list_topics()  # type: ignore[attr-defined]
