"""The Java client's transactions on ferrolog: Kafka's own TransactionalMessageCopier (the
consume-transform-produce copier of Kafka's transactions system test, here with random
aborts) copies every input record exactly once, and `kafka-producer-perf-test` with a
transactional id commits a transaction every 100 ms. Skipped where Java or the Kafka jars are
absent."""

from __future__ import annotations

import subprocess
import uuid

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from bench.harness import brokers, kafka_dist
from tests.transactions.conftest import create_topic, read_all

pytestmark = pytest.mark.skipif(
    not brokers.jars_available(),
    reason="needs java and Kafka's jars (make kafka-jars fetches them)",
)


def java(main: str, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    command = ["java", "-Xmx256M", "-cp", kafka_dist.classpath(kafka_dist.KAFKA4), main, *args]
    run = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run


def test_transactional_message_copier_copies_exactly_once(bootstrap: str) -> None:
    source, sink = create_topic(bootstrap), create_topic(bootstrap, partitions=3)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(600):
        producer.produce(source, key=f"k{i}".encode(), value=f"v{i}".encode())
    assert producer.flush(30) == 0
    group = f"copier-{uuid.uuid4().hex[:8]}"
    java(
        "org.apache.kafka.tools.TransactionalMessageCopier",
        "--broker-list", bootstrap,
        "--input-topic", source,
        "--input-partition", "0",
        "--output-topic", sink,
        "--consumer-group", group,
        "--transactional-id", f"copier-{uuid.uuid4().hex[:8]}",
        "--transaction-size", "40",
        "--max-messages", "600",
        "--enable-random-aborts",
        "--use-group-metadata",
    )  # fmt: skip
    copied = read_all(bootstrap, sink, "read_committed", 600)
    assert sorted(copied) == sorted(f"v{i}" for i in range(600))
    everything = read_all(bootstrap, sink, "read_uncommitted", 600)
    assert len(everything) >= 600  # and the aborted copies, if a transaction was aborted
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        (committed,) = consumer.committed([TopicPartition(source, 0)], timeout=20)
    finally:
        consumer.close()
    assert committed.offset == 600


def test_producer_perf_test_with_a_transactional_id(bootstrap: str, txn_id: str) -> None:
    topic = create_topic(bootstrap, partitions=2)
    run = java(
        "org.apache.kafka.tools.ProducerPerformance",
        "--topic", topic,
        "--num-records", "20000",
        "--record-size", "100",
        "--throughput", "-1",
        "--transactional-id", txn_id,
        "--transaction-duration-ms", "100",
        "--producer-props", f"bootstrap.servers={bootstrap}",
    )  # fmt: skip
    assert "20000 records sent" in run.stdout
    assert len(read_all(bootstrap, topic, "read_committed", 20000)) == 20000
