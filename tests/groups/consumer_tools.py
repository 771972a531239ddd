"""Helpers of the KIP-848 consumer-group tests (protocol, migration, group configs, parity
with Kafka 4.1): a broker (a new one has group.version 1), the ConsumerGroupHeartbeat and
ConsumerGroupDescribe requests, librdkafka consumers of either protocol and a loop that polls
them, and Kafka's own kafka-consumer-groups and kafka-configs."""

from __future__ import annotations

import contextlib
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from confluent_kafka import Consumer
from ferrolog.embedded import EmbeddedBroker

from bench.harness import kafka_dist
from tests.cluster.harness import java_command
from tests.handlers.features_tools import request

HEARTBEAT, CONSUMER_GROUP_DESCRIBE, FIND_COORDINATOR = 68, 69, 10
COORDINATOR_ERRORS = {14, 15, 16}


@contextlib.contextmanager
def upgraded_broker(settings: dict[str, str]) -> Iterator[EmbeddedBroker]:
    """A broker with `settings`, group.version 1 finalized as on any new cluster."""
    with EmbeddedBroker(overrides=settings) as b:
        yield b


def heartbeat(bootstrap: str, version: int = 1, **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "group_id": "g",
        "member_id": "",
        "member_epoch": 0,
        "instance_id": None,
        "rack_id": None,
        "rebalance_timeout_ms": -1,
        "subscribed_topic_names": None,
        "subscribed_topic_regex": None,
        "server_assignor": None,
        "topic_partitions": None,
        **fields,
    }
    return request(bootstrap, HEARTBEAT, version, body)


def join(bootstrap: str, group: str, topic: str, **fields: Any) -> dict[str, Any]:
    fields = {
        "member_id": str(uuid.uuid4()),
        "rebalance_timeout_ms": 30000,
        "subscribed_topic_names": [topic],
        "topic_partitions": [],
        **fields,
    }
    # As a client: FindCoordinator first (it creates `__consumer_offsets`), then retry while
    # the coordinator loads.
    request(bootstrap, FIND_COORDINATOR, 3, {"key": group, "key_type": 0})
    end = time.monotonic() + 20
    while True:
        answer = heartbeat(bootstrap, group_id=group, **fields)
        if answer["error_code"] not in COORDINATOR_ERRORS or time.monotonic() > end:
            return answer
        time.sleep(0.1)
        request(bootstrap, FIND_COORDINATOR, 3, {"key": group, "key_type": 0})


def describe_consumer(bootstrap: str, group: str) -> dict[str, Any]:
    """ConsumerGroupDescribe v1's answer for `group`."""
    body = {"group_ids": [group], "include_authorized_operations": False}
    described: dict[str, Any] = request(bootstrap, CONSUMER_GROUP_DESCRIBE, 1, body)["groups"][0]
    return described


def config(bootstrap: str, group: str, protocol: str) -> dict[str, Any]:
    """A librdkafka consumer of `group.protocol` `protocol` that commits by hand."""
    out: dict[str, Any] = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "group.protocol": protocol,
    }
    if protocol == "classic":
        out.update({"session.timeout.ms": 3000, "heartbeat.interval.ms": 200})
    return out


def assigned(c: Consumer) -> set[int]:
    return {tp.partition for tp in c.assignment()}


class Reader:
    """Polls consumers, commits each message it gets (synchronously), and records every
    (partition, offset) each consumer got."""

    def __init__(self, consumers: list[Consumer]) -> None:
        self.consumers = consumers
        self.got: list[list[tuple[int, int]]] = [[] for _ in consumers]

    def until(self, condition: Callable[[], bool], seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for i, c in enumerate(self.consumers):
                m = c.poll(0.05)
                if m is not None and m.error() is None:
                    self.got[i].append((m.partition(), m.offset()))
                    c.commit(message=m, asynchronous=False)
            if condition():
                return True
        return False

    def all(self) -> list[tuple[int, int]]:
        return [x for got in self.got for x in got]


def wait_for(
    condition: Callable[[], bool],
    consumers: list[Consumer],
    seconds: float,
    received: dict[int, int] | None = None,
) -> bool:
    """Polls `consumers` (without committing) until `condition()`; counts the messages each
    got in `received` (by its index)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for i, c in enumerate(consumers):
            m = c.poll(0.05)
            if m is not None and m.error() is None and received is not None:
                received[i] = received.get(i, 0) + 1
        if condition():
            return True
    return False


def consumer_groups(bootstrap: str, group: str, *args: str) -> list[list[str]]:
    """Kafka 4.1's kafka-consumer-groups `--describe --group <group> <args>`: its header and
    the group's rows, split into columns."""
    done = subprocess.run(
        java_command(
            "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
            "--bootstrap-server", bootstrap, "--describe", "--group", group, *args,
        ),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    lines = [line.split() for line in done.stdout.splitlines() if line.strip()]
    assert lines, done.stdout
    assert lines[0][0] == "GROUP", done.stdout
    return [lines[0], *sorted(line for line in lines[1:] if line[0] == group)]


def kafka_configs(bootstrap: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Kafka 4.4's kafka-configs `--entity-type groups <args>`."""
    return subprocess.run(
        java_command(
            kafka_dist.CONFIG_COMMAND, "--bootstrap-server", bootstrap, "--entity-type",
            "groups", *args,
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
