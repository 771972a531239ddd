"""Kafka's eight levels of quota precedence, applied by a live broker to a real producer: for
each level, that level holds a tiny produce quota and every level after it a huge one, so the
producer is throttled only if the broker picked that level, and the throttle is counted under
the metric tags Kafka gives that level (what is metered together).

Without authentication every connection's user is Kafka's `ANONYMOUS`, so user quotas name
that user."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from confluent_kafka import Producer

from tests.quotas.conftest import Entity, RunningBroker
from tests.waiting import wait_until

pytestmark = pytest.mark.native

USER = "ANONYMOUS"
TINY, HUGE = 1024.0, 1e12


def levels(client_id: str) -> list[tuple[Entity, tuple[str, str]]]:
    """Kafka's order: each entity and the (user, client-id) tags that meter it."""
    return [
        ({"user": USER, "client-id": client_id}, (USER, client_id)),
        ({"user": USER, "client-id": None}, (USER, client_id)),
        ({"user": USER}, (USER, "")),
        ({"user": None, "client-id": client_id}, (USER, client_id)),
        ({"user": None, "client-id": None}, (USER, client_id)),
        ({"user": None}, (USER, "")),
        ({"client-id": client_id}, ("", client_id)),
        ({"client-id": None}, ("", client_id)),
    ]


def produce(bootstrap: str, client_id: str, size: int) -> None:
    """One request: its response comes at once, the throttle only mutes what follows."""
    producer = Producer({"bootstrap.servers": bootstrap, "client.id": client_id, "linger.ms": 0})
    producer.produce("quota-precedence", b"x" * size)
    assert producer.flush(30) == 0


@pytest.mark.parametrize("level", range(8), ids=[f"level{i + 1}" for i in range(8)])
def test_the_first_configured_level_applies(
    quota_broker: Callable[..., RunningBroker], level: int
) -> None:
    running = quota_broker()
    client_id = f"app-{level + 1}"
    configured = levels(client_id)[level:]
    for i, (entity, _) in enumerate(configured):
        rate = TINY if i == 0 else HUGE
        assert running.quotas.alter(entity, {"producer_byte_rate": rate}) == (0, None)
    # A client id quota for another client never applies.
    assert running.quotas.alter({"client-id": "other"}, {"producer_byte_rate": TINY}) == (0, None)
    # 15 kB over the 10 s a first window counts: 1.5 kB/s, over the tiny quota only.
    produce(running.bootstrap, client_id, 15_000)
    tags = configured[0][1]
    throttled = wait_until(
        lambda: running.throttles().get(("Produce", *tags)), what=f"a throttle under {tags}"
    )
    assert throttled[0] > 0
    assert throttled[1] >= 1
    assert set(running.throttles()) == {("Produce", *tags)}
