"""Issue 31's "Done when" in the three-broker cluster: a Kafka Streams 4.4 application with
`group.protocol=streams` (KIP-1071) and exactly_once_v2 counts exactly through SIGKILLs of the
application and a bounce of the broker that coordinates its group.

Two StreamsWordCount instances (tests/groups/StreamsWordCount.java) count lines fed steadily
into a topic replicated three times; one instance is SIGKILLed inside an open transaction and
replaced; then the broker that FindCoordinator names for the application id (the leader of the
group's `__consumer_offsets` partition, replicated three times like `__transaction_state`) is
stopped, by SIGKILL or by SIGTERM (controlled shutdown), while lines keep coming. Another broker
loads the group from `__consumer_offsets` and serves it (Stable, both live processes, every
task assigned, its epoch not behind); the old coordinator is started again and more lines come.
Every word's committed count must rise without a repeat and end at its count in the input.

Ferrolog only: Apache Kafka 3.9 in ZooKeeper mode, which the other cluster tests may compare
against, has no streams groups."""

from __future__ import annotations

import logging
import random
import signal
import subprocess
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from ferrolog.client.connection import Connection
from ferrolog.protocol.messages import Apis

from bench.harness import kafka_dist
from tests.cluster.harness import Cluster, needs_kafka_jars
from tests.groups.streams_raw import describe
from tests.groups.streams_tools import (
    STREAMS_SETTINGS,
    App,
    Counts,
    Feed,
    connect,
    ongoing_transactions,
    produce_lines,
)
from tests.handlers.features_tools import finalized
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow, needs_kafka_jars]

log = logging.getLogger(__name__)

SETTINGS = {
    **STREAMS_SETTINGS,
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    # The SIGKILLed instance's open transaction blocks its partitions' last stable offset
    # until the broker aborts it: at its timeout (Streams' 10 s), seen within a second.
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
}
VOCABULARY = [f"w{i:02d}" for i in range(20)]
INPUT_PARTITIONS, OUTPUT_PARTITIONS = 6, 3
# As tests/groups/test_streams_java.py has them: Streams' producers linger 100 ms, as long as a
# commit interval here, and a SIGKILL would rarely find a transaction open at the broker.
PROPERTIES = (
    "processing.guarantee=exactly_once_v2",
    "commit.interval.ms=100",
    "producer.linger.ms=5",
    "num.stream.threads=1",
    "group.protocol=streams",
)
# Two subtopologies (before and after the repartition topic), a task per input partition each.
EVERY_TASK = sorted((s, p) for s in ("0", "1") for p in range(INPUT_PARTITIONS))


@pytest.fixture(scope="module", autouse=True)
def streams_jars() -> None:
    """Kafka Streams' jars, fetched with Maven on first use."""
    try:
        kafka_dist.streams_libs()
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"Kafka Streams' jars cannot be fetched: {e}")


@pytest.fixture
def launch() -> Iterator[Callable[..., App]]:
    """Starts StreamsWordCount instances; whatever still runs at the end is killed, and a
    failed test prints each one's stderr."""
    apps: list[App] = []

    def start(*args: str) -> App:
        app = App(*args)
        apps.append(app)
        return app.start()

    yield start
    for app in apps:
        if not app.log.closed:
            print(f"--- app {app.process or '?'} stderr tail ---\n{app.stderr(3000)}")
        app.close()


def lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(VOCABULARY, k=5)) for _ in range(count)]


def live(cluster: Cluster) -> list[int]:
    return [b.node_id for b in cluster.brokers.values() if b.running and not b.paused]


def coordinator_of(cluster: Cluster, group: str) -> int:
    """The broker FindCoordinator names for `group`, asked of the live brokers; -1 while none
    names one."""
    for node in live(cluster):
        host, _, port = cluster.brokers[node].bootstrap.rpartition(":")
        try:
            with Connection(host, int(port), 5, "streams-cluster") as conn:
                found = conn.request(Apis.FIND_COORDINATOR.key, 3, {"key": group, "key_type": 0})
        except OSError:
            continue
        if found["error_code"] == 0:
            return int(found["node_id"])
    return -1


