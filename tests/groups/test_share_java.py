"""Share groups read with Kafka 4.4's own KafkaShareConsumer (`ShareWorker.java`, explicit
acknowledgements): several members split a topic's records and one SIGKILLed loses none,
released records come back with a higher delivery count, rejected ones and ones delivered
`share.delivery.count.limit` times are never delivered again.

FERROLOG_SHARE_BOOTSTRAP=host:port runs the same assertions against another broker (Kafka 4.4
with `share_tools.SHARE_SETTINGS`)."""

from __future__ import annotations

import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
    ResourceType,
)
from ferrolog.client.connection import Connection

from bench.harness import brokers, kafka_dist
from tests.groups.share_tools import connect, describe

pytestmark = [
    pytest.mark.native,
    pytest.mark.skipif(
        not brokers.jars_available(),
        reason="needs java and Kafka's jars (make bench-quick fetches them)",
    ),
]

WORKER = Path(__file__).with_name("ShareWorker.java")
# (partition, offset, delivery count, value), as ShareWorker prints each delivery.
Delivery = tuple[int, int, int, str]


@pytest.fixture
def bootstrap(share_bootstrap: str) -> str:
    return share_bootstrap


def new_topic(bootstrap: str, partitions: int) -> str:
    name = f"share-java-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(30)
    return name


def new_group(bootstrap: str, **configs: str) -> str:
    """A share group reading from the earliest records, with `configs` (dots as
    underscores) of its own."""
    group = f"share-java-{uuid.uuid4().hex[:8]}"
    entries = {"share.auto.offset.reset": "earliest"}
    entries.update({name.replace("_", "."): value for name, value in configs.items()})
    resource = ConfigResource(
        ResourceType.GROUP,
        group,
        incremental_configs=[
            ConfigEntry(name, value, incremental_operation=AlterConfigOpType.SET)
            for name, value in entries.items()
        ],
    )
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.incremental_alter_configs([resource])[resource].result(30)
    return group


def produce(bootstrap: str, topic: str, values: list[str], partitions: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i, value in enumerate(values):
        producer.produce(topic, value.encode(), partition=i % partitions)
    assert producer.flush(30) == 0


class Worker:
    """One ShareWorker process and the deliveries it printed so far."""

    def __init__(
        self,
        bootstrap: str,
        group: str,
        topic: str,
        idle_ms: int,
        release_until: int = 0,
        **client: str,
    ) -> None:
        """`client`: the consumer's properties (dots as underscores)."""
        properties = [f"{name.replace('_', '.')}={value}" for name, value in client.items()]
        command = [
            "java", "-Xmx256M", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-cp", kafka_dist.classpath(kafka_dist.KAFKA4), str(WORKER),
            bootstrap, group, topic, "0", str(idle_ms), str(release_until), *properties,
        ]  # fmt: skip
        # The client's log goes to a file: a pipe nobody reads could fill and stall it.
        self.log = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed by kill or finish)
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.deliveries: list[Delivery] = []
        # Records each poll brought.
        self.polls: list[int] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        with self.proc.stdout:
            for line in self.proc.stdout:
                if line.startswith("- "):
                    self.polls.append(int(line[2:]))
                    continue
                partition, offset, count, value = line.rstrip("\n").split(" ", 3)
                self.deliveries.append((int(partition), int(offset), int(count), value))

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)
        self._reader.join(10)
        self.log.close()

    def finish(self, timeout: float = 120) -> list[Delivery]:
        try:
            self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        self._reader.join(10)
        with self.log:
            self.log.seek(0)
            assert self.proc.returncode == 0, self.log.read()[-3000:]
        return self.deliveries


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.1)


def test_members_split_a_topic_and_a_killed_one_loses_nothing(bootstrap: str) -> None:
    topic = new_topic(bootstrap, partitions=3)
    group = new_group(bootstrap)
    workers = [Worker(bootstrap, group, topic, idle_ms=8000) for _ in range(3)]
    with closing(connect(bootstrap)) as conn:
        wait_for(lambda: assigned_members(conn, group) == 3, 90, "three members assigned")
    values = [f"v{i}" for i in range(3000)]
    produce(bootstrap, topic, values, partitions=3)
    victim = workers[0]
    wait_for(lambda: len(victim.deliveries) >= 50, 90, "fifty records for the first member")
    victim.kill()
    survivors = [w.finish() for w in workers[1:]]
    delivered = {d[3] for d in victim.deliveries} | {d[3] for s in survivors for d in s}
    assert delivered == set(values)
    # Everything was accepted: a new member finds nothing left.
    assert Worker(bootstrap, group, topic, idle_ms=3000).finish() == []


def assigned_members(conn: Connection, group: str) -> int:
    """The members of the share group with partitions assigned."""
    (described,) = describe(conn, group)
    return sum(
        1
        for m in described["members"] or []
        if any(t["partitions"] for t in m["assignment"]["topic_partitions"])
    )


def test_released_records_come_back_counted(bootstrap: str) -> None:
    topic = new_topic(bootstrap, partitions=1)
    group = new_group(bootstrap)
    values = [f"release-{i}" for i in range(5)] + ["plain"]
    produce(bootstrap, topic, values, partitions=1)
    deliveries = Worker(bootstrap, group, topic, idle_ms=4000, release_until=3).finish()
    counts: dict[str, list[int]] = defaultdict(list)
    for _, _, count, value in deliveries:
        counts[value].append(count)
    assert counts == {**{v: [1, 2, 3] for v in values[:5]}, "plain": [1]}


def test_rejected_and_exhausted_records_are_archived(bootstrap: str) -> None:
    topic = new_topic(bootstrap, partitions=1)
    group = new_group(bootstrap, share_delivery_count_limit="2")
    values = ["reject-a", "release-b", "plain-c"]
    produce(bootstrap, topic, values, partitions=1)
    # release-b is released at every delivery: archived after the second.
    deliveries = Worker(bootstrap, group, topic, idle_ms=4000, release_until=99).finish()
    counts: dict[str, list[int]] = defaultdict(list)
    for _, _, count, value in deliveries:
        counts[value].append(count)
    assert counts == {"reject-a": [1], "release-b": [1, 2], "plain-c": [1]}
    assert Worker(bootstrap, group, topic, idle_ms=3000, release_until=99).finish() == []


def test_record_limit_mode_polls_at_most_max_poll_records(bootstrap: str) -> None:
    """share.acquire.mode=record_limit (KIP-1206, ShareFetch v2): each poll brings at most
    max.poll.records, though the records were produced in one batch, and every record comes
    once."""
    topic = new_topic(bootstrap, partitions=1)
    group = new_group(bootstrap)
    values = [f"r{i}" for i in range(20)]
    produce(bootstrap, topic, values, partitions=1)
    worker = Worker(
        bootstrap,
        group,
        topic,
        idle_ms=4000,
        share_acquire_mode="record_limit",
        max_poll_records="3",
    )
    deliveries = worker.finish()
    assert sorted(value for *_, value in deliveries) == sorted(values)
    assert {count for _, _, count, _ in deliveries} == {1}
    assert worker.polls
    assert max(worker.polls) <= 3, worker.polls
