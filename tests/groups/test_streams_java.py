"""Kafka Streams 4.4 applications (`StreamsWordCount.java`: a word count through a repartition
topic into an in-memory store with a changelog) run against the broker, with exactly-once
processing (exactly_once_v2):

- with the classic group protocol and with KIP-1071's streams groups (`group.protocol=streams`:
  StreamsGroupHeartbeat, the broker assigning tasks), two instances count while one is
  SIGKILLed and replaced, and every word's committed count in the output rises without a
  repeat or a skip back and ends at the true count;
- Kafka 4.4's `kafka-streams-groups` lists a streams group, describes its members (one per
  stream thread) and its state (Stable while the app runs, Empty once it has left), and
  deletes it.

FERROLOG_STREAMS_BOOTSTRAP=host:port runs the same tests against another broker (Kafka 4.4
with `streams_tools.STREAMS_SETTINGS`)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from ferrolog.embedded import EmbeddedBroker

from bench.harness import brokers, kafka_dist
from tests.groups.streams_tools import (
    CLASSIC_FAST,
    STREAMS_SETTINGS,
    App,
    Counts,
    Feed,
    connect,
    kafka_streams_groups,
    new_topic,
    ongoing_transactions,
    produce_lines,
)

pytestmark = [
    pytest.mark.native,
    pytest.mark.skipif(
        not brokers.jars_available(),
        reason="needs java and Kafka's jars (make bench-quick fetches them)",
    ),
]

VOCABULARY = [f"w{i:02d}" for i in range(20)]
INPUT_PARTITIONS, OUTPUT_PARTITIONS = 6, 3
# Streams' producers linger 100 ms, as long as a commit interval here: a transaction's records
# would reach the broker only at its commit, and a SIGKILL would rarely find one open there.
EXACTLY_ONCE = (
    "processing.guarantee=exactly_once_v2",
    "commit.interval.ms=100",
    "producer.linger.ms=5",
)


@pytest.fixture(scope="module", autouse=True)
def streams_jars() -> None:
    """Kafka Streams' jars, fetched with Maven on first use."""
    try:
        kafka_dist.streams_libs()
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"Kafka Streams' jars cannot be fetched: {e}")


@pytest.fixture(scope="module")
def streams_broker() -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker(overrides=STREAMS_SETTINGS) as broker:
        yield broker


@pytest.fixture
def bootstrap(request: pytest.FixtureRequest) -> str:
    """The module's broker with streams groups on; FERROLOG_STREAMS_BOOTSTRAP=host:port runs
    the same tests against another broker (Kafka 4.4 with `streams_tools.STREAMS_SETTINGS`)
    to check that both answer alike."""
    external = os.environ.get("FERROLOG_STREAMS_BOOTSTRAP")
    if external:
        return external
    broker: EmbeddedBroker = request.getfixturevalue("streams_broker")
    return broker.bootstrap_servers


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Callable[..., App]]:
    """Starts StreamsWordCount instances; whatever still runs at the end is killed."""
    apps: list[App] = []

    def start(*args: str) -> App:
        app = App(*args)
        apps.append(app)
        return app.start()

    yield start
    for app in apps:
        app.close()


def lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(VOCABULARY, k=5)) for _ in range(count)]


def word_count_survives_a_sigkill(
    bootstrap: str, launch: Callable[..., App], state: Path, *protocol: str
) -> None:
    """Two instances count the first half of the lines, fed steadily; one is SIGKILLed once
    part of it is counted, with a transaction open (which the broker aborts at its timeout),
    and a new instance replaces it; then the second half. Every word's committed counts must
    rise and end at its true count."""
    source = new_topic(bootstrap, INPUT_PARTITIONS)
    sink = new_topic(bootstrap, OUTPUT_PARTITIONS)
    application = f"wordcount-{uuid.uuid4().hex[:8]}"
    properties = (*EXACTLY_ONCE, "num.stream.threads=1", *protocol)
    common = (bootstrap, application, source, sink)
    apps = [launch(*common, state / name, *properties) for name in ("a", "b")]
    for app in apps:
        app.wait_running()
    first, second = lines(1500, 1), lines(1500, 2)
    counts = Counts(bootstrap, sink, OUTPUT_PARTITIONS)
    try:
        feed = Feed(bootstrap, source, first, seconds=4).start()
        counts.wait_until(
            lambda latest: sum(latest.values()) >= len(first),
            45,
            "a fifth of the first half's words counted",
        )
        # That was seen just after a commit: the kill waits for the victim's next transaction
        # to be open at the broker, so that the broker has it to abort.
        victim, survivor = apps
        open_transaction = f"{application}-{victim.process}-1"
        deadline = time.monotonic() + 30
        with connect(bootstrap) as conn:
            while open_transaction not in ongoing_transactions(conn):
                assert time.monotonic() < deadline, f"{open_transaction} never open for 30 s"
        victim.kill(signal.SIGKILL)
        feed.join()
        replacement = launch(*common, state / "c", *properties)
        replacement.wait_running()
        produce_lines(bootstrap, source, second)
        expected = Counter(word for line in first + second for word in line.split())
        counts.wait_until(lambda latest: latest == expected, 60, "the true counts")
        # Exactly once: no count was ever emitted twice or went back (a replay after the
        # SIGKILL would count some words again).
        for word, seen in counts.seen.items():
            assert seen == sorted(set(seen)), (word, seen)
    finally:
        counts.close()
    survivor.finish()
    replacement.finish()


