"""The one way tests read back what a topic holds: an assigned confluent-kafka consumer (no
group, nothing committed) that reads the partitions from a start offset to their end, and fails
with how far it got when the records do not come in time.

The end is each partition's high watermark as it is when the read starts (what a check of
acknowledged records needs: everything acknowledged is below it), or a number of records when
the caller knows how many to expect. Tests of consumer groups, isolation levels and other
clients read in their own way, since that is what they test."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from functools import partial

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Message, TopicPartition

from tests.waiting import wait_until

# A poll() per record costs more than the broker's whole answer: records come in batches.
BATCH = 10_000


def read(
    bootstrap: str,
    topic: str,
    partitions: int | Iterable[int] = 1,
    *,
    count: int | None = None,
    start: int = OFFSET_BEGINNING,
    config: Mapping[str, object] | None = None,
    timeout: float = 60.0,
) -> dict[int, list[Message]]:
    """`topic`'s records by partition, in offset order, from `start` in each of `partitions`
    (a count means partitions 0 to count - 1): `count` records in all when given, else each
    partition's up to its high watermark. `config`: more consumer settings (security, ...).
    Raises AssertionError after `timeout` seconds, naming what it read by then and the last
    error the consumer reported."""
    wanted = list(range(partitions)) if isinstance(partitions, int) else list(partitions)
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "tests-read",
            "enable.auto.commit": False,
            # A leader that moves is found within a second, not at the 5-minute refresh.
            "topic.metadata.refresh.interval.ms": 1000,
            **(config or {}),
        }
    )
    try:
        ends = None if count is not None else _high_watermarks(consumer, topic, wanted, timeout)
        consumer.assign([TopicPartition(topic, p, start) for p in wanted])
        out: dict[int, list[Message]] = {p: [] for p in wanted}
        deadline = time.monotonic() + timeout
        error = None

        def done() -> bool:
            if ends is None:
                return sum(len(v) for v in out.values()) >= (count or 0)
            return all(_position(consumer, topic, p, out[p]) >= ends[p] for p in wanted)

        while not done():
            if time.monotonic() > deadline:
                got = {p: (v[-1].offset() if v else None) for p, v in out.items()}
                aim = f"{count} records" if ends is None else f"high watermarks {ends}"
                raise AssertionError(
                    f"{topic}: read up to {got} of {aim} in {timeout:.0f}s; last error: {error}"
                )
            for m in consumer.consume(BATCH, 0.5):
                if m.error() is not None:
                    error = m.error()
                else:
                    out[m.partition()].append(m)
        return out
    finally:
        consumer.close()


def _high_watermarks(
    consumer: Consumer, topic: str, partitions: list[int], timeout: float
) -> dict[int, int]:
    def high_watermark(p: int) -> tuple[int] | None:
        try:
            return (consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=20)[1],)
        except KafkaException:
            # A leader named in Metadata a moment before it took the role, or none yet.
            return None

    return {
        p: wait_until(partial(high_watermark, p), timeout, 0.2, what=f"{topic}-{p}'s HW")[0]
        for p in partitions
    }


def _position(consumer: Consumer, topic: str, partition: int, read: list[Message]) -> int:
    """Where the consumer is in `partition`: past the last record read, or further when what
    follows is not delivered (a transaction's marker, records compaction removed)."""
    after = read[-1].offset() + 1 if read else 0
    (position,) = consumer.position([TopicPartition(topic, partition)])
    return max(after, position.offset)
