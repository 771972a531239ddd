"""librdkafka (confluent-kafka) against ferrolog: codecs, keys, null values, headers,
timestamps, idempotence, long polls, ListOffsets by timestamp, topic admin."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable

import pytest
from confluent_kafka import (
    OFFSET_END,
    Consumer,
    KafkaError,
    Message,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from tests.consume import read
from tests.waiting import wait_until

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


def produce(bootstrap: str, topic: str, records: list[dict], **conf: object) -> list[Message]:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, **conf})
    delivered: list[Message] = []
    errors: list[KafkaError] = []

    def on_delivery(err: KafkaError | None, msg: Message) -> None:
        if err is not None:
            errors.append(err)
        else:
            delivered.append(msg)

    for record in records:
        producer.produce(topic, on_delivery=on_delivery, **record)
    assert producer.flush(30) == 0
    assert errors == []
    return delivered


def consumer(bootstrap: str, **conf: object) -> Consumer:
    # librdkafka insists on a group id even for assign(); nothing is committed.
    return Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"g-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "enable.partition.eof": False,
            **conf,
        }
    )


@pytest.mark.parametrize("codec", CODECS)
def test_round_trip_every_codec(bootstrap: str, new_topic: Callable[..., str], codec: str) -> None:
    topic = new_topic()
    records = [
        {
            "key": f"k{i}".encode(),
            "value": f"value-{i}-".encode() * (i % 7 + 1),
            "headers": [("h", f"{i}".encode()), ("empty", None)],
            "timestamp": 1_700_000_000_000 + i,
        }
        for i in range(500)
    ]
    delivered = produce(bootstrap, topic, records, **{"compression.type": codec})
    offsets = sorted(m.offset() for m in delivered)
    assert offsets == list(range(500))

    (got,) = read(bootstrap, topic, count=500).values()
    assert [m.offset() for m in got] == list(range(500))
    for i, msg in enumerate(got):
        assert msg.key() == f"k{i}".encode()
        assert msg.value() == f"value-{i}-".encode() * (i % 7 + 1)
        assert msg.headers() == [("h", f"{i}".encode()), ("empty", None)]
        assert msg.timestamp()[1] == 1_700_000_000_000 + i


def test_null_keys_and_values(bootstrap: str, new_topic: Callable[..., str]) -> None:
    topic = new_topic()
    produce(
        bootstrap,
        topic,
        [
            {"key": None, "value": None},
            {"key": b"k", "value": None},
            {"key": None, "value": b"v"},
            {"key": b"", "value": b""},
        ],
    )
    (got,) = read(bootstrap, topic, count=4).values()
    assert [(m.key(), m.value()) for m in got] == [
        (None, None),
        (b"k", None),
        (None, b"v"),
        (b"", b""),
    ]


def test_idempotent_producer(bootstrap: str, new_topic: Callable[..., str]) -> None:
    topic = new_topic(partitions=3)
    records = [{"key": f"{i}".encode(), "value": b"x" * 100} for i in range(3000)]
    delivered = produce(bootstrap, topic, records, **{"enable.idempotence": True, "acks": "all"})
    assert len(delivered) == 3000
    per_partition: dict[int, list[int]] = {}
    for m in delivered:
        per_partition.setdefault(m.partition(), []).append(m.offset())
    for offsets in per_partition.values():
        assert sorted(offsets) == list(range(len(offsets)))
    stored = read(bootstrap, topic, 3)
    assert {p: [m.offset() for m in stored[p]] for p in stored} == {
        p: sorted(offsets) for p, offsets in per_partition.items()
    }


@pytest.mark.parametrize("acks", ["0", "1", "all"])
def test_acks_levels(bootstrap: str, new_topic: Callable[..., str], acks: str) -> None:
    topic = new_topic()
    produce(bootstrap, topic, [{"value": f"{i}".encode()} for i in range(200)], acks=acks)
    (got,) = read(bootstrap, topic, count=200).values()
    assert sorted(int(m.value()) for m in got) == list(range(200))


def test_long_poll_delivers_new_records(bootstrap: str, new_topic: Callable[..., str]) -> None:
    topic = new_topic()
    c = consumer(bootstrap, **{"fetch.wait.max.ms": 5000})
    c.assign([TopicPartition(topic, 0, OFFSET_END)])
    # Let the consumer reach the end and park a long-poll fetch before the produce.
    assert c.poll(1.0) is None

    def later() -> None:
        # Time on purpose, not a condition: the consumer's fetch must be parked on the broker
        # (for up to fetch.wait.max.ms) when the record arrives, which no client API shows.
        time.sleep(0.5)
        produce(bootstrap, topic, [{"value": b"late"}])

    t = threading.Thread(target=later)
    t.start()
    msg = None
    deadline = time.monotonic() + 20
    while msg is None and time.monotonic() < deadline:
        msg = c.poll(0.5)
    t.join()
    c.close()
    assert msg is not None
    assert msg.error() is None
    assert msg.value() == b"late"


def test_offsets_for_times(bootstrap: str, new_topic: Callable[..., str]) -> None:
    topic = new_topic()
    base = 1_600_000_000_000
    produce(
        bootstrap,
        topic,
        [{"value": f"{i}".encode(), "timestamp": base + i * 1000} for i in range(100)],
        **{"batch.num.messages": 10},
    )
    c = consumer(bootstrap)
    try:
        found = c.offsets_for_times([TopicPartition(topic, 0, base + 42_500)], timeout=10)
        assert found[0].offset == 43
        found = c.offsets_for_times([TopicPartition(topic, 0, base)], timeout=10)
        assert found[0].offset == 0
        found = c.offsets_for_times([TopicPartition(topic, 0, base + 10**9)], timeout=10)
        assert found[0].offset == -1  # no record that new: Kafka answers -1 (end)
        low, high = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        assert (low, high) == (0, 100)
    finally:
        c.close()


def test_topic_admin(bootstrap: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    name = f"adm-{uuid.uuid4().hex[:8]}"
    admin.create_topics([NewTopic(name, num_partitions=2, replication_factor=1)])[name].result(20)
    md = admin.list_topics(timeout=10)
    assert name in md.topics
    assert len(md.topics[name].partitions) == 2
    admin.create_partitions([NewPartitions(name, 5)])[name].result(20)
    assert len(admin.list_topics(timeout=10).topics[name].partitions) == 5
    admin.delete_topics([name])[name].result(20)
    wait_until(lambda: name not in admin.list_topics(timeout=10).topics, 10, what="the deletion")
    assert name not in admin.list_topics(timeout=10).topics
