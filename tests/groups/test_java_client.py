"""The Java client's classic consumer group (Kafka 4.4's console consumer: JoinGroup v9,
OffsetCommit and OffsetFetch v9 with their KIP-848 fields) shares and resumes a group on
ferrolog. Skipped where Java or the Kafka jars (fetched by the bench harness) are absent."""

from __future__ import annotations

import subprocess

import pytest
from confluent_kafka import Consumer, TopicPartition

from bench.harness import brokers, kafka_dist
from tests.groups.conftest import create_topic, produce

pytestmark = pytest.mark.skipif(
    not brokers.jars_available(),
    reason="needs java and Kafka's jars (make bench-quick fetches them)",
)


def console_consumer(
    bootstrap: str, topic: str, group: str, count: int, protocol: str = "classic"
) -> list[str]:
    command = [
        "java",
        "-Xmx256M",
        "-cp",
        kafka_dist.classpath(kafka_dist.KAFKA4),
        "org.apache.kafka.tools.consumer.ConsoleConsumer",
        "--bootstrap-server",
        bootstrap,
        "--topic",
        topic,
        "--group",
        group,
        "--max-messages",
        str(count),
        "--timeout-ms",
        "30000",
        "--command-property",
        "auto.offset.reset=earliest",
        "--command-property",
        f"group.protocol={protocol}",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_java_consumer_group_commits_and_resumes(bootstrap: str, group_id: str) -> None:
    topic = create_topic(bootstrap, partitions=3)
    produce(bootstrap, topic, per_partition=10, partitions=3)
    first = console_consumer(bootstrap, topic, group_id, 12)
    assert len(first) == 12
    reader = Consumer({"bootstrap.servers": bootstrap, "group.id": group_id})
    try:
        committed = reader.committed([TopicPartition(topic, p) for p in range(3)], timeout=10)
    finally:
        reader.close()
    assert sum(max(tp.offset, 0) for tp in committed) == 12
    second = console_consumer(bootstrap, topic, group_id, 18)
    assert sorted(first + second) == sorted(f"{p}-{i}" for p in range(3) for i in range(10))
