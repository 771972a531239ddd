"""Share groups read with a Python client: confluent-kafka's ShareConsumer (2.16, librdkafka's
KIP-932 share consumer, which it calls a preview), implicit and explicit acknowledgement. Of
the Python clients, it is the one that speaks share groups; kafka-python and aiokafka do not.

FERROLOG_SHARE_BOOTSTRAP=host:port runs the same tests against another broker (Kafka 4.4
with `share_tools.SHARE_SETTINGS`)."""

from __future__ import annotations

import time
import uuid
from collections import defaultdict

import pytest
from confluent_kafka import AcknowledgeType, Producer, ShareConsumer
from confluent_kafka.admin import AdminClient, NewTopic

from tests.groups.share_tools import earliest, set_group_config

pytestmark = pytest.mark.native

# (partition, offset, delivery count, value)
Delivery = tuple[int, int, int, str]


@pytest.fixture
def bootstrap(share_bootstrap: str) -> str:
    return share_bootstrap


def new_topic(bootstrap: str, partitions: int, values: list[str]) -> str:
    """A topic holding `values`, spread over its partitions in turn."""
    name = f"share-py-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(30)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i, value in enumerate(values):
        producer.produce(name, value.encode(), partition=i % partitions)
    assert producer.flush(30) == 0
    return name


def new_group(bootstrap: str) -> str:
    group = f"share-py-{uuid.uuid4().hex[:8]}"
    earliest(bootstrap, group)
    return group


def share_consumer(bootstrap: str, group: str, topic: str, explicit: bool) -> ShareConsumer:
    consumer = ShareConsumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "share.acknowledgement.mode": "explicit" if explicit else "implicit",
        }
    )
    consumer.subscribe([topic])
    return consumer


def read(
    consumers: list[ShareConsumer],
    until: int,
    idle_s: float,
    decide: dict[str, AcknowledgeType] | None = None,
) -> list[Delivery]:
    """Polls the consumers in turn until `until` deliveries or `idle_s` without one. Explicit
    consumers acknowledge each record as `decide` says for its value (ACCEPT otherwise) and
    commit after each poll; implicit ones accept at their next poll, and at close."""
    deliveries: list[Delivery] = []
    last = time.monotonic()
    while len(deliveries) < until and time.monotonic() - last < idle_s:
        for consumer in consumers:
            messages = consumer.poll(0.2)
            for m in messages:
                assert m.error() is None, m.error()
                value = (m.value() or b"").decode()
                deliveries.append((m.partition(), m.offset(), m.delivery_count(), value))
                if decide is not None:
                    consumer.acknowledge(m, decide.get(value, AcknowledgeType.ACCEPT))
            if len(messages):
                last = time.monotonic()
                if decide is not None:
                    results = consumer.commit_sync(30)
                    assert all(error is None for error in results.values()), results
    return deliveries


def test_two_consumers_split_a_topic_and_every_record_is_accepted(bootstrap: str) -> None:
    values = [f"v{i}" for i in range(60)]
    topic = new_topic(bootstrap, 3, values)
    group = new_group(bootstrap)
    consumers = [share_consumer(bootstrap, group, topic, explicit=False) for _ in range(2)]
    try:
        deliveries = read(consumers, until=len(values), idle_s=15)
        for consumer in consumers:
            # Implicitly acknowledged records are accepted at the next poll or commit (against
            # Kafka 4.4 too, librdkafka 2.16's close alone leaves the last poll's locked).
            results = consumer.commit_sync(30)
            assert all(error is None for error in results.values()), results
    finally:
        for consumer in consumers:
            consumer.close()
    assert sorted({value for *_, value in deliveries}) == sorted(values)
    # Everything was accepted: a new member of the group finds nothing.
    late = share_consumer(bootstrap, group, topic, explicit=False)
    try:
        assert read([late], until=1, idle_s=4) == []
    finally:
        late.close()


def test_released_come_back_counted_and_rejected_never(bootstrap: str) -> None:
    """Explicit acknowledgement: a released record is delivered again with a higher delivery
    count until share.delivery.count.limit archives it; a rejected one is never delivered
    again."""
    values = ["release-a", "reject-b", "plain-c"]
    topic = new_topic(bootstrap, 1, values)
    group = new_group(bootstrap)
    set_group_config(bootstrap, group, "share.delivery.count.limit", "3")
    consumer = share_consumer(bootstrap, group, topic, explicit=True)
    decide = {"release-a": AcknowledgeType.RELEASE, "reject-b": AcknowledgeType.REJECT}
    try:
        deliveries = read([consumer], until=10, idle_s=4, decide=decide)
    finally:
        consumer.close()
    counts: dict[str, list[int]] = defaultdict(list)
    for _, _, count, value in deliveries:
        counts[value].append(count)
    assert counts == {"release-a": [1, 2, 3], "reject-b": [1], "plain-c": [1]}