def test_word_count_with_the_classic_protocol_survives_a_sigkill(
    bootstrap: str, launch: Callable[..., App], tmp_path: Path
) -> None:
    word_count_survives_a_sigkill(bootstrap, launch, tmp_path, *CLASSIC_FAST)


def test_word_count_with_the_streams_protocol_survives_a_sigkill(
    bootstrap: str, launch: Callable[..., App], tmp_path: Path
) -> None:
    word_count_survives_a_sigkill(bootstrap, launch, tmp_path, "group.protocol=streams")


def wait_tool(
    bootstrap: str, args: tuple[str, ...], done: Callable[[list[str]], bool], timeout: float
) -> list[str]:
    """Runs `kafka-streams-groups` until the rows of its table about the group (`args[2]`),
    each a list of fields, satisfy `done`; those rows."""
    deadline = time.monotonic() + timeout
    while True:
        out = kafka_streams_groups(bootstrap, *args)
        rows = [line.split() for line in out.splitlines() if line.startswith(f"{args[2]} ")]
        if done(rows):
            return rows
        assert time.monotonic() < deadline, f"after {timeout} s, {args}:\n{out}"


def active_tasks(member: list[str]) -> list[tuple[int, int]]:
    """A `--members` row's active tasks as (subtopology, partition): the fields after
    `ACTIVE:` such as `0:[0,2,4];` up to the next `STANDBY:` or `WARMUP:`."""
    tasks = []
    for field in member[member.index("ACTIVE:") + 1 :]:
        if field.endswith(":") and not field[0].isdigit():
            break
        subtopology, _, partitions = field.rstrip(";").partition(":")
        tasks += [(int(subtopology), int(p)) for p in partitions.strip("[]").split(",") if p]
    return tasks


def state(rows: list[list[str]]) -> str:
    """A `--state` row's last two fields: the group's state and its number of members."""
    return " ".join(rows[0][-2:]) if rows else ""


def test_kafka_streams_groups_lists_and_describes_the_group(
    bootstrap: str, launch: Callable[..., App], tmp_path: Path
) -> None:
    """`--list` names the application's group; `--describe --members` shows one member per
    stream thread (of one process, the two sharing all of the topology's tasks), `--describe
    --state` Stable with two members, `--describe` the lag of each partition its tasks read;
    once the app has stopped (leaving the group) the group is Empty, and `--delete` deletes
    it."""
    source = new_topic(bootstrap, INPUT_PARTITIONS)
    sink = new_topic(bootstrap, OUTPUT_PARTITIONS)
    application = f"wordcount-{uuid.uuid4().hex[:8]}"
    app = launch(
        bootstrap, application, source, sink, tmp_path / "a",
        *EXACTLY_ONCE, "num.stream.threads=2", "group.protocol=streams",
    )  # fmt: skip
    app.wait_running()
    assert application in kafka_streams_groups(bootstrap, "--list").splitlines()
    describe = ("--describe", "--group", application)
    # Two subtopologies (before and after the repartition topic), a task per partition each.
    everything = sorted((s, p) for s in (0, 1) for p in range(INPUT_PARTITIONS))

    def assigned(rows: list[list[str]]) -> bool:
        tasks = sorted(t for row in rows for t in active_tasks(row))
        return len(rows) == 2 and tasks == everything

    # GROUP MEMBER PROCESS CLIENT-ID ASSIGNMENTS
    members = wait_tool(bootstrap, (*describe, "--members"), assigned, 30)
    assert len({m[1] for m in members}) == 2, members
    assert {m[2] for m in members} == {app.process}, members
    assert sorted(m[3].split("-StreamThread-")[1] for m in members) == [
        "1-consumer",
        "2-consumer",
    ]
    # GROUP COORDINATOR (ID) ASSIGNOR STATE #MEMBERS
    wait_tool(bootstrap, (*describe, "--state"), lambda rows: state(rows) == "Stable 2", 30)
    # GROUP TOPIC PARTITION OFFSET-LAG: each partition its tasks read (the input topic's and
    # the repartition topic's), nothing left to read (nothing was produced).
    offsets = wait_tool(bootstrap, describe, lambda rows: len(rows) == 2 * INPUT_PARTITIONS, 30)
    repartition = f"{application}-counts-repartition"
    assert sorted((r[1], int(r[2]), r[3]) for r in offsets) == sorted(
        (topic, p, "0") for topic in (source, repartition) for p in range(INPUT_PARTITIONS)
    )
    app.finish()
    wait_tool(bootstrap, (*describe, "--state"), lambda rows: state(rows) == "Empty 0", 30)
    deleted = kafka_streams_groups(bootstrap, "--delete", "--group", application)
    assert deleted == f"Deletion of requested streams groups ('{application}') was successful."
    assert application not in kafka_streams_groups(bootstrap, "--list").splitlines()
