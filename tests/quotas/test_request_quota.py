"""`request_percentage` (KIP-124): a client sending cheap requests in a loop (Metadata, as
Kafka's own quota tests do) is held to its share of the broker's time, with the throttle in its
responses and its connection muted for that long, while another client doing the same without a
quota is never throttled. A client that ignores the throttle field gains nothing: the broker
reads its next request only once the throttle is over."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from ferrolog.client.connection import Connection

from tests.quotas.conftest import RunningBroker

pytestmark = pytest.mark.native

METADATA = 3
LOOP_S = 4.0


@dataclass
class Loop:
    """Metadata requests back to back for `LOOP_S`, ignoring throttle_time_ms."""

    bootstrap: str
    client_id: str
    # (sent, answered, throttle ms): when the request went out and when its response came.
    answered: list[tuple[float, float, int]] = field(default_factory=list)

    def run(self) -> None:
        host, _, port = self.bootstrap.rpartition(":")
        conn = Connection(host, int(port), 10, self.client_id)
        try:
            end = time.monotonic() + LOOP_S
            while (sent := time.monotonic()) < end:
                response = conn.request(METADATA, 12, {"topics": None})
                throttle = int(response["throttle_time_ms"])
                self.answered.append((sent, time.monotonic(), throttle))
        finally:
            conn.close()

    def throttles(self) -> list[int]:
        return [t for _, _, t in self.answered if t > 0]


def test_a_client_over_its_request_quota_is_throttled_and_others_are_not(
    quota_broker: Callable[..., RunningBroker],
) -> None:
    running = quota_broker()
    # 0.2 % of one thread: 2 ms of the broker's time per second (a Metadata request here
    # takes it some tens of microseconds).
    ops = {"request_percentage": 0.2}
    assert running.quotas.alter({"client-id": "chatty"}, ops) == (0, None)
    chatty, quiet = Loop(running.bootstrap, "chatty"), Loop(running.bootstrap, "quiet")
    threads = [threading.Thread(target=loop.run) for loop in (chatty, quiet)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(LOOP_S + 30)

    assert chatty.throttles(), "the chatty client was never throttled"
    # Kafka bounds a request throttle by one quota window (1 s by default).
    assert max(chatty.throttles()) <= 1000
    assert quiet.throttles() == []
    # The quiet client, sharing the broker, keeps its pace: several times the chatty one's.
    assert len(quiet.answered) > 5 * len(chatty.answered)
    # Muted: the broker reads the next request only once the throttle is over, counted from
    # when it answered. It answered after the throttled request was sent, so the next answer
    # comes at least the throttle after that send. (Counting from when the client got the
    # answer would charge the client's own delay, e.g. waiting for the GIL, to the broker.)
    for (sent, _, throttle), (_, following, _) in itertools.pairwise(chatty.answered):
        if throttle > 0:
            assert following - sent >= throttle / 1000
    total_ms, count = running.throttles()[("Request", "", "chatty")]
    assert count == len(chatty.throttles())
    assert total_ms == sum(chatty.throttles())


def test_the_default_client_quota_holds_every_client_id(
    quota_broker: Callable[..., RunningBroker],
) -> None:
    running = quota_broker()
    assert running.quotas.alter({"client-id": None}, {"request_percentage": 0.01}) == (0, None)
    loop = Loop(running.bootstrap, "anyone")
    loop.run()
    assert loop.throttles()
    # Metered on its own at the default's rate: tagged with its own client id.
    assert ("Request", "", "anyone") in running.throttles()


def test_natively_served_produce_and_fetch_are_metered_too(
    quota_broker: Callable[..., RunningBroker],
) -> None:
    """Produce and Fetch never reach Python: the native core meters their time (without the
    long poll's wait) and carries the throttle in their responses, which librdkafka reports."""
    running = quota_broker()
    assert running.quotas.alter({"client-id": "busy"}, {"request_percentage": 0.01}) == (0, None)
    stats: list[dict[str, Any]] = []
    common = {
        "bootstrap.servers": running.bootstrap,
        "client.id": "busy",
        "statistics.interval.ms": 500,
        "stats_cb": lambda s: stats.append(json.loads(s)),
    }
    producer = Producer({**common, "linger.ms": 0})
    end = time.monotonic() + LOOP_S / 2
    while time.monotonic() < end:
        producer.produce("request-quota", b"r" * 100)
        producer.flush(10)
    consumer = Consumer(
        {**common, "group.id": "busy", "auto.offset.reset": "earliest", "fetch.wait.max.ms": 10}
    )
    consumer.subscribe(["request-quota"])
    end = time.monotonic() + LOOP_S / 2
    while time.monotonic() < end:
        consumer.poll(0.1)
    consumer.close()
    assert any(
        int(b.get("throttle", {}).get("max", 0)) > 0 for s in stats for b in s["brokers"].values()
    )
    total_ms, count = running.throttles()[("Request", "", "busy")]
    assert total_ms > 0
    assert count > 0
