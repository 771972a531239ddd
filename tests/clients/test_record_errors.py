"""Per-record errors (KIP-467): a batch refused for some of its records names those records,
with Kafka's texts, and librdkafka fails each message with its own error."""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Callable
from typing import Any

import ferrolog_native
import pytest
from confluent_kafka import KafkaError, Message, Producer
from ferrolog.protocol import decode_response, encode_request

from tests.waiting import wait_until

pytestmark = pytest.mark.native

PRODUCE, MESSAGE_TOO_LARGE, INVALID_TIMESTAMP, INVALID_RECORD = 0, 10, 32, 87


def produce_one_batch(
    bootstrap: str, topic: str, records: list[tuple[bytes | None, int]]
) -> list[Any]:
    """Sends `(key, timestamp)` records as one batch (one flush after a long linger, no
    retries); each message's delivery error, in order."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 1000, "retries": 0})
    # Metadata first, so the records queue up together and leave as one batch at the flush.
    producer.list_topics(topic, timeout=10)
    errors: list[Any] = [None] * len(records)

    def report(index: int) -> Callable[[KafkaError | None, Message], None]:
        def on_delivery(err: KafkaError | None, _msg: Message) -> None:
            errors[index] = err

        return on_delivery

    for i, (key, timestamp) in enumerate(records):
        producer.produce(topic, key=key, value=b"v%d" % i, timestamp=timestamp, partition=0,
                         on_delivery=report(i))  # fmt: skip
    assert producer.flush(30) == 0
    return errors


def produce_raw(bootstrap: str, topic: str, records: list[tuple[bytes | None, int]]) -> Any:
    """One Produce v9 of one batch; the partition's response."""
    batch = ferrolog_native.build_batch([(key, b"v", [], ts) for key, ts in records])
    body = {
        "transactional_id": None,
        "acks": -1,
        "timeout_ms": 5000,
        "topic_data": [{"name": topic, "partition_data": [{"index": 0, "records": batch}]}],
    }
    host, port = bootstrap.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        frame = encode_request(PRODUCE, 9, 1, "record-errors", body)
        s.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", s.recv(4, socket.MSG_WAITALL))[0]
        _, response = decode_response(PRODUCE, 9, s.recv(size, socket.MSG_WAITALL))
    return response["responses"][0]["partition_responses"][0]


def test_keyless_records_of_a_compacted_topic_fail_each_with_its_error(
    bootstrap: str, new_topic: Callable[..., str]
) -> None:
    topic = new_topic(**{"cleanup.policy": "compact"})
    now = int(time.time() * 1000)
    records = [(b"k", now), (None, now), (b"k", now), (None, now)]
    # librdkafka (as against Kafka 4.1) fails the named records with the batch's error and
    # the others with the error that says another record of the batch was at fault; nothing
    # of a refused batch is written.
    errors = produce_one_batch(bootstrap, topic, records)
    assert [e.code() for e in errors] == [
        KafkaError._INVALID_DIFFERENT_RECORD, KafkaError.INVALID_RECORD,
        KafkaError._INVALID_DIFFERENT_RECORD, KafkaError.INVALID_RECORD,
    ]  # fmt: skip
    # Kafka's texts, word for word (as Kafka 4.1 answered the same request).
    response = produce_raw(bootstrap, topic, records)
    assert response["error_code"] == INVALID_RECORD
    assert response["log_start_offset"] == 0
    one = f"Compacted topic cannot accept message without key in topic partition {topic}-0"
    assert response["record_errors"] == [
        {"batch_index": 1, "batch_index_error_message": one},
        {"batch_index": 3, "batch_index_error_message": one},
    ]
    assert response["error_message"] == (
        "One or more records have been rejected due to 2 record errors in total, and only "
        f"showing the first three errors at most: [RecordError(batchIndex=1, message='{one}'), "
        f"RecordError(batchIndex=3, message='{one}')]"
    )


def test_records_with_timestamps_out_of_range_are_named(
    bootstrap: str, new_topic: Callable[..., str]
) -> None:
    topic = new_topic(**{"message.timestamp.before.max.ms": "60000"})
    now = int(time.time() * 1000)
    old = now - 3_600_000
    records = [(b"k", now), (b"k", old), (b"k", now)]
    # librdkafka fails every message of the batch with INVALID_TIMESTAMP (so it does against
    # Kafka 4.1): it names records only for INVALID_RECORD.
    errors = produce_one_batch(bootstrap, topic, records)
    assert [e.code() for e in errors] == [KafkaError.INVALID_TIMESTAMP] * 3
    response = produce_raw(bootstrap, topic, records)
    assert response["error_code"] == INVALID_TIMESTAMP
    [error] = response["record_errors"]
    assert error["batch_index"] == 1
    message = error["batch_index_error_message"]
    assert message.startswith(f"Timestamp {old} of message with offset 1 is out of range. "
                              "The timestamp should be within [")  # fmt: skip
    low, high = (int(x) for x in message.rsplit("[", 1)[1].rstrip("]").split(", "))
    # [now - message.timestamp.before.max.ms, now + message.timestamp.after.max.ms (1 h)]
    assert high - low == 60_000 + 3_600_000
    assert response["error_message"] == (
        "One or more records have been rejected due to invalid timestamp"
    )


def test_other_errors_carry_no_message(bootstrap: str, new_topic: Callable[..., str]) -> None:
    topic = new_topic(**{"max.message.bytes": "100"})
    # The log opens just after CreateTopics answers; a raw request has no client's retries.
    wait_until(
        lambda: produce_raw(bootstrap, topic, [(b"k", int(time.time() * 1000))])["error_code"] == 0,
        what=f"{topic} to take a write",
    )
    response = produce_raw(bootstrap, topic, [(b"k" * 200, int(time.time() * 1000))])
    assert response["error_code"] == MESSAGE_TOO_LARGE
    assert response["record_errors"] == []
    assert response["error_message"] is None
