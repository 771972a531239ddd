"""The same KIP-848 scenarios against ferrolog and against Apache Kafka 4.4.0 (a KRaft broker
from bench/cache's jars, with the same group timeouts), each test asserting the same answers on
both: what the clients get, what ListGroups, DescribeGroups and ConsumerGroupDescribe answer,
and what Kafka's own kafka-consumer-groups and kafka-configs print.

Where ferrolog still answers differently, the test leaves that answer out and says so:
- Kafka 4.4 takes and lists the share.* and streams.* group configs (share and streams groups)
  and the streams dead-letter queue's errors.deadletterqueue.*; ferrolog has neither kind of
  group and refuses their configs ("Unknown group config name: ..."). Nor does it take
  consumer.assignment.interval.ms (4.4 computes a consumer group's next target assignment at
  most that often; ferrolog computes it at each group epoch)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from ferrolog.embedded import EmbeddedBroker

from bench.harness import brokers, kafka_dist
from tests.cluster.harness import java_command, needs_kafka_jars
from tests.groups.conftest import create_topic, produce
from tests.groups.consumer_tools import (
    Reader,
    assigned,
    config,
    consumer_groups,
    describe_consumer,
    join,
    kafka_configs,
    upgraded_broker,
    wait_for,
)
from tests.groups.test_java_client import console_consumer
from tests.handlers.features_tools import request
from tests.waiting import wait_until

LIST_GROUPS, DESCRIBE_GROUPS = 16, 15
# kafka-configs' lines for the group configs only Kafka has (see the docstring).
KAFKA_ONLY_GROUP_CONFIGS = (
    "  share.", "  streams.", "  errors.deadletterqueue.", "  consumer.assignment.interval.ms=",
)  # fmt: skip
PARTITIONS = 6
# Kafka's own bounds are 45 s and 5 s; both brokers take lower ones the same way.
SETTINGS = {
    "offsets.topic.num.partitions": "2",
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "500",
    "group.consumer.session.timeout.ms": "3000",
    "group.consumer.heartbeat.interval.ms": "200",
    "group.consumer.min.session.timeout.ms": "1000",
    "group.consumer.min.heartbeat.interval.ms": "100",
}

pytestmark = needs_kafka_jars


@pytest.fixture(scope="module", params=["ferrolog", "kafka4"])
def bootstrap(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "ferrolog":
        with upgraded_broker(SETTINGS) as b:
            yield b.bootstrap_servers
        return
    kafka = brokers.KafkaKRaft("kafka4", "kafka-kraft", kafka_dist.KAFKA4, overrides=SETTINGS)
    try:
        kafka.prepare()
        kafka.spawn()
        brokers.wait_port(kafka.port, 120, kafka.proc)
        yield kafka.bootstrap
    finally:
        kafka.cleanup()


def list_group(bootstrap: str, group: str) -> tuple[str, str, str]:
    """ListGroups v5's (type, protocol type, state) of `group`."""
    answer = request(bootstrap, LIST_GROUPS, 5, {"states_filter": [], "types_filter": []})
    mine = [g for g in answer["groups"] if g["group_id"] == group]
    assert len(mine) == 1, answer
    return mine[0]["group_type"], mine[0]["protocol_type"], mine[0]["group_state"]


def describe_classic(bootstrap: str, group: str) -> tuple[int, str, str, str, int]:
    """DescribeGroups v5's (error, state, protocol type, protocol, member count)."""
    body = {"groups": [group], "include_authorized_operations": False}
    g = request(bootstrap, DESCRIBE_GROUPS, 5, body)["groups"][0]
    return (g["error_code"], g["group_state"], g["protocol_type"], g["protocol_data"],
            len(g["members"]))  # fmt: skip


def why_not_classic(bootstrap: str, group: str) -> tuple[int, str, str | None]:
    """DescribeGroups v6's (error, state, error message): v6 says why a group is Dead."""
    body = {"groups": [group], "include_authorized_operations": False}
    g = request(bootstrap, DESCRIBE_GROUPS, 6, body)["groups"][0]
    return g["error_code"], g["group_state"], g["error_message"]


