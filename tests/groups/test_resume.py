"""Committed offsets outlive the broker and are shared by every client: a group committed by
confluent-kafka resumes after a restart in kafka-python, then after a SIGKILL in aiokafka,
exactly where each left off."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from aiokafka import AIOKafkaConsumer
from confluent_kafka import Consumer, TopicPartition
from ferrolog.embedded import EmbeddedBroker
from kafka import KafkaConsumer
from kafka import TopicPartition as KafkaTopicPartition
from kafka.structs import OffsetAndMetadata

from tests.groups.conftest import (
    FAST_GROUPS,
    SESSION_MS,
    assignments,
    consumer_config,
    create_topic,
    poll_all,
    produce,
)
from tests.waiting import wait_until


def kafka_python_resume(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    """Consumes three records per partition from the committed position, commits after
    them; returns the first offset seen per partition."""
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=group,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        session_timeout_ms=SESSION_MS * 4,
        heartbeat_interval_ms=200,
    )
    consumer.subscribe([topic])
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    try:
        while sum(last.get(p, -1) - first.get(p, 0) + 1 for p in (0, 1)) < 6:
            for tp, records in consumer.poll(timeout_ms=500).items():
                for r in records:
                    first.setdefault(tp.partition, r.offset)
                    if r.offset < first[tp.partition] + 3:
                        last[tp.partition] = r.offset
            for p, offset in last.items():
                consumer.seek(KafkaTopicPartition(topic, p), offset + 1)
        consumer.commit(
            {
                KafkaTopicPartition(topic, p): OffsetAndMetadata(o + 1, "", -1)
                for p, o in last.items()
            }
        )
    finally:
        consumer.close()
    return first


async def aiokafka_first_offsets(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=group,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        session_timeout_ms=SESSION_MS * 4,
        heartbeat_interval_ms=200,
    )
    await consumer.start()
    first: dict[int, int] = {}
    try:
        while len(first) < 2:
            batches = await consumer.getmany(timeout_ms=500)
            for tp, records in batches.items():
                if records:
                    first.setdefault(tp.partition, records[0].offset)
    finally:
        await consumer.stop()
    return first


def test_offsets_survive_restart_and_cross_clients(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    broker = ferrolog_broker_factory(overrides=FAST_GROUPS)
    bootstrap = broker.bootstrap_servers
    topic = create_topic(bootstrap, partitions=2)
    produce(bootstrap, topic, per_partition=20, partitions=2)
    group = "resume-group"

    consumer = Consumer(consumer_config(bootstrap, group))
    consumer.subscribe([topic])
    try:
        while len(consumer.assignment()) < 2:
            consumer.poll(0.2)
        consumer.commit(
            offsets=[TopicPartition(topic, 0, 7), TopicPartition(topic, 1, 4)], asynchronous=False
        )
    finally:
        consumer.close()

    broker.restart()
    bootstrap = broker.bootstrap_servers

    assert kafka_python_resume(bootstrap, group, topic) == {0: 7, 1: 4}
    # SIGKILL: nothing flushed at shutdown; acknowledged commits are in the log all the same.
    broker.kill()
    broker.start()
    bootstrap = broker.bootstrap_servers
    assert asyncio.run(aiokafka_first_offsets(bootstrap, group, topic)) == {0: 10, 1: 7}


def test_a_stable_group_rides_through_a_broker_restart_without_rebalancing(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    broker = ferrolog_broker_factory(overrides=FAST_GROUPS)
    bootstrap = broker.bootstrap_servers
    topic = create_topic(bootstrap, partitions=4)
    revoked: list[int] = []
    consumers = [
        Consumer(consumer_config(bootstrap, "live", **{"session.timeout.ms": 6000}))
        for _ in range(2)
    ]
    try:
        for c in consumers:
            c.subscribe(
                [topic], on_revoke=lambda _, parts: revoked.extend(p.partition for p in parts)
            )

        def balanced() -> bool:
            poll_all(consumers)
            return sorted(len(a) for a in assignments(consumers)) == [2, 2]

        wait_until(balanced)
        before = assignments(consumers)
        revoked.clear()
        # The new coordinator loads the group's last GroupMetadata record: the members keep
        # their generation and go on heartbeating.
        broker.restart()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            poll_all(consumers)
        assert assignments(consumers) == before
        assert revoked == []
    finally:
        for c in consumers:
            c.close()
