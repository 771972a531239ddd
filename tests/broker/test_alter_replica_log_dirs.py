"""A replica moved between one broker's log directories while it serves (AlterReplicaLogDirs):
Kafka 4.4's `kafka-reassign-partitions` with a reassignment JSON's `log_dirs`, throttled by
`--replica-alter-log-dirs-throttle`, while a producer goes on; DescribeLogDirs lists the
future replica in its destination meanwhile (as Kafka does: IsFutureKey); `--verify` reports
the move complete and lifts the throttle; every acknowledged record is read back from the new
directory, also after a restart. And the answers Kafka gives a request it refuses."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Message, Producer
from ferrolog.embedded import EmbeddedBroker

from tests.cluster.harness import java_command, needs_kafka_jars
from tests.consume import read
from tests.disk import create_in
from tests.handlers.features_tools import request
from tests.waiting import wait_until

ALTER_REPLICA_LOG_DIRS, DESCRIBE_LOG_DIRS = 34, 35
REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"
THROTTLE = "replica.alter.log.dirs.io.max.bytes.per.second"


@pytest.fixture
def two_dirs(
    tmp_path: Path, ferrolog_broker_factory: Callable[..., EmbeddedBroker]
) -> tuple[EmbeddedBroker, Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    broker = ferrolog_broker_factory(data_dir=a, overrides={"log.dirs": f"{a},{b}"})
    return broker, a, b


def _alter(bootstrap: str, moves: dict[str, list[tuple[str, int]]]) -> dict[tuple[str, int], int]:
    body = {
        "dirs": [
            {
                "path": path,
                "topics": [{"name": t, "partitions": [p]} for t, p in partitions],
            }
            for path, partitions in moves.items()
        ]
    }
    answer = request(bootstrap, ALTER_REPLICA_LOG_DIRS, 2, body)
    return {
        (topic["topic_name"], p["partition_index"]): p["error_code"]
        for topic in answer["results"]
        for p in topic["partitions"]
    }


def _replicas(bootstrap: str, topic: str) -> dict[tuple[str, bool], int]:
    """DescribeLogDirs v4 of `topic`: {(log dir, is future): size}."""
    answer = request(
        bootstrap, DESCRIBE_LOG_DIRS, 4, {"topics": [{"topic": topic, "partitions": [0]}]}
    )
    return {
        (result["log_dir"], p["is_future_key"]): p["partition_size"]
        for result in answer["results"]
        for t in result["topics"]
        for p in t["partitions"]
    }


def _values(records: dict[int, list[Message]]) -> dict[int, bytes]:
    return {m.offset(): m.value() for m in records[0]}


def _reassign(*args: str) -> str:
    run = subprocess.run(java_command(REASSIGN, *args), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


@pytest.mark.native
@pytest.mark.slow
@needs_kafka_jars
def test_kafka_reassign_partitions_moves_a_replica_between_dirs_while_it_takes_writes(
    tmp_path: Path, two_dirs: tuple[EmbeddedBroker, Path, Path]
) -> None:
    broker, a, b = two_dirs
    bootstrap = broker.bootstrap_servers
    create_in(bootstrap, "moving", a)
    acked: dict[int, bytes] = {}
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})

    def delivered(err: Any, msg: Any) -> None:
        assert err is None, err
        acked[msg.offset()] = msg.value()

    for n in range(20_000):
        producer.produce(
            "moving", value=b"%06d" % n + b"x" * 200, partition=0, on_delivery=delivered
        )
    assert producer.flush(30) == 0
    stop = threading.Event()

    def keep_producing() -> None:
        n = 0
        while not stop.is_set():
            producer.produce("moving", value=b"during-%d" % n, partition=0, on_delivery=delivered)
            producer.poll(0.002)
            n += 1
        assert producer.flush(30) == 0

    writer = threading.Thread(target=keep_producing)
    writer.start()
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "version": 1,
                "partitions": [
                    {"topic": "moving", "partition": 0, "replicas": [0], "log_dirs": [str(b)]}
                ],
            }
        )
    )
    try:
        # About 4.5 MB at 1 MB/s: the move is seen under way before it ends.
        _reassign(
            "--bootstrap-server", bootstrap, "--reassignment-json-file", str(plan), "--execute",
            "--replica-alter-log-dirs-throttle", "1000000",
        )  # fmt: skip
        during = _replicas(bootstrap, "moving")
        assert set(during) == {(str(a), False), (str(b), True)}, during
        assert during[(str(b), True)] < during[(str(a), False)]
        wait_until(
            lambda: set(_replicas(bootstrap, "moving")) == {(str(b), False)},
            60,
            what="the move to end",
        )
    finally:
        stop.set()
        writer.join()
    verified = _reassign(
        "--bootstrap-server", bootstrap, "--reassignment-json-file", str(plan), "--verify"
    )
    assert "Reassignment of replica moving-0-0 completed successfully." in verified, verified
    assert "Clearing broker-level throttles on broker 0" in verified, verified
    assert not (a / "moving-0").exists()
    assert (b / "moving-0").is_dir()
    assert len(acked) > 20_000
    assert _values(read(bootstrap, "moving", count=len(acked))) == acked
    broker.stop()
    broker.start()
    assert _values(read(broker.bootstrap_servers, "moving", count=len(acked))) == acked
    assert set(_replicas(broker.bootstrap_servers, "moving")) == {(str(b), False)}


def test_what_alter_replica_log_dirs_refuses(two_dirs: tuple[EmbeddedBroker, Path, Path]) -> None:
    broker, a, b = two_dirs
    bootstrap = broker.bootstrap_servers
    create_in(bootstrap, "here", a)
    answers = _alter(
        bootstrap,
        {
            str(b.parent / "elsewhere"): [("here", 0)],  # not a configured log directory
            str(b): [("nowhere", 0), ("here", 7)],  # no such topic; a partition not hosted here
        },
    )
    assert answers == {
        ("here", 0): 57,  # LOG_DIR_NOT_FOUND
        ("nowhere", 0): 3,  # UNKNOWN_TOPIC_OR_PARTITION
        ("here", 7): 9,  # REPLICA_NOT_AVAILABLE: the tool retries until it is created
    }
    # Where it already is: nothing to do.
    assert _alter(bootstrap, {str(a): [("here", 0)]}) == {("here", 0): 0}
    assert set(_replicas(bootstrap, "here")) == {(str(a), False)}
