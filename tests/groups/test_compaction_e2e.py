"""Log compaction seen through a real client: a compacted topic keeps the latest value of
every key at its original offset, drops tombstones after `delete.retention.ms`, and a
consumer reading from the start sees a consistent view of the latest state."""

from __future__ import annotations

import time
from typing import Any

from confluent_kafka import Producer

from tests.consume import read
from tests.groups.conftest import create_topic
from tests.waiting import wait_until

KEYS = 12
ROUNDS = 15
DELETED = {"k0", "k1", "k2"}


def kept(bootstrap: str, topic: str) -> list[tuple[int, str, str | None]]:
    """(offset, key, value) of every record the compacted partition still holds."""
    return [
        (m.offset(), m.key().decode(), v.decode() if (v := m.value()) is not None else None)
        for m in read(bootstrap, topic)[0]
    ]


def test_compacted_topic_through_a_real_consumer(bootstrap: str) -> None:
    topic = create_topic(
        bootstrap,
        partitions=1,
        **{
            "cleanup.policy": "compact",
            "internal.segment.bytes": "1024",
            "min.cleanable.dirty.ratio": "0.01",
            "delete.retention.ms": "1000",
        },
    )
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    produced: dict[int, tuple[str, str | None]] = {}

    def delivered(err: Any, msg: Any) -> None:
        assert err is None
        value = msg.value()
        produced[msg.offset()] = (msg.key().decode(), value.decode() if value is not None else None)

    def send(key: str, value: str | None) -> None:
        producer.produce(
            topic, key=key.encode(), value=value.encode() if value else None, on_delivery=delivered
        )
        producer.flush(10)

    for r in range(ROUNDS):
        for k in range(KEYS):
            send(f"k{k}", f"v{r}")
    for key in sorted(DELETED):
        send(key, None)
    # Unrelated keys push the tombstones out of the active segment, where cleaning happens.
    for i in range(30):
        send(f"filler{i}", "x" * 40)
    total = len(produced)
    latest: dict[str, tuple[int, str | None]] = {}
    for offset in sorted(produced):
        key, value = produced[offset]
        latest[key] = (offset, value)

    seen: list[tuple[int, str, str | None]] = []

    def tombstones_gone() -> bool:
        seen[:] = kept(bootstrap, topic)
        return len(seen) < total and not any(key in DELETED for _, key, _ in seen)

    started = time.monotonic()
    wait_until(tombstones_gone, timeout=30, step=0.5)
    # Retention counts from the cleaning that first kept the tombstones.
    assert time.monotonic() - started >= 1.0
    offsets = [offset for offset, _, _ in seen]
    assert offsets == sorted(set(offsets)), "offsets only increase"
    for offset, key, value in seen:
        assert produced[offset] == (key, value), "every record is the one written at its offset"
    state: dict[str, str | None] = {}
    for _, key, value in seen:
        state[key] = value
    expected = {k: v for k, (_, v) in latest.items() if k not in DELETED}
    assert state == expected
    for key, (offset, value) in latest.items():
        if key not in DELETED:
            assert (offset, key, value) in seen, f"{key}'s latest value moved or went"
