"""Shared setup of the group tests: one broker per module with short group timeouts, fresh
topics and group ids per test, and helpers to produce and to configure consumers."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.client.connection import Connection
from ferrolog.embedded import EmbeddedBroker

from tests.groups.share_tools import SHARE_SETTINGS, connect

# Short timeouts so rebalances and expiry take well under a second or two.
FAST_GROUPS = {
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "500",
    "offsets.topic.num.partitions": "4",
}
SESSION_MS = 1500


def create_topic(bootstrap: str, partitions: int = 1, **configs: str) -> str:
    name = f"t-{uuid.uuid4().hex[:10]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1, config=configs)])[name].result(20)
    return name


def produce(bootstrap: str, topic: str, per_partition: int, partitions: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for p in range(partitions):
        for i in range(per_partition):
            producer.produce(topic, value=f"{p}-{i}".encode(), key=f"k{i}".encode(), partition=p)
    assert producer.flush(20) == 0


def consumer_config(bootstrap: str, group: str, **extra: Any) -> dict[str, Any]:
    return {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "session.timeout.ms": SESSION_MS,
        "heartbeat.interval.ms": 100,
        **extra,
    }


def poll_all(consumers: list[Consumer], seconds: float = 0.05) -> list[Any]:
    messages = []
    for c in consumers:
        m = c.poll(seconds)
        if m is not None and m.error() is None:
            messages.append(m)
    return messages


def assignments(consumers: list[Consumer]) -> list[list[int]]:
    return [sorted(tp.partition for tp in c.assignment()) for c in consumers]


@pytest.fixture(scope="module")
def group_broker() -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker(overrides=FAST_GROUPS) as broker:
        yield broker


@pytest.fixture
def bootstrap(request: pytest.FixtureRequest) -> str:
    """The module's broker; FERROLOG_GROUPS_BOOTSTRAP=host:port runs the same tests against
    another cluster (Apache Kafka, with group.min.session.timeout.ms at most 500 and no
    initial rebalance delay) to check that ferrolog and Kafka agree."""
    external = os.environ.get("FERROLOG_GROUPS_BOOTSTRAP")
    if external:
        return external
    broker: EmbeddedBroker = request.getfixturevalue("group_broker")
    return broker.bootstrap_servers


@pytest.fixture(scope="module")
def share_broker() -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker(overrides=SHARE_SETTINGS) as broker:
        yield broker


@pytest.fixture
def share_bootstrap(request: pytest.FixtureRequest) -> str:
    """The module's broker with share groups on; FERROLOG_SHARE_BOOTSTRAP=host:port runs the
    same tests against another broker (Kafka 4.4 with `share_tools.SHARE_SETTINGS`) to check
    that both answer alike."""
    external = os.environ.get("FERROLOG_SHARE_BOOTSTRAP")
    if external:
        return external
    broker: EmbeddedBroker = request.getfixturevalue("share_broker")
    return broker.bootstrap_servers


@pytest.fixture
def share_conn(share_bootstrap: str) -> Iterator[Connection]:
    """A raw connection to the share groups' broker."""
    connection = connect(share_bootstrap)
    yield connection
    connection.close()


@pytest.fixture
def group_id() -> str:
    return f"g-{uuid.uuid4().hex[:10]}"
