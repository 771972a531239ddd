"""The workload and its history: idempotent acks=all producers writing unique values, and a
consumer group reading them and committing synchronously. Every client event that the checker
needs is recorded with the client's own view (what was acknowledged where, what each consumer
was given between two assignments, what it committed)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

TOPIC = "chaos"
GROUP = "chaos-group"
# librdkafka's own log lines (connection failures under faults: expected, but telling when a
# run goes wrong); `run` sends them to clients.log in the report folder.
CLIENT_LOG = logging.getLogger("ferrolog.chaos.clients")


@dataclass
class ProducerHistory:
    sent: int = 0
    # value -> (partition, offset); the offset is None when the client was not given one
    acked: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)  # definitely not written, by the client's word
    fatal_errors: list[str] = field(default_factory=list)
    acked_at: list[float] = field(default_factory=list)  # monotonic time of each ack


@dataclass
class Delivery:
    consumer: int
    session: int  # bumped at every assignment change of that consumer
    partition: int
    offset: int
    value: str
    at: float


@dataclass
class Commit:
    consumer: int
    partition: int
    offset: int  # the next offset to read
    at: float


@dataclass
class Assignment:
    consumer: int
    session: int
    partitions: list[int]
    at: float


@dataclass
class ConsumerHistory:
    deliveries: list[Delivery] = field(default_factory=list)
    commits: list[Commit] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def record_of(message: Any) -> tuple[int, int, str]:
    """(partition, offset, value) of a consumed record (never None for a record, whatever the
    client's types allow)."""
    return int(message.partition()), int(message.offset()), bytes(message.value()).decode()


class ProducerThread(threading.Thread):
    def __init__(self, index: int, bootstrap: str, rate: float, history: ProducerHistory) -> None:
        super().__init__(name=f"chaos-producer-{index}", daemon=True)
        self.index = index
        self.bootstrap = bootstrap
        self.interval = 1.0 / rate
        self.history = history
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def _producer(self) -> Producer:
        return Producer(
            {
                "bootstrap.servers": self.bootstrap,
                "client.id": f"chaos-producer-{self.index}",
                "enable.idempotence": True,
                "acks": "all",
                "linger.ms": 5,
                # Long enough to ride out any fault of a cycle: a record the client gives up
                # on is a failure it reports, not a loss.
                "message.timeout.ms": 60_000,
                "reconnect.backoff.max.ms": 1000,
                # The idempotence state changes (producer id, epoch bumps, sequence errors) in
                # clients.log: what a duplicate or a fatal error must be read against.
                "debug": "eos",
                "logger": CLIENT_LOG,
            }
        )

    def _on_delivery(self, err: Any, msg: Any) -> None:
        value = msg.value().decode()
        with self.lock:
            if err is None:
                self.history.acked[value] = (msg.partition(), msg.offset())
                self.history.acked_at.append(time.monotonic())
            else:
                self.history.failed.add(value)
                if err.fatal():
                    self.history.fatal_errors.append(str(err))

    def run(self) -> None:
        producer = self._producer()
        seq = 0
        next_at = time.monotonic()
        while not self.stopping.is_set():
            value = f"p{self.index}-{seq}"
            try:
                producer.produce(
                    TOPIC, value.encode(), key=str(seq).encode(), on_delivery=self._on_delivery
                )
                seq += 1
                with self.lock:
                    self.history.sent += 1
            except BufferError:
                pass
            except Exception as exc:  # a fatal idempotence error: a new producer (new id)
                with self.lock:
                    self.history.fatal_errors.append(repr(exc))
                producer.flush(60)
                producer = self._producer()
            producer.poll(0)
            next_at += self.interval
            time.sleep(max(0.0, next_at - time.monotonic()))
        producer.flush(90)


class ConsumerThread(threading.Thread):
    def __init__(self, index: int, bootstrap: str, history: ConsumerHistory) -> None:
        super().__init__(name=f"chaos-consumer-{index}", daemon=True)
        self.index = index
        self.bootstrap = bootstrap
        self.history = history
        self.session = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        # Set with `stopping`: leave without a last commit, as a crashed consumer would (what
        # it read but did not commit is given again to the next owner).
        self.crashing = False
        self.positions: dict[int, int] = {}  # partition -> next offset, since the assignment

    def _record_assignment(self, partitions: list[TopicPartition]) -> None:
        with self.lock:
            self.session += 1
            self.positions = {}
            self.history.assignments.append(
                Assignment(
                    self.index,
                    self.session,
                    sorted(p.partition for p in partitions),
                    time.monotonic(),
                )
            )

    def _commit(self, consumer: Consumer) -> None:
        if not self.positions:
            return
        offsets = [TopicPartition(TOPIC, p, o) for p, o in sorted(self.positions.items())]
        try:
            consumer.commit(offsets=offsets, asynchronous=False)
        except Exception as exc:  # the coordinator moved, a rebalance: the next commit retries
            with self.lock:
                self.history.errors.append(f"commit: {exc}")
            return
        now = time.monotonic()
        with self.lock:
            for tp in offsets:
                self.history.commits.append(Commit(self.index, tp.partition, tp.offset, now))

    def run(self) -> None:
        consumer = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                "group.id": GROUP,
                "client.id": f"chaos-consumer-{self.index}",
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "session.timeout.ms": 10_000,
                # Leader moves, metadata, offset validations and resets in clients.log: what
                # a record given twice or out of order must be read against (a few hundred
                # lines a run; "fetch" would add one per fetch).
                "debug": "consumer,topic",
                "heartbeat.interval.ms": 1000,
                "logger": CLIENT_LOG,
            }
        )

        def on_revoke(c: Consumer, partitions: list[TopicPartition]) -> None:
            if not self.crashing:
                self._commit(c)  # what was read is committed before another member takes it
            self._record_assignment([])

        def on_assign(_c: Consumer, partitions: list[TopicPartition]) -> None:
            self._record_assignment(partitions)

        consumer.subscribe([TOPIC], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_revoke)
        last_commit = time.monotonic()
        try:
            while not self.stopping.is_set():
                message = consumer.poll(0.2)
                if message is not None:
                    error = message.error()
                    if error is None:
                        partition, offset, value = record_of(message)
                        with self.lock:
                            self.history.deliveries.append(
                                Delivery(
                                    self.index,
                                    self.session,
                                    partition,
                                    offset,
                                    value,
                                    time.monotonic(),
                                )
                            )
                            self.positions[partition] = offset + 1
                    elif error.code() != KafkaError._PARTITION_EOF:
                        # In clients.log too, with its time: an offset reset says why here.
                        CLIENT_LOG.warning("chaos-consumer-%d: %s", self.index, error)
                        with self.lock:
                            self.history.errors.append(str(error))
                if time.monotonic() - last_commit > 1.0 and not self.stopping.is_set():
                    self._commit(consumer)
                    last_commit = time.monotonic()
            if not self.crashing:
                self._commit(consumer)
        finally:
            consumer.close()
