"""SIGKILL while a producer streams with acks=all: every acknowledged record is found at its
acknowledged offset after a restart on the same data, and writes continue at the next offset."""

from __future__ import annotations

import threading
import uuid

from confluent_kafka import (
    Consumer,
    KafkaError,
    Message,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient, NewTopic

from tests.consume import read
from tests.waiting import wait_until


def test_sigkill_loses_no_acknowledged_record(ferrolog_broker_factory) -> None:  # type: ignore[no-untyped-def]
    broker = ferrolog_broker_factory()
    bootstrap = broker.bootstrap_servers
    topic = f"dur-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})  # must outlive the future
    admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])[topic].result(20)

    acked: dict[tuple[int, int], bytes] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def on_delivery(err: KafkaError | None, msg: Message) -> None:
        if err is None:
            with lock:
                acked[(msg.partition(), msg.offset())] = msg.value()

    def stream() -> None:
        producer = Producer(
            {
                "bootstrap.servers": bootstrap,
                "acks": "all",
                "linger.ms": 2,
                "message.timeout.ms": 3000,
                "enable.idempotence": True,
            }
        )
        i = 0
        while not stop.is_set():
            try:
                producer.produce(topic, value=f"record-{i}".encode(), on_delivery=on_delivery)
                i += 1
            except BufferError:
                producer.poll(0.01)
            producer.poll(0)
        producer.flush(5)

    t = threading.Thread(target=stream)
    t.start()
    try:
        wait_until(lambda: len(acked) >= 5000, 30, 0.05, what="5000 acknowledged records")
    finally:
        broker.kill()  # SIGKILL mid-stream
        stop.set()
        t.join()
    assert len(acked) >= 5000

    broker.restart()
    bootstrap = broker.bootstrap_servers
    for partition in (0, 1):
        mine = {off: v for (p, off), v in acked.items() if p == partition}
        if not mine:
            continue
        stored = {m.offset(): m.value() for m in read(bootstrap, topic, [partition])[partition]}
        missing = [off for off, v in mine.items() if stored.get(off) != v]
        assert missing == [], f"partition {partition}: {len(missing)} acknowledged records lost"

    # Writes continue at the next offset after what survived.
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "x"})
    _, end = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    c.close()
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    offsets: list[int] = []
    p.produce(
        topic,
        value=b"after",
        partition=0,
        on_delivery=lambda err, msg: offsets.append(msg.offset()),
    )
    assert p.flush(20) == 0
    assert offsets == [end]
