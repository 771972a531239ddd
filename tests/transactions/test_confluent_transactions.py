"""confluent-kafka's transactional producer end to end: commit and abort across partitions,
read_committed against read_uncommitted consumers, offsets sent to the transaction, zombie
fencing, and a transaction left open by a killed producer aborted at its timeout."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition

from tests.transactions.conftest import (
    create_topic,
    read_all,
    transactional_producer,
)
from tests.waiting import wait_until


def test_committed_records_are_read_by_both_isolation_levels(bootstrap: str, txn_id: str) -> None:
    topic = create_topic(bootstrap, partitions=3)
    producer = transactional_producer(bootstrap, txn_id)
    producer.begin_transaction()
    for i in range(30):
        producer.produce(topic, value=f"c{i}".encode(), partition=i % 3)
    producer.commit_transaction(30)
    expected = sorted(f"c{i}" for i in range(30))
    assert sorted(read_all(bootstrap, topic, "read_committed", 30)) == expected
    assert sorted(read_all(bootstrap, topic, "read_uncommitted", 30)) == expected


def test_aborted_records_are_hidden_from_read_committed(bootstrap: str, txn_id: str) -> None:
    topic = create_topic(bootstrap, partitions=2)
    producer = transactional_producer(bootstrap, txn_id)
    producer.begin_transaction()
    for i in range(10):
        producer.produce(topic, value=f"a{i}".encode(), partition=i % 2)
    producer.flush(20)
    producer.abort_transaction(30)
    producer.begin_transaction()
    for i in range(6):
        producer.produce(topic, value=f"c{i}".encode(), partition=i % 2)
    producer.commit_transaction(30)
    committed = read_all(bootstrap, topic, "read_committed", 6)
    assert sorted(committed) == sorted(f"c{i}" for i in range(6))
    everything = read_all(bootstrap, topic, "read_uncommitted", 16)
    assert sorted(everything) == sorted([f"a{i}" for i in range(10)] + [f"c{i}" for i in range(6)])


def _copy(bootstrap: str, source: str, sink: str, group: str, txn_id: str, commit: bool) -> int:
    """Consumes all of `source`, writes each record to `sink` and the consumed offsets to
    the transaction, then commits or aborts it; returns the offset it sent."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
        }
    )
    producer = transactional_producer(bootstrap, txn_id)
    try:
        consumer.subscribe([source])
        seen = 0
        producer.begin_transaction()
        deadline = time.monotonic() + 30
        while seen < 10 and time.monotonic() < deadline:
            m = consumer.poll(0.2)
            if m is None or m.error() is not None:
                continue
            producer.produce(sink, value=m.value().upper())
            seen += 1
        assert seen == 10
        positions = consumer.position(consumer.assignment())
        producer.send_offsets_to_transaction(positions, consumer.consumer_group_metadata(), 30)
        if commit:
            producer.commit_transaction(30)
        else:
            producer.abort_transaction(30)
        return int(positions[0].offset)
    finally:
        consumer.close()


def _committed(bootstrap: str, group: str, topic: str) -> int:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        (tp,) = consumer.committed([TopicPartition(topic, 0)], timeout=20)
        return int(tp.offset)
    finally:
        consumer.close()


def test_consume_transform_produce_commits_output_and_offsets_together(
    bootstrap: str, txn_id: str
) -> None:
    source, sink = create_topic(bootstrap), create_topic(bootstrap)
    producer = transactional_producer(bootstrap, f"{txn_id}-input")
    producer.begin_transaction()
    for i in range(10):
        producer.produce(source, value=f"r{i}".encode())
    producer.commit_transaction(30)
    group = f"g-{txn_id}"

    _copy(bootstrap, source, sink, group, txn_id, commit=False)
    assert read_all(bootstrap, sink, "read_committed") == []
    assert _committed(bootstrap, group, source) < 0  # the aborted offsets were dropped

    sent = _copy(bootstrap, source, sink, group, txn_id, commit=True)
    assert sent >= 10
    assert sorted(read_all(bootstrap, sink, "read_committed", 10)) == sorted(
        f"R{i}" for i in range(10)
    )
    assert _committed(bootstrap, group, source) == sent


def test_a_second_producer_fences_the_first(bootstrap: str, txn_id: str) -> None:
    topic = create_topic(bootstrap, partitions=2)
    zombie = transactional_producer(bootstrap, txn_id)
    zombie.begin_transaction()
    for i in range(5):
        zombie.produce(topic, value=f"z{i}".encode(), partition=i % 2)
    zombie.flush(20)
    successor = transactional_producer(bootstrap, txn_id)
    successor.begin_transaction()
    successor.produce(topic, value=b"s0", partition=0)
    successor.commit_transaction(30)
    with pytest.raises(KafkaException) as failure:
        zombie.commit_transaction(30)
    assert failure.value.args[0].fatal() or failure.value.args[0].txn_requires_abort()
    assert read_all(bootstrap, topic, "read_committed", 1) == ["s0"]
    assert sorted(read_all(bootstrap, topic, "read_uncommitted", 6)) == sorted(
        ["s0"] + [f"z{i}" for i in range(5)]
    )


OPEN_TRANSACTION = """
import sys, time
from confluent_kafka import Producer
bootstrap, txn_id, topic = sys.argv[1:4]
p = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id,
              "transaction.timeout.ms": 3000})
p.init_transactions(30)
p.begin_transaction()
for i in range(5):
    p.produce(topic, value=f"open{i}".encode())
assert p.flush(20) == 0
print("ready", flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_a_killed_producers_transaction_is_aborted_at_its_timeout(
    bootstrap: str, txn_id: str
) -> None:
    topic = create_topic(bootstrap)
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(OPEN_TRANSACTION), bootstrap, txn_id, topic],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
    after = transactional_producer(bootstrap, f"{txn_id}-after")
    after.begin_transaction()
    after.produce(topic, value=b"later")
    after.commit_transaction(30)
    # The open transaction holds the last stable offset until the coordinator aborts it at
    # its 3 s timeout (checked every 200 ms here); a coordinator that never aborted would
    # hold it for good.
    seen: list[str] = []
    wait_until(
        lambda: seen.extend(read_all(bootstrap, topic, "read_committed", 1, 0.5)) or bool(seen),
        20,
        what="the LSO to move past the aborted transaction",
    )
    assert seen == ["later"]
