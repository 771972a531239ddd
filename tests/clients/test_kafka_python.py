"""kafka-python against ferrolog: every codec, headers, timestamps, offsets by time, admin."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic

CODECS = [None, "gzip", "snappy", "lz4", "zstd"]


def consume(bootstrap: str, topic: str, count: int, partition: int = 0) -> list:
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, consumer_timeout_ms=20_000
    )
    tp = TopicPartition(topic, partition)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    out = []
    for msg in consumer:
        out.append(msg)
        if len(out) >= count:
            break
    consumer.close()
    return out


@pytest.mark.parametrize("codec", CODECS)
def test_round_trip(bootstrap: str, new_topic: Callable[..., str], codec: str | None) -> None:
    topic = new_topic()
    producer = KafkaProducer(bootstrap_servers=bootstrap, compression_type=codec, linger_ms=5)
    futures = [
        producer.send(
            topic,
            key=f"k{i}".encode(),
            value=f"v{i}".encode() * 10,
            headers=[("n", str(i).encode())],
            timestamp_ms=1_700_000_000_000 + i,
        )
        for i in range(300)
    ]
    producer.flush(30)
    offsets = sorted(f.get(timeout=30).offset for f in futures)
    producer.close()
    assert offsets == list(range(300))

    got = consume(bootstrap, topic, 300)
    assert [m.offset for m in got] == list(range(300))
    for i, m in enumerate(got):
        assert m.key == f"k{i}".encode()
        assert m.value == f"v{i}".encode() * 10
        assert m.headers == [("n", str(i).encode())]
        assert m.timestamp == 1_700_000_000_000 + i


def test_idempotent_producer(bootstrap: str, new_topic: Callable[..., str]) -> None:
    topic = new_topic()
    producer = KafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True, acks="all")
    futures = [producer.send(topic, value=b"x" * 50) for _ in range(1000)]
    producer.flush(30)
    assert sorted(f.get(timeout=30).offset for f in futures) == list(range(1000))
    producer.close()


def test_offsets_for_times_and_end_offsets(bootstrap: str, new_topic: Callable[..., str]) -> None:
    topic = new_topic()
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for i in range(50):
        producer.send(topic, value=b"x", timestamp_ms=1_500_000_000_000 + i * 10)
    producer.flush(30)
    producer.close()
    consumer = KafkaConsumer(bootstrap_servers=bootstrap)
    tp = TopicPartition(topic, 0)
    found = consumer.offsets_for_times({tp: 1_500_000_000_000 + 205})
    assert found[tp].offset == 21
    assert consumer.end_offsets([tp])[tp] == 50
    assert consumer.beginning_offsets([tp])[tp] == 0
    consumer.close()


def test_admin(bootstrap: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    name = f"kp-{uuid.uuid4().hex[:8]}"
    admin.create_topics(
        [
            NewTopic(
                name,
                num_partitions=3,
                replication_factor=1,
                topic_configs={"retention.ms": "3600000"},
            )
        ]
    )
    assert name in admin.list_topics()
    admin.delete_topics([name])
    admin.close()
