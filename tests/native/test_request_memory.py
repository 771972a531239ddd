"""`queued.max.request.bytes`: with the request memory smaller than what several connections
send at once, the broker reads their requests in turn (a connection waits for memory before it
reads the next body) and answers every one; nothing is refused or lost."""

from __future__ import annotations

import threading
from collections.abc import Callable

import ferrolog_native
import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.client.connection import Connection
from ferrolog.embedded import EmbeddedBroker

from tests.waiting import wait_until

pytestmark = pytest.mark.native

PRODUCE = 0
TOPIC = "queued"
LIMIT = 200_000  # bytes: one request of 150 kB at a time, while six connections send


def _produce_many(bootstrap: str, count: int, errors: list[object]) -> None:
    host, _, port = bootstrap.rpartition(":")
    conn = Connection(host, int(port), 60, "queued-test")
    batch = ferrolog_native.build_batch([(b"k", b"v" * 150_000, [], 1_700_000_000_000)])
    body = {
        "transactional_id": None,
        "acks": 1,
        "timeout_ms": 30000,
        "topic_data": [{"name": TOPIC, "partition_data": [{"index": 0, "records": batch}]}],
    }
    try:
        for _ in range(count):
            answer = conn.request(PRODUCE, 9, body)["responses"][0]["partition_responses"][0]
            if answer["error_code"] != 0:
                errors.append(answer)
    except Exception as e:  # reported by the test
        errors.append(e)
    finally:
        conn.close()


def _end_offset(bootstrap: str) -> int | None:
    """The partition's log end offset; None while it does not answer yet."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused"})
    try:
        return int(consumer.get_watermark_offsets(TopicPartition(TOPIC, 0), timeout=10)[1])
    except KafkaException:
        return None
    finally:
        consumer.close()


def test_requests_wait_for_memory_and_are_all_answered(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    broker = ferrolog_broker_factory(
        overrides={"socket.request.max.bytes": str(LIMIT), "queued.max.request.bytes": str(LIMIT)}
    )
    bootstrap = broker.bootstrap_servers
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(20)
    # CreateTopics answers once the topic is written and its replica opens just after; the
    # raw senders below do not retry, so they start once the partition answers.
    wait_until(lambda: _end_offset(bootstrap) == 0, 30, what="the new partition to answer")
    errors: list[object] = []
    senders = [
        threading.Thread(target=_produce_many, args=(bootstrap, 5, errors)) for _ in range(6)
    ]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join(120)
    assert errors == []
    assert _end_offset(bootstrap) == 30