def served(cluster: Cluster, group: str, processes: set[str], seen: list[Any]) -> Any:
    """`(coordinator, description)` once the group's coordinator, a live broker, describes it
    Stable with the members of exactly `processes` sharing every task as active; else None.
    What it last answered goes to `seen` for the failure message."""
    node = coordinator_of(cluster, group)
    if node not in live(cluster):
        seen[:] = [f"FindCoordinator names {node}"]
        return None
    try:
        with connect(cluster.brokers[node].bootstrap) as conn:
            described = describe(conn, group)
    except OSError as e:
        seen[:] = [node, repr(e)]
        return None
    members = described["members"] or []
    tasks = sorted(
        (t["subtopology_id"], p)
        for m in members
        for t in m["assignment"]["active_tasks"]
        for p in t["partitions"]
    )
    summary = {
        "error": described["error_code"],
        "state": described["group_state"],
        "epochs": (described["group_epoch"], described["assignment_epoch"]),
        "members": [(m["process_id"], m["member_epoch"]) for m in members],
        "tasks": tasks,
    }
    seen[:] = [node, summary]
    settled = (
        described["error_code"] == 0
        and described["group_state"] == "Stable"
        and {m["process_id"] for m in members} == processes
        and len(members) == len(processes)
        and tasks == EVERY_TASK
    )
    return (node, described) if settled else None


def wait_served(cluster: Cluster, group: str, processes: set[str], what: str) -> Any:
    seen: list[Any] = []
    try:
        return wait_until(lambda: served(cluster, group, processes, seen), 60, 0.3, what)
    except AssertionError as e:
        raise AssertionError(f"{e}; the coordinator last answered: {seen}") from None


def input_words(cluster: Cluster, topic: str) -> Counter[str]:
    """Every word of the input topic as it stands, counted: the true counts. (The feed's
    producer is not idempotent: a retry through a leader change could store a line twice,
    and then its words are there twice to count.)"""
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": f"input-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
        }
    )
    try:
        ends = {
            p: consumer.get_watermark_offsets(TopicPartition(topic, p), 30)[1]
            for p in range(INPUT_PARTITIONS)
        }
        consumer.assign([TopicPartition(topic, p, 0) for p in range(INPUT_PARTITIONS)])
        words: Counter[str] = Counter()
        read = dict.fromkeys(ends, 0)
        deadline = time.monotonic() + 60
        while read != ends:
            assert time.monotonic() < deadline, f"read {read} of the input's {ends}"
            for message in consumer.consume(1000, 0.5):
                assert message.error() is None, message.error()
                words.update(message.value().decode().split())
                read[message.partition()] = message.offset() + 1
        return words
    finally:
        consumer.close()


def start_streams_cluster(cluster_factory: Callable[..., Cluster]) -> Cluster:
    """Three brokers with streams groups on: a new cluster finalizes streams.version 1, as
    Kafka 4.4 formats one, and every broker reports it."""
    cluster = cluster_factory(**SETTINGS)
    for broker in cluster.brokers.values():
        wait_until(
            lambda b=broker: finalized(b.bootstrap)[1].get("streams.version") == (1, 1),
            30,
            what=f"broker {broker.node_id} to report streams.version 1",
        )
    return cluster