def test_consumers_split_rebalance_commit_and_resume(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=PARTITIONS)
    produce(bootstrap, topic, per_partition=5, partitions=PARTITIONS)
    group = f"g-{uuid.uuid4().hex[:8]}"
    one = Consumer(config(bootstrap, group, "consumer"))
    two = Consumer(config(bootstrap, group, "consumer"))
    try:
        for c in (one, two):
            c.subscribe([topic])

        def split() -> bool:
            a, b = assigned(one), assigned(two)
            return len(a) == len(b) == 3 and a | b == set(range(PARTITIONS))

        assert wait_for(split, [one, two], 30), (one.assignment(), two.assignment())
        assert list_group(bootstrap, group) == ("consumer", "consumer", "Stable")
        # The classic API sees no classic group by that name; from v6 on it says so.
        assert describe_classic(bootstrap, group) == (0, "Dead", "", "", 0)
        assert why_not_classic(bootstrap, group) == (
            69,
            "Dead",
            f"Group {group} is not a classic group.",
        )
        assert why_not_classic(bootstrap, "nobody") == (69, "Dead", "Group nobody not found.")
        described = describe_consumer(bootstrap, group)
        assert (described["error_code"], described["group_state"]) == (0, "Stable")
        # Kafka 4.4 starts a group at epoch 1: each join bumps it once.
        assert (described["assignor_name"], described["group_epoch"]) == ("uniform", 3)
        assert [m["member_epoch"] for m in described["members"]] == [3, 3]
        # kafka-consumer-groups shows both members with their three partitions each.
        verbose = consumer_groups(bootstrap, group, "--members", "--verbose")
        assert verbose[0] == [
            "GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "CURRENT-EPOCH",
            "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT",
        ]  # fmt: skip
        rows = verbose[1:]
        assert [(r[3], r[4], r[5], r[7]) for r in rows] == [("rdkafka", "3", "3", "3")] * 2
        shown = sorted(int(p) for r in rows for p in r[6].split(":")[1].split(","))
        assert shown == list(range(PARTITIONS)), verbose
        assert all(r[6] == r[8] and r[6].startswith(f"{topic}:") for r in rows), verbose

        # `two` reads its partitions to the end and commits, then leaves: `one` gets all six.
        def two_read_all() -> bool:
            positions = two.position(two.assignment())
            return len(positions) == 3 and all(tp.offset == 5 for tp in positions)

        assert wait_for(two_read_all, [one, two], 20)
        two.commit(asynchronous=False)
        two.close()
        assert wait_for(lambda: len(one.assignment()) == PARTITIONS, [one], 30), one.assignment()
        described = describe_consumer(bootstrap, group)
        assert (described["group_epoch"], len(described["members"])) == (4, 1)
        assert described["members"][0]["member_epoch"] == 4
    finally:
        one.close()
    assert list_group(bootstrap, group) == ("consumer", "consumer", "Empty")
    # A new member resumes from the commits: only the 15 records `two` did not commit come.
    three = Consumer(config(bootstrap, group, "consumer"))
    try:
        three.subscribe([topic])
        got: dict[int, int] = {}
        assert wait_for(lambda: got.get(0, 0) >= 15, [three], 30, got), got
        assert three.poll(1.0) is None
        committed = three.committed(
            [TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=10
        )
        assert sorted(max(tp.offset, 0) for tp in committed) == [0, 0, 0, 5, 5, 5]
    finally:
        three.close()


CHILD = """
import sys, time
from confluent_kafka import Consumer
c = Consumer({"bootstrap.servers": sys.argv[1], "group.id": sys.argv[2],
              "group.protocol": "consumer", "auto.offset.reset": "earliest"})
c.subscribe([sys.argv[3]])
while True:
    c.poll(0.1)
"""


def test_a_killed_member_is_expelled_after_the_session_timeout(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=PARTITIONS)
    group = f"g-{uuid.uuid4().hex[:8]}"
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(CHILD), bootstrap, group, topic],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    survivor = Consumer(config(bootstrap, group, "consumer"))
    try:
        survivor.subscribe([topic])

        # Both members hold their three partitions once the group is Stable.
        def settled() -> bool:
            stable = describe_consumer(bootstrap, group)["group_state"] == "Stable"
            return stable and len(survivor.assignment()) == 3

        assert wait_for(settled, [survivor], 30), describe_consumer(bootstrap, group)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        killed = time.monotonic()
        # No leave: the coordinator expels the member after the 3 s session timeout.
        assert wait_for(lambda: len(survivor.assignment()) == PARTITIONS, [survivor], 30)
        assert time.monotonic() - killed >= 2.5
        assert len(describe_consumer(bootstrap, group)["members"]) == 1
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        survivor.close()


