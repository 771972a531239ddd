"""Share groups under client quotas, as Kafka applies them: a share consumer's ShareFetch is
metered against its `consumer_byte_rate` (and its request time against
`request_percentage`), a response carries at most what the quota allows over its window, and a
client over its quota is answered with a throttle time and not read from meanwhile."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from confluent_kafka import Producer

from tests.groups.share_tools import (
    ACCEPT,
    SHARE_SETTINGS,
    Member,
    acquired,
    connect,
    earliest,
    fetch_until_acquired,
    find_coordinator,
)
from tests.quotas.conftest import RunningBroker

pytestmark = pytest.mark.native

QUOTA = 20_000  # bytes/s
WINDOWS = {"quota.window.num": "3", "quota.window.size.seconds": "1"}


def test_a_share_fetch_is_held_to_the_consumer_byte_rate(
    quota_broker: Callable[..., RunningBroker],
) -> None:
    running = quota_broker(**SHARE_SETTINGS, **WINDOWS)
    topic = f"share-quota-{uuid.uuid4().hex[:6]}"
    producer = Producer({"bootstrap.servers": running.bootstrap, "batch.size": 16384})
    for _ in range(60):
        producer.produce(topic, b"q" * 10_000)
    assert producer.flush(30) == 0
    assert running.quotas.alter({"client-id": "share-test"}, {"consumer_byte_rate": QUOTA}) == (
        0,
        None,
    )
    conn = connect(running.bootstrap)  # client id share-test
    try:
        group = f"share-{uuid.uuid4().hex[:8]}"
        find_coordinator(conn, group)
        earliest(running.bootstrap, group)
        member = Member(conn, group, topic)
        member.join()
        answer = fetch_until_acquired(member)
        sizes = []
        while answer["throttle_time_ms"] == 0 and len(sizes) < 10:
            ranges = acquired(answer)
            sizes.append(
                sum(len(p["records"] or b"") for t in answer["responses"] for p in t["partitions"])
            )
            answer = member.fetch(acks=[(f, last, [ACCEPT]) for f, last, _ in ranges])
    finally:
        conn.close()
    # Each response carries at most the quota over the window (2 s of it: the current window
    # is not full) plus the one batch a response always carries whole; the client is
    # throttled before it has read far more than its quota.
    assert sizes
    assert max(sizes) <= 2 * QUOTA + 11_000
    assert answer["throttle_time_ms"] > 0, sizes