def stop(cluster: Cluster, node: int, sigkill: bool) -> None:
    broker = cluster.brokers[node]
    if sigkill:
        broker.kill()
    else:
        code = broker.terminate(60)
        assert code == 0, f"broker {node} exited {code} after SIGTERM:\n{broker.log_tail()}"


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "sigkill", [True, False], ids=["coordinator-sigkill", "coordinator-sigterm"]
)
def test_streams_counts_exactly_through_app_sigkills_and_a_coordinator_bounce(
    cluster_factory: Callable[..., Cluster],
    launch: Callable[..., App],
    tmp_path: Path,
    sigkill: bool,
) -> None:
    cluster = start_streams_cluster(cluster_factory)
    source, sink = f"in-{uuid.uuid4().hex[:6]}", f"out-{uuid.uuid4().hex[:6]}"
    cluster.create_topic(source, INPUT_PARTITIONS, 3)
    cluster.create_topic(sink, OUTPUT_PARTITIONS, 3)
    application = f"wordcount-{uuid.uuid4().hex[:8]}"
    common = (cluster.bootstrap, application, source, sink)
    victim, survivor = (launch(*common, tmp_path / name, *PROPERTIES) for name in ("a", "b"))
    for app in (victim, survivor):
        app.wait_running(90)
    # The internal topics the group's coordinator created are replicated as the cluster's
    # default has it: the bounce below leaves every one of their partitions a leader.
    internal = (f"{application}-counts-repartition", f"{application}-counts-changelog")
    topics = cluster.metadata().topics
    for name in internal:
        assert name in topics, sorted(topics)
        assert {len(p.replicas) for p in topics[name].partitions.values()} == {3}, name

    # The first lines; one instance SIGKILLed in a transaction it has open at the broker,
    # which the broker aborts at its timeout, and a new instance in its place.
    first, second, third = lines(1500, 1), lines(1500, 2), lines(500, 3)
    feed = Feed(cluster.bootstrap, source, first, seconds=4).start()
    counts = Counts(cluster.bootstrap, sink, OUTPUT_PARTITIONS)
    try:
        counts.wait_until(
            lambda latest: sum(latest.values()) >= len(first),
            60,
            "a fifth of the first lines' words counted",
        )
    finally:
        # Read again from the start at the end: no consumer is left to see brokers vanish.
        counts.close()
    open_transaction = f"{application}-{victim.process}-1"

    def open_somewhere() -> bool:
        # Each broker lists only the transactions it coordinates.
        for node in live(cluster):
            with connect(cluster.brokers[node].bootstrap) as conn:
                if open_transaction in ongoing_transactions(conn):
                    return True
        return False

    wait_until(open_somewhere, 30, 0.01, f"{open_transaction} open at the broker")
    victim.kill(signal.SIGKILL)
    feed.join()
    replacement = launch(*common, tmp_path / "c", *PROPERTIES)
    replacement.wait_running(90)
    processes = {survivor.process, replacement.process}
    old, before = wait_served(cluster, application, processes, "the group without the victim")

    # The group's coordinator stops while lines keep coming; another broker loads the group.
    feed = Feed(cluster.bootstrap, source, second, seconds=8).start()
    stop(cluster, old, sigkill)
    new, after = wait_served(cluster, application, processes, "a new coordinator's group")
    assert new != old
    assert after["group_epoch"] >= before["group_epoch"], (before, after)
    log.info(
        "group moved from broker %d (epoch %d) to %d (epoch %d)",
        old, before["group_epoch"], new, after["group_epoch"],
    )  # fmt: skip
    bounced = cluster.brokers[old]
    bounced.start()
    bounced.wait_ready(60)
    cluster.wait_for_brokers(set(cluster.brokers), 60)
    feed.join(90)
    produce_lines(cluster.bootstrap, source, third)

    expected = input_words(cluster, source)
    fed = Counter(word for line in first + second + third for word in line.split())
    assert not fed - expected, f"words fed but not in the input: {fed - expected}"
    counts = Counts(cluster.bootstrap, sink, OUTPUT_PARTITIONS)
    try:
        counts.wait_until(lambda latest: latest == expected, 90, "the true counts")
        # Exactly once: no count was ever committed twice or went back (a replay after the
        # SIGKILL or the coordinator's move would count some words again).
        for word, seen in counts.seen.items():
            assert seen == sorted(set(seen)), (word, seen)
    finally:
        counts.close()
    # Long after the load (sessions of 3 s, restarted on load): both instances heartbeat to
    # the group's coordinator of now, or they would have been dropped from the group.
    wait_served(cluster, application, processes, "the group after the bounce")
    survivor.finish()
    replacement.finish()