def test_a_classic_group_migrates_online_and_back(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=PARTITIONS)
    group = f"g-{uuid.uuid4().hex[:8]}"
    produce(bootstrap, topic, per_partition=5, partitions=PARTITIONS)
    classic = Consumer(config(bootstrap, group, "classic"))
    modern: Consumer | None = None
    try:
        classic.subscribe([topic])
        reader = Reader([classic])
        assert reader.until(lambda: len(reader.all()) == 5 * PARTITIONS, 30), reader.got
        assert list_group(bootstrap, group) == ("classic", "consumer", "Stable")
        assert describe_classic(bootstrap, group) == (0, "Stable", "consumer", "range", 1)
        not_consumer = describe_consumer(bootstrap, group)
        assert (not_consumer["error_code"], not_consumer["error_message"]) == (
            69,
            f"Group {group} is not a consumer group.",
        )

        modern = Consumer(config(bootstrap, group, "consumer"))
        modern.subscribe([topic])
        both = Reader([classic, modern])

        def split() -> bool:
            a, b = assigned(classic), assigned(modern)  # type: ignore[arg-type]
            return len(a) == len(b) == 3 and a | b == set(range(PARTITIONS))

        assert both.until(split, 40), (classic.assignment(), modern.assignment())
        assert list_group(bootstrap, group) == ("consumer", "consumer", "Stable")
        assert describe_classic(bootstrap, group) == (0, "Dead", "", "", 0)
        described = describe_consumer(bootstrap, group)
        assert (described["group_state"], described["group_epoch"]) == ("Stable", 2)
        assert [m["member_epoch"] for m in described["members"]] == [2, 2]
        # One member of each protocol: classic (0) and consumer (1).
        assert sorted(m["member_type"] for m in described["members"]) == [0, 1]
        members = consumer_groups(bootstrap, group, "--members")
        assert members[0] == ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"]
        assert [(r[3], r[4]) for r in members[1:]] == [("rdkafka", "3")] * 2
        state = consumer_groups(bootstrap, group, "--state")
        assert [r[-3:] for r in state[1:]] == [["uniform", "Stable", "2"]]

        # The consumer-protocol member leaves: classic again, the classic member has all.
        modern.close()
        modern = None
        alone = Reader([classic])
        assert alone.until(lambda: assigned(classic) == set(range(PARTITIONS)), 40)
        assert list_group(bootstrap, group) == ("classic", "consumer", "Stable")
        assert describe_classic(bootstrap, group) == (0, "Stable", "consumer", "range", 1)
        assert describe_consumer(bootstrap, group)["error_code"] == 69
    finally:
        if modern is not None:
            modern.close()
        classic.close()
    assert list_group(bootstrap, group) == ("classic", "consumer", "Empty")
    assert describe_classic(bootstrap, group) == (0, "Empty", "consumer", "", 0)


def tool_answer(done: subprocess.CompletedProcess[str], group: str) -> tuple[int, list[str]]:
    """kafka-configs' exit code and what it printed, the group's name as <g>, the Java stack
    trace left out (its first line says the command and the broker's address)."""
    out = (done.stdout + done.stderr).replace(group, "<g>")
    lines = [
        line for line in out.splitlines()
        if line.strip() and not line.startswith(("\tat ", "Error while executing"))
    ]  # fmt: skip
    return done.returncode, lines


