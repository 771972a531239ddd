"""The durability checker: a background producer (acks=all) that remembers the offset of
every acknowledged record, and a reader that proves each of them is still there, at the same
offset with the same value, with offsets strictly increasing."""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any

from confluent_kafka import Consumer, KafkaError, Message, Producer, TopicPartition

from tests.waiting import wait_until


class AckedProducer:
    """Produces `<tag>-<n>` values round-robin over partitions until stopped."""

    def __init__(
        self,
        bootstrap: str,
        topic: str,
        partitions: int,
        acks: str = "all",
        tag: str = "v",
        client: dict[str, Any] | None = None,
    ) -> None:
        """`client`: more client settings (a secured cluster's `security.protocol`, ...)."""
        self.topic = topic
        self.tag = tag
        self.partitions = partitions
        self.acked: dict[tuple[int, int], bytes] = {}
        self.errors: list[str] = []
        self.sent = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._producer = Producer(
            {
                "bootstrap.servers": bootstrap,
                "acks": acks,
                "linger.ms": 5,
                "message.timeout.ms": 60000,
                "request.timeout.ms": 5000,
                # A paused broker keeps its TCP connections open: without a short socket
                # timeout librdkafka waits 60 s for a metadata answer from it.
                "socket.timeout.ms": 5000,
                "retry.backoff.ms": 100,
                "topic.metadata.refresh.interval.ms": 1000,
                **(client or {}),
            }
        )
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _on_delivery(self, err: KafkaError | None, msg: Any) -> None:
        with self._lock:
            if err is not None:
                self.errors.append(str(err))
            else:
                self.acked[(msg.partition(), msg.offset())] = msg.value()

    def produce(self, count: int) -> None:
        for _ in range(count):
            n = self.sent
            self.sent += 1
            self._producer.produce(
                self.topic,
                value=f"{self.tag}-{n}".encode(),
                partition=n % self.partitions,
                on_delivery=self._on_delivery,
            )
            self._producer.poll(0)

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(BufferError):
                self.produce(10)
            self._producer.poll(0.02)

    def start(self) -> AckedProducer:
        self._thread.start()
        return self

    def acked_count(self) -> int:
        with self._lock:
            return len(self.acked)

    def wait_acked(self, more: int, timeout: float = 60.0) -> None:
        target = self.acked_count() + more
        try:
            wait_until(lambda: self.acked_count() >= target, timeout, 0.05)
        except AssertionError:
            raise AssertionError(
                f"only {self.acked_count()} of {target} acknowledged; errors {self.errors[-3:]}"
            ) from None

    def stop(self, flush_timeout: float = 60.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(10)
        self._producer.flush(flush_timeout)


def check_no_loss(acked: dict[tuple[int, int], bytes], records: dict[int, list[Message]]) -> None:
    """Every acknowledged record is at its offset with its value (`records` as
    `tests.consume.read` returns them); offsets strictly increase."""
    by_offset = {}
    for partition, rows in records.items():
        offsets = [m.offset() for m in rows]
        assert offsets == sorted(set(offsets)), f"partition {partition}: offsets not monotonic"
        for m in rows:
            by_offset[(partition, m.offset())] = m.value()
    missing = [(k, v) for k, v in acked.items() if by_offset.get(k) != v]
    assert not missing, f"{len(missing)} acknowledged records lost or changed, e.g. {missing[:5]}"


class TailingConsumer:
    """Reads the topic from the start in the background while the cluster is disturbed, so
    the test can prove a consumer continued across leader changes without gaps or repeats."""

    def __init__(
        self, bootstrap: str, topic: str, partitions: int, client: dict[str, Any] | None = None
    ) -> None:
        """`client`: more client settings, as `AckedProducer` takes them."""
        self.records: dict[int, list[tuple[int, bytes]]] = {p: [] for p in range(partitions)}
        self._stop = threading.Event()
        self._consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": "tailing",
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "socket.timeout.ms": 5000,
                "topic.metadata.refresh.interval.ms": 1000,
                **(client or {}),
            }
        )
        self._consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for msg in self._consumer.consume(1000, 0.2):
                if msg.error() is None:
                    self.records[msg.partition()].append((msg.offset(), msg.value()))

    def start(self) -> TailingConsumer:
        self._thread.start()
        return self

    def count(self) -> int:
        return sum(len(rows) for rows in self.records.values())

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        # Bounded: once in a full suite (28 Nov) librdkafka 2.16's close of this consumer
        # (group.id set, partitions assigned, no subscription) waited forever in
        # rd_kafka_consumer_close0 after five leader bounces, every broker up and idle, and
        # pytest's timeout cannot interrupt a wait in C. What the tests check is what it read.
        closer = threading.Thread(target=self._consumer.close, daemon=True)
        closer.start()
        closer.join(30)
        if closer.is_alive():
            logging.getLogger(__name__).warning("the tailing consumer's close took over 30 s")


def check_continuous(
    records: dict[int, list[tuple[int, bytes]]], acked: dict[tuple[int, int], bytes]
) -> None:
    """What a consumer saw across failures: every partition from offset 0 with no gap and no
    repeat, and acknowledged records with their values."""
    for partition, rows in records.items():
        offsets = [o for o, _ in rows]
        assert offsets == list(range(len(offsets))), f"partition {partition}: gap or repeat"
        for offset, value in rows:
            expected = acked.get((partition, offset))
            assert expected is None or expected == value, f"{partition}@{offset} changed"
