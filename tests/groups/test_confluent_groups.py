"""confluent-kafka consumer groups: partitions shared, rebalanced when members leave or stop
heartbeating, assignors, and commits."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.groups.conftest import (
    SESSION_MS,
    assignments,
    consumer_config,
    create_topic,
    poll_all,
    produce,
)
from tests.waiting import wait_until


def test_three_consumers_split_six_partitions_then_two_take_over(
    bootstrap: str, group_id: str
) -> None:
    topic = create_topic(bootstrap, partitions=6)
    produce(bootstrap, topic, per_partition=5, partitions=6)
    consumers = [Consumer(consumer_config(bootstrap, group_id)) for _ in range(3)]
    try:
        for c in consumers:
            c.subscribe([topic])
        seen: set[str] = set()

        def balanced() -> bool:
            seen.update(m.value().decode() for m in poll_all(consumers))
            return sorted(len(a) for a in assignments(consumers)) == [2, 2, 2]

        def everything_read() -> bool:
            seen.update(m.value().decode() for m in poll_all(consumers))
            return len(seen) == 30

        wait_until(balanced)
        assert sorted(p for a in assignments(consumers) for p in a) == list(range(6))
        wait_until(everything_read)

        consumers[0].close()
        rest = consumers[1:]

        def taken_over() -> bool:
            poll_all(rest)
            return sorted(p for a in assignments(rest) for p in a) == list(range(6))

        wait_until(taken_over)
        assert sorted(len(a) for a in assignments(rest)) == [3, 3]
    finally:
        for c in consumers[1:]:
            c.close()


CHILD = textwrap.dedent(
    """
    import sys, time
    from confluent_kafka import Consumer
    c = Consumer({"bootstrap.servers": sys.argv[1], "group.id": sys.argv[2],
                  "session.timeout.ms": int(sys.argv[4]), "heartbeat.interval.ms": 100,
                  "auto.offset.reset": "earliest"})
    c.subscribe([sys.argv[3]])
    while True:
        c.poll(0.1)
        if c.assignment():
            print("assigned", flush=True)
    """
)


def test_paused_member_is_expelled_after_its_session_timeout(bootstrap: str, group_id: str) -> None:
    topic = create_topic(bootstrap, partitions=4)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, bootstrap, group_id, topic, str(SESSION_MS)],
        stdout=subprocess.PIPE,
        text=True,
    )
    consumer = Consumer(consumer_config(bootstrap, group_id))
    try:
        consumer.subscribe([topic])

        def shared() -> bool:
            poll_all([consumer])
            return len(consumer.assignment()) == 2

        wait_until(shared)
        # A process stopped dead: no heartbeats, no leave request.
        os.kill(child.pid, signal.SIGSTOP)

        def alone() -> bool:
            poll_all([consumer])
            return len(consumer.assignment()) == 4

        wait_until(alone, timeout=SESSION_MS / 1000 + 10)
    finally:
        consumer.close()
        child.kill()
        os.kill(child.pid, signal.SIGCONT)
        child.wait()
        assert child.stdout is not None
        child.stdout.close()


@pytest.mark.parametrize("strategy", ["range", "roundrobin"])
def test_eager_assignors_share_every_partition(
    bootstrap: str, group_id: str, strategy: str
) -> None:
    topics = [create_topic(bootstrap, partitions=3), create_topic(bootstrap, partitions=2)]
    consumers = [
        Consumer(
            consumer_config(bootstrap, group_id, **{"partition.assignment.strategy": strategy})
        )
        for _ in range(2)
    ]
    try:
        for c in consumers:
            c.subscribe(topics)

        def assigned() -> bool:
            poll_all(consumers)
            owned = [(tp.topic, tp.partition) for c in consumers for tp in c.assignment()]
            return len(owned) == 5 and all(c.assignment() for c in consumers)

        wait_until(assigned)
        owned = sorted((tp.topic, tp.partition) for c in consumers for tp in c.assignment())
        assert owned == sorted(
            [(topics[0], p) for p in range(3)] + [(topics[1], p) for p in range(2)]
        )
    finally:
        for c in consumers:
            c.close()


def test_cooperative_rebalance_moves_only_what_must_move(bootstrap: str, group_id: str) -> None:
    topic = create_topic(bootstrap, partitions=6)
    revoked: list[list[int]] = []
    config = consumer_config(
        bootstrap, group_id, **{"partition.assignment.strategy": "cooperative-sticky"}
    )
    first = Consumer(config)
    second = Consumer(config)
    try:
        first.subscribe(
            [topic],
            on_revoke=lambda c, parts: revoked.append(sorted(p.partition for p in parts)),
        )

        def first_has_all() -> bool:
            poll_all([first])
            return len(first.assignment()) == 6

        wait_until(first_has_all)
        before = {tp.partition for tp in first.assignment()}
        second.subscribe([topic])

        def balanced() -> bool:
            poll_all([first, second])
            return sorted(len(a) for a in assignments([first, second])) == [3, 3]

        wait_until(balanced)
        kept = {tp.partition for tp in first.assignment()}
        moved = {tp.partition for tp in second.assignment()}
        assert kept | moved == before
        assert not kept & moved
        # Incremental: the first consumer gave up exactly the three that moved, never all six.
        assert [r for r in revoked if r] == [sorted(moved)]
    finally:
        first.close()
        second.close()


def test_commits_resume_and_standalone_commits(bootstrap: str, group_id: str) -> None:
    topic = create_topic(bootstrap, partitions=2)
    produce(bootstrap, topic, per_partition=10, partitions=2)
    consumer = Consumer(consumer_config(bootstrap, group_id))
    consumer.subscribe([topic])
    got = 0
    try:
        while got < 12:
            got += len(poll_all([consumer], 0.2))
        consumer.commit(
            offsets=[TopicPartition(topic, 0, 7, "meta-0"), TopicPartition(topic, 1, 5)],
            asynchronous=False,
        )
    finally:
        consumer.close()
    # A consumer that only `assign`s commits outside the group protocol (generation -1).
    standalone = Consumer(consumer_config(bootstrap, group_id))
    try:
        committed = standalone.committed(
            [TopicPartition(topic, 0), TopicPartition(topic, 1)], timeout=10
        )
        assert [(tp.offset, tp.metadata) for tp in committed] == [(7, "meta-0"), (5, None)]
        standalone.assign([TopicPartition(topic, 1, 5)])
        message = None
        while message is None:
            message = standalone.poll(0.5)
        assert message.offset() == 5
        standalone.commit(message=message, asynchronous=False)
        assert standalone.committed([TopicPartition(topic, 1)], timeout=10)[0].offset == 6
    finally:
        standalone.close()


def test_static_member_restart_keeps_its_partitions_without_a_rebalance(
    bootstrap: str, group_id: str
) -> None:
    topic = create_topic(bootstrap, partitions=4)
    revoked: list[int] = []

    def static(instance: str) -> Consumer:
        return Consumer(
            consumer_config(
                bootstrap, group_id, **{"group.instance.id": instance, "session.timeout.ms": 6000}
            )
        )

    steady = static("steady")
    bounced = static("bounced")
    try:
        steady.subscribe(
            [topic], on_revoke=lambda c, parts: revoked.extend(p.partition for p in parts)
        )
        bounced.subscribe([topic])

        def shared() -> bool:
            poll_all([steady, bounced])
            return sorted(len(a) for a in assignments([steady, bounced])) == [2, 2]

        wait_until(shared)
        before = assignments([steady, bounced])
        revoked.clear()
        # A static member leaves no LeaveGroup behind: its place waits for it.
        bounced.close()
        bounced = static("bounced")
        bounced.subscribe([topic])

        def back() -> bool:
            poll_all([steady, bounced])
            return len(bounced.assignment()) == 2

        wait_until(back)
        assert assignments([steady, bounced]) == before
        assert revoked == [], "the other member never had to give anything up"
    finally:
        steady.close()
        bounced.close()