def test_kafka_configs_for_a_group(bootstrap: str) -> None:
    group = f"g-{uuid.uuid4().hex[:8]}"
    # A member first: kafka-configs --describe finds the group through ListGroups (without
    # one it asks ListConfigResources, which ferrolog lacks: see the docstring).
    assert join(bootstrap, group, create_topic(bootstrap))["error_code"] == 0

    def configs(*args: str) -> tuple[int, list[str]]:
        return tool_answer(kafka_configs(bootstrap, "--entity-name", group, *args), group)

    assert configs("--describe") == (0, ["Dynamic configs for group <g> are:"])
    assert configs(
        "--alter", "--add-config",
        "consumer.session.timeout.ms=20000,consumer.heartbeat.interval.ms=1000",
    ) == (0, ["Completed updating config for group <g>."])  # fmt: skip
    assert configs("--describe") == (0, [
        "Dynamic configs for group <g> are:",
        "  consumer.heartbeat.interval.ms=1000 sensitive=false "
        "synonyms={DYNAMIC_GROUP_CONFIG:consumer.heartbeat.interval.ms=1000, "
        "STATIC_BROKER_CONFIG:group.consumer.heartbeat.interval.ms=200, "
        "DEFAULT_CONFIG:group.consumer.heartbeat.interval.ms=5000}",
        "  consumer.session.timeout.ms=20000 sensitive=false "
        "synonyms={DYNAMIC_GROUP_CONFIG:consumer.session.timeout.ms=20000, "
        "STATIC_BROKER_CONFIG:group.consumer.session.timeout.ms=3000, "
        "DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}",
    ])  # fmt: skip
    invalid = "org.apache.kafka.common.errors.InvalidConfigurationException"
    low = "consumer.session.timeout.ms must be in the range 1000 to 60000 inclusive."
    assert configs("--alter", "--add-config", "consumer.session.timeout.ms=500") == (1, [
        f"java.util.concurrent.ExecutionException: {invalid}: {low}",
        f"Caused by: {invalid}: {low}",
    ])  # fmt: skip
    unknown = "Unknown group config name: foo.bar"
    assert configs("--alter", "--add-config", "foo.bar=1") == (1, [
        f"java.util.concurrent.ExecutionException: {invalid}: {unknown}",
        f"Caused by: {invalid}: {unknown}",
    ])  # fmt: skip
    assert configs("--alter", "--delete-config", "consumer.heartbeat.interval.ms") == (
        0,
        ["Completed updating config for group <g>."],
    )
    code, every = configs("--describe", "--all")
    # Kafka lists the configs of the groups ferrolog does not have too (see the docstring).
    assert (code, [line for line in every if not line.startswith(KAFKA_ONLY_GROUP_CONFIGS)]) == (
        0, [
            "All configs for group <g> are:",
            "  consumer.heartbeat.interval.ms=200 sensitive=false "
            "synonyms={STATIC_BROKER_CONFIG:group.consumer.heartbeat.interval.ms=200, "
            "DEFAULT_CONFIG:group.consumer.heartbeat.interval.ms=5000}",
            "  consumer.session.timeout.ms=20000 sensitive=false "
            "synonyms={DYNAMIC_GROUP_CONFIG:consumer.session.timeout.ms=20000, "
            "STATIC_BROKER_CONFIG:group.consumer.session.timeout.ms=3000, "
            "DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}",
        ],
    )  # fmt: skip

    # A group with configs and no members: kafka-configs finds it through ListConfigResources
    # (API 74), which lists every group that has configs.
    lonely = f"g-{uuid.uuid4().hex[:8]}"

    def configs_of(*args: str) -> tuple[int, list[str]]:
        return tool_answer(kafka_configs(bootstrap, "--entity-name", lonely, *args), lonely)

    assert configs_of("--describe") == (
        0, ["The group '<g>' doesn't exist and doesn't have dynamic config."],
    )  # fmt: skip
    assert configs_of("--alter", "--add-config", "consumer.session.timeout.ms=20000") == (
        0, ["Completed updating config for group <g>."],
    )  # fmt: skip
    assert configs_of("--describe") == (0, [
        "Dynamic configs for group <g> are:",
        "  consumer.session.timeout.ms=20000 sensitive=false "
        "synonyms={DYNAMIC_GROUP_CONFIG:consumer.session.timeout.ms=20000, "
        "STATIC_BROKER_CONFIG:group.consumer.session.timeout.ms=3000, "
        "DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}",
    ])  # fmt: skip
    # Without a name: every group that has configs (other tests' too).
    code, every = tool_answer(kafka_configs(bootstrap, "--describe"), lonely)
    assert code == 0, every
    assert {"Dynamic configs for group <g> are:", f"Dynamic configs for group {group} are:"} <= (
        set(every)
    ), every


