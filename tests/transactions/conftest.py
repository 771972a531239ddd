"""Shared setup of the transaction tests: one broker per module with few internal partitions
and a fast timeout check, fresh topics per test, and consumers at either isolation level."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.embedded import EmbeddedBroker

FAST_TRANSACTIONS = {
    "group.initial.rebalance.delay.ms": "0",
    "offsets.topic.num.partitions": "4",
    "transaction.state.log.num.partitions": "4",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "200",
}


def create_topic(bootstrap: str, partitions: int = 1) -> str:
    name = f"t-{uuid.uuid4().hex[:10]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(20)
    return name


def transactional_producer(bootstrap: str, transactional_id: str, **extra: Any) -> Producer:
    producer = Producer(
        {"bootstrap.servers": bootstrap, "transactional.id": transactional_id, **extra}
    )
    producer.init_transactions(30)
    return producer


def read_all(
    bootstrap: str, topic: str, isolation: str, expected: int | None = None, idle: float = 1.5
) -> list[str]:
    """Every record value of `topic` a consumer at `isolation` gets, read until `expected`
    arrived (then a little longer, to catch extra ones) or nothing came for `idle` seconds
    since the group assigned the partitions (joining can take longer than `idle` on a busy
    machine, and in a cluster that creates `__consumer_offsets` first)."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"r-{uuid.uuid4().hex[:8]}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": isolation,
        }
    )
    values: list[str] = []
    deadline = time.monotonic() + 30
    last: float | None = None  # the assignment, then the last record

    def assigned(_: Consumer, __: list[TopicPartition]) -> None:
        nonlocal last
        last = time.monotonic()

    try:
        consumer.subscribe([topic], on_assign=assigned)
        while time.monotonic() < deadline:
            m = consumer.poll(0.1)
            if m is not None and m.error() is None:
                values.append(m.value().decode())
                last = time.monotonic()
            done = expected is not None and len(values) >= expected
            if last is not None and time.monotonic() - last > (0.5 if done else idle):
                break
    finally:
        consumer.close()
    return values


@pytest.fixture(scope="module")
def txn_broker() -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker(overrides=FAST_TRANSACTIONS) as broker:
        yield broker


@pytest.fixture
def bootstrap(request: pytest.FixtureRequest) -> str:
    """The module's broker; FERROLOG_TXN_BOOTSTRAP=host:port runs the same tests against
    another cluster (Apache Kafka) to check that ferrolog and Kafka agree."""
    external = os.environ.get("FERROLOG_TXN_BOOTSTRAP")
    if external:
        return external
    broker: EmbeddedBroker = request.getfixturevalue("txn_broker")
    return broker.bootstrap_servers


@pytest.fixture
def txn_id() -> str:
    return f"tx-{uuid.uuid4().hex[:10]}"


def committed_producer(bootstrap: str) -> Producer:
    return Producer({"bootstrap.servers": bootstrap})
