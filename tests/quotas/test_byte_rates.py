"""Byte-rate quotas hold real clients to their rate: a confluent-kafka producer flat out with
`producer_byte_rate` = 1 MiB/s, and a consumer reading a large topic from the start with
`consumer_byte_rate` = 1 MiB/s, each for 20 s, move within 10 % of 1 MiB/s over the last
15 s, and librdkafka's statistics report the broker's throttle.

The brokers here measure over `quota.window.num=3` windows of 1 s. With Kafka's default of 11
windows the rate is held just the same on average, but a client that starts flat out first
spends ten windows' worth of quota at once and, with the windowed rate, again each time that
window expires (every 11 s): any 15 s then holds one or two such bursts, 0.7x to 1.4x the
quota (Kafka's own brokers behave the same, the arithmetic is theirs). Likewise the consumer
fetches at most 64 KiB per partition: a fetch over quota is answered empty and its bytes are
not counted, yet its throttle time includes them (Kafka's `unrecordQuotaSensor`), so a client
whose responses are large next to its quota is held below it (1 MiB responses: about 0.7x)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer

from tests.quotas.conftest import RunningBroker

pytestmark = [pytest.mark.native, pytest.mark.slow]

QUOTA = 1048576
RUN_S, MEASURED_S = 20.0, 15.0
WINDOWS = {"quota.window.num": "3", "quota.window.size.seconds": "1"}


def throttle_seen(stats: list[dict[str, Any]]) -> int:
    """The largest throttle time librdkafka reported for any broker."""
    return max(
        (int(b.get("throttle", {}).get("max", 0)) for s in stats for b in s["brokers"].values()),
        default=0,
    )


def rate_over_tail(events: list[tuple[float, int]], start: float) -> float:
    tail_from = start + RUN_S - MEASURED_S
    tail = sum(n for t, n in events if tail_from <= t < start + RUN_S)
    return tail / MEASURED_S


def held_to_quota(rate: float) -> bool:
    """The client got its quota, within 10 % above (the quota holds) and 20 % below: a client
    held well under its quota is throttled too hard, but on a loaded machine (CI, 2 cores) the
    client itself may not keep up with 1 MB/s of 10 kB records (0.898 x was seen once)."""
    return 0.80 <= rate / QUOTA <= 1.10


def test_producer_byte_rate(quota_broker: Callable[..., RunningBroker]) -> None:
    running = quota_broker(**WINDOWS)
    assert running.quotas.alter({"client-id": "flood"}, {"producer_byte_rate": QUOTA}) == (0, None)
    stats: list[dict[str, Any]] = []
    acked: list[tuple[float, int]] = []
    producer = Producer(
        {
            "bootstrap.servers": running.bootstrap,
            "client.id": "flood",
            "linger.ms": 5,
            # A small queue, so the flush at the end does not drain minutes of backlog.
            "queue.buffering.max.kbytes": 2048,
            "statistics.interval.ms": 1000,
            "stats_cb": lambda s: stats.append(json.loads(s)),
        }
    )

    def delivered(err: object, msg: Any) -> None:
        if err is None:
            acked.append((time.monotonic(), len(msg.value())))

    value = b"v" * 10_000
    start = time.monotonic()
    while time.monotonic() < start + RUN_S:
        try:
            producer.produce("flood", value, on_delivery=delivered)
        except BufferError:
            producer.poll(0.05)
        producer.poll(0)
    producer.flush(60)
    rate = rate_over_tail(acked, start)
    assert held_to_quota(rate), f"{rate / QUOTA:.3f} x the quota"
    assert throttle_seen(stats) > 0
    (total_ms, count) = running.throttles()[("Produce", "", "flood")]
    assert total_ms > 0
    assert count > 0


def test_consumer_byte_rate(quota_broker: Callable[..., RunningBroker]) -> None:
    running = quota_broker(**WINDOWS)
    # Batches of 64 kB: a fetch returns whole batches, so they bound the response size.
    producer = Producer(
        {"bootstrap.servers": running.bootstrap, "linger.ms": 20, "batch.size": 65536}
    )
    value = b"r" * 10_000
    for _ in range(4000):  # 40 MB: more than the consumer may read in 20 s
        while True:
            try:
                producer.produce("big", value)
                break
            except BufferError:
                producer.poll(0.05)
    assert producer.flush(120) == 0
    assert running.quotas.alter({"client-id": "reader"}, {"consumer_byte_rate": QUOTA}) == (0, None)
    stats: list[dict[str, Any]] = []
    consumer = Consumer(
        {
            "bootstrap.servers": running.bootstrap,
            "client.id": "reader",
            "group.id": "quota-reader",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "max.partition.fetch.bytes": 65536,
            "statistics.interval.ms": 1000,
            "stats_cb": lambda s: stats.append(json.loads(s)),
        }
    )
    consumer.subscribe(["big"])
    received: list[tuple[float, int]] = []
    start = 0.0
    try:
        while not received:
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                start = time.monotonic()
                received.append((start, len(msg.value() or b"")))
        while time.monotonic() < start + RUN_S:
            msg = consumer.poll(0.1)
            if msg is not None and msg.error() is None:
                received.append((time.monotonic(), len(msg.value() or b"")))
    finally:
        consumer.close()
    rate = rate_over_tail(received, start)
    assert held_to_quota(rate), f"{rate / QUOTA:.3f} x the quota"
    assert throttle_seen(stats) > 0
    (total_ms, count) = running.throttles()[("Fetch", "", "reader")]
    assert total_ms > 0
    assert count > 0