@pytest.fixture(params=["ferrolog", "kafka4"])
def restartable(request: pytest.FixtureRequest) -> Iterator[tuple[str, Callable[[], None]]]:
    """A broker of its own (bootstrap, restart): restarted on the same port and data."""
    if request.param == "ferrolog":
        # A fixed port: the clients know only that one.
        listener = {"listeners": f"PLAINTEXT://127.0.0.1:{brokers.free_port()}"}
        with EmbeddedBroker(overrides={**SETTINGS, **listener}) as b:

            def restart_ferrolog() -> None:
                b.restart()

            yield b.bootstrap_servers, restart_ferrolog
        return
    kafka = brokers.KafkaKRaft("kafka4", "kafka-kraft", kafka_dist.KAFKA4, overrides=SETTINGS)

    def restart() -> None:
        kafka.stop()
        kafka.spawn()
        brokers.wait_port(kafka.port, 120, kafka.proc)

    try:
        kafka.prepare()
        kafka.spawn()
        brokers.wait_port(kafka.port, 120, kafka.proc)
        yield kafka.bootstrap, restart
    finally:
        kafka.cleanup()


def test_members_keep_their_epochs_and_partitions_through_a_broker_restart(
    restartable: tuple[str, Callable[[], None]],
) -> None:
    bootstrap, restart = restartable
    topic = create_topic(bootstrap, partitions=4)
    produce(bootstrap, topic, per_partition=5, partitions=4)
    group = f"g-{uuid.uuid4().hex[:8]}"
    one = Consumer(config(bootstrap, group, "consumer"))
    two = Consumer(config(bootstrap, group, "consumer"))
    try:
        one.subscribe([topic])
        two.subscribe([topic])
        reader = Reader([one, two])
        assert reader.until(lambda: len(reader.all()) == 20, 30), reader.got

        def stable() -> bool:
            return describe_consumer(bootstrap, group)["group_state"] == "Stable"

        assert reader.until(stable, 30)
        before = describe_consumer(bootstrap, group)
        restart()
        # The coordinator loads the group from `__consumer_offsets`: the same members, with
        # the same epochs and assignments.
        end = time.monotonic() + 60
        after = describe_consumer(bootstrap, group)
        while after["error_code"] in (14, 15, 16) and time.monotonic() < end:
            time.sleep(0.2)
            after = describe_consumer(bootstrap, group)
        assert after["error_code"] == 0, after

        def members(d: dict[str, Any]) -> dict[str, tuple[int, Any]]:
            return {m["member_id"]: (m["member_epoch"], m["assignment"]) for m in d["members"]}

        assert (after["group_epoch"], members(after)) == (before["group_epoch"], members(before))
        # Both resume after their commits: each new record once, none of the old.
        produce(bootstrap, topic, per_partition=5, partitions=4)
        more = Reader([one, two])
        assert more.until(lambda: len(more.all()) >= 20, 60), more.got
        assert sorted(more.all()) == [(p, o) for p in range(4) for o in range(5, 10)]
        assert set(members(describe_consumer(bootstrap, group))) == set(members(before))
    finally:
        one.close()
        two.close()


