"""Online migration between classic and KIP-848 consumer groups (Kafka 4.1's
`group.consumer.migration.policy`, bidirectional by default), with real clients: a classic
confluent-kafka consumer's group becomes a consumer group when a `group.protocol=consumer`
consumer joins it, both share the partitions, nothing committed is delivered again, Kafka's
kafka-consumer-groups shows both members; when the consumer-protocol member leaves the group
is classic again and the classic member takes every partition back.

And KIP-848 groups outlive a broker restart: their records in `__consumer_offsets` bring the
members back with their epochs."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient
from ferrolog.embedded import EmbeddedBroker
from ferrolog.ports import free_port

from bench.harness import brokers
from tests.groups.conftest import create_topic, produce
from tests.groups.consumer_tools import (
    COORDINATOR_ERRORS,
    Reader,
    assigned,
    config,
    consumer_groups,
    describe_consumer,
    upgraded_broker,
)

SETTINGS = {
    "offsets.topic.num.partitions": "2",
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "500",
    "group.consumer.session.timeout.ms": "3000",
    "group.consumer.heartbeat.interval.ms": "200",
    # Below Kafka's bounds, which must move with them.
    "group.consumer.min.session.timeout.ms": "1000",
    "group.consumer.min.heartbeat.interval.ms": "100",
}
PARTITIONS = 6


@pytest.fixture(scope="module")
def bootstrap() -> Iterator[str]:
    with upgraded_broker(SETTINGS) as b:
        yield b.bootstrap_servers


def group_type(bootstrap: str, group: str) -> str:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    listed = admin.list_consumer_groups().result(10)
    mine = [g for g in listed.valid if g.group_id == group]
    assert mine, (listed.valid, listed.errors)
    return str(mine[0].type).rsplit(".", 1)[-1]


def test_classic_group_upgrades_and_downgrades_online(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=PARTITIONS)
    group = f"g-{uuid.uuid4().hex[:8]}"
    produce(bootstrap, topic, per_partition=5, partitions=PARTITIONS)
    classic = Consumer(config(bootstrap, group, "classic"))
    modern: Consumer | None = None
    try:
        classic.subscribe([topic])
        reader = Reader([classic])
        # The classic member alone reads and commits everything there is.
        assert reader.until(lambda: len(reader.all()) == 5 * PARTITIONS, 30), reader.got
        assert group_type(bootstrap, group) == "CLASSIC"

        # A consumer-protocol member joins: the group becomes a consumer group in place and
        # the two share the partitions.
        produce(bootstrap, topic, per_partition=5, partitions=PARTITIONS)
        modern = Consumer(config(bootstrap, group, "consumer"))
        modern.subscribe([topic])
        both = Reader([classic, modern])

        def split() -> bool:
            a, b = assigned(classic), assigned(modern)  # type: ignore[arg-type]
            return bool(a) and bool(b) and not a & b and a | b == set(range(PARTITIONS))

        assert both.until(split, 40), (classic.assignment(), modern.assignment())
        assert group_type(bootstrap, group) == "CONSUMER"
        described = describe_consumer(bootstrap, group)
        assert described["error_code"] == 0, described
        assert len(described["members"]) == 2, described
        assert both.until(lambda: len(both.all()) >= 5 * PARTITIONS, 30), both.got
        # Nothing committed before came again; each new record came once (commits are
        # synchronous, so a partition that moved resumes after the last one read).
        assert all(offset >= 5 for _, offset in both.all()), both.got
        assert sorted(both.all()) == [(p, o) for p in range(PARTITIONS) for o in range(5, 10)]
        assert all(both.got), both.got

        # Kafka 4.1's kafka-consumer-groups lists both members of the migrated group.
        if brokers.jars_available():
            assert len(consumer_groups(bootstrap, group, "--members")) == 1 + 2

        # The consumer-protocol member leaves: the group is classic again and the classic
        # member gets every partition back, resuming after what was committed.
        modern.close()
        modern = None
        produce(bootstrap, topic, per_partition=5, partitions=PARTITIONS)
        alone = Reader([classic])
        assert alone.until(lambda: assigned(classic) == set(range(PARTITIONS)), 40), (
            classic.assignment()
        )
        assert group_type(bootstrap, group) == "CLASSIC"
        assert alone.until(lambda: len(alone.all()) >= 5 * PARTITIONS, 30), alone.got
        assert sorted(alone.all()) == [(p, o) for p in range(PARTITIONS) for o in range(10, 15)]
    finally:
        if modern is not None:
            modern.close()
        classic.close()


def test_upgrade_disabled_refuses_the_consumer_protocol_member() -> None:
    with upgraded_broker({**SETTINGS, "group.consumer.migration.policy": "disabled"}) as broker:
        bootstrap = broker.bootstrap_servers
        topic = create_topic(bootstrap, partitions=2)
        group = f"g-{uuid.uuid4().hex[:8]}"
        classic = Consumer(config(bootstrap, group, "classic"))
        modern = Consumer(config(bootstrap, group, "consumer"))
        try:
            classic.subscribe([topic])
            reader = Reader([classic])
            assert reader.until(lambda: assigned(classic) == {0, 1}, 30)
            modern.subscribe([topic])
            # Kafka answers GROUP_ID_NOT_FOUND ("Group ... is not a consumer group."): the
            # new member gets nothing and the classic one keeps its partitions.
            reader.until(lambda: False, 3)
            modern.poll(0.5)
            assert assigned(modern) == set()
            assert assigned(classic) == {0, 1}
            assert group_type(bootstrap, group) == "CLASSIC"
        finally:
            modern.close()
            classic.close()


def test_consumer_group_survives_a_broker_restart(tmp_path: Any) -> None:
    port = free_port()
    overrides = {**SETTINGS, "listeners": f"PLAINTEXT://127.0.0.1:{port}"}
    data = tmp_path / "data"
    with EmbeddedBroker(data, overrides=overrides) as broker:
        bootstrap = broker.bootstrap_servers
        topic = create_topic(bootstrap, partitions=4)
        produce(bootstrap, topic, per_partition=5, partitions=4)
        group = f"g-{uuid.uuid4().hex[:8]}"
        one = Consumer(config(bootstrap, group, "consumer"))
        two = Consumer(config(bootstrap, group, "consumer"))
        one.subscribe([topic])
        two.subscribe([topic])
        reader = Reader([one, two])

        def split() -> bool:
            a, b = assigned(one), assigned(two)
            return len(a) == 2 and len(b) == 2 and a | b == set(range(4))

        assert reader.until(split, 30)
        assert reader.until(lambda: len(reader.all()) == 20, 30), reader.got
        before = describe_consumer(bootstrap, group)
        epochs = {m["member_id"]: m["member_epoch"] for m in before["members"]}
    try:
        # The broker restarts on the same port; the members keep heartbeating through it.
        with EmbeddedBroker(data, overrides=overrides) as broker:
            end = time.monotonic() + 20
            after = describe_consumer(broker.bootstrap_servers, group)
            while after["error_code"] in COORDINATOR_ERRORS and time.monotonic() < end:
                time.sleep(0.1)  # the coordinator loads the partition
                after = describe_consumer(broker.bootstrap_servers, group)
            assert after["error_code"] == 0, after
            # Loaded from the log: the same members, epochs and assignments as before.
            assert {m["member_id"]: m["member_epoch"] for m in after["members"]} == epochs
            assert after["group_epoch"] == before["group_epoch"]
            produce(broker.bootstrap_servers, topic, per_partition=5, partitions=4)
            more = Reader([one, two])
            assert more.until(lambda: len(more.all()) >= 20, 40), more.got
            assert sorted(more.all()) == [(p, o) for p in range(4) for o in range(5, 10)]
            now = describe_consumer(broker.bootstrap_servers, group)
            assert {m["member_id"] for m in now["members"]} == set(epochs), now
    finally:
        one.close()
        two.close()