class JavaConsumer:
    """Kafka 4.4's console consumer (the Java client) in group `group` with
    `group.protocol=consumer`, auto-committing every 200 ms and at exit; each record's value
    goes to a file of its own, read back with `values`."""

    def __init__(self, bootstrap: str, topic: str, group: str, out: Path) -> None:
        self.out = out
        command = java_command(
            "org.apache.kafka.tools.consumer.ConsoleConsumer",
            "--bootstrap-server", bootstrap, "--topic", topic, "--group", group,
            "--command-property", "group.protocol=consumer",
            "--command-property", "auto.offset.reset=earliest",
            "--command-property", "auto.commit.interval.ms=200",
        )  # fmt: skip
        with out.open("w") as sink:
            self.proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.DEVNULL)

    def values(self) -> list[str]:
        return self.out.read_text().split()

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.proc.wait(60)


def _produce_round(bootstrap: str, topic: str, round_: int, partitions: int) -> set[str]:
    values = {f"{round_}-{p}-{i}" for p in range(partitions) for i in range(5)}
    producer = Producer({"bootstrap.servers": bootstrap})
    for value in sorted(values):
        producer.produce(topic, value.encode(), partition=int(value.split("-")[1]))
    assert producer.flush(20) == 0
    return values


def test_java_consumers_split_rebalance_commit_and_resume_through_a_restart(
    restartable: tuple[str, Callable[[], None]], tmp_path: Path
) -> None:
    """The Java client with group.protocol=consumer: two members split the partitions, the
    survivor of a SIGKILL takes them all after the session timeout, keeps its membership and
    reads on through a broker restart, commits when it stops; a new member resumes there."""
    bootstrap, restart = restartable
    topic = create_topic(bootstrap, partitions=4)
    first = _produce_round(bootstrap, topic, 1, 4)
    group = f"g-{uuid.uuid4().hex[:8]}"
    one = JavaConsumer(bootstrap, topic, group, tmp_path / "one.txt")
    two = JavaConsumer(bootstrap, topic, group, tmp_path / "two.txt")
    try:
        # Both members hold two partitions each, and between them they read every record.
        def split() -> bool:
            d = describe_consumer(bootstrap, group)
            held = [len(m["assignment"]["topic_partitions"][0]["partitions"])
                    for m in d["members"] if m["assignment"]["topic_partitions"]]  # fmt: skip
            return d["group_state"] == "Stable" and held == [2, 2]

        wait_until(split, 60, what="two members with two partitions each")
        wait_until(lambda: set(one.values()) | set(two.values()) == first, 30,
                   what="the first round read")  # fmt: skip
        assert {m["client_id"] for m in describe_consumer(bootstrap, group)["members"]} == {
            "console-consumer"
        }
        two.stop(signal.SIGKILL)
        killed = time.monotonic()

        def alone() -> bool:
            members = describe_consumer(bootstrap, group)["members"]
            if len(members) != 1 or not members[0]["assignment"]["topic_partitions"]:
                return False
            held = members[0]["assignment"]["topic_partitions"][0]["partitions"]
            return sorted(held) == list(range(4))

        wait_until(alone, 30, what="the survivor alone with every partition")
        # Expelled by the 3 s session timeout, not at the kill. The timer runs from the last
        # heartbeat the client got out, which can be well before the kill: Kafka 4.1 once
        # expelled it 2.27 s after.
        assert time.monotonic() - killed >= 1.5
        survivor = describe_consumer(bootstrap, group)["members"][0]["member_id"]
        restart()
        second = _produce_round(bootstrap, topic, 2, 4)
        wait_until(lambda: second <= set(one.values()), 90, what="the second round read")
        members = describe_consumer(bootstrap, group)["members"]
        assert [m["member_id"] for m in members] == [survivor]
    finally:
        one.stop()  # SIGTERM: the console consumer commits and leaves
        two.stop(signal.SIGKILL)
    # A new member starts at the commits: the third round only, each record once.
    third = _produce_round(bootstrap, topic, 3, 4)
    three = console_consumer(bootstrap, topic, group, 20, protocol="consumer")
    assert sorted(three) == sorted(third)
