"""`ferrolog groups list|describe|delete|reset-offsets` through click's CliRunner against a
live broker and real confluent-kafka consumers."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner, Result
from confluent_kafka import Consumer, TopicPartition
from ferrolog.cli.tools import register
from ferrolog.ports import free_port

from tests.groups.conftest import consumer_config, create_topic, produce
from tests.waiting import wait_until


@pytest.fixture(scope="module")
def cli() -> click.Group:
    @click.group()
    def group() -> None:
        """Stand-in for the `ferrolog` command group."""

    register(group)
    return group


def run(cli: click.Group, bootstrap: str, *args: str) -> Result:
    return CliRunner().invoke(cli, ["groups", *args, "-b", bootstrap, "--timeout", "10"])


def test_list_describe_reset_and_delete(cli: click.Group, bootstrap: str, group_id: str) -> None:
    topic = create_topic(bootstrap, partitions=2)
    produce(bootstrap, topic, per_partition=10, partitions=2)
    consumer = Consumer(consumer_config(bootstrap, group_id, **{"client.id": "cli-test"}))
    consumer.subscribe([topic])
    try:
        wait_until(lambda: consumer.poll(0.1) is not None and len(consumer.assignment()) == 2)
        commits = [TopicPartition(topic, 0, 3), TopicPartition(topic, 1, 10)]
        consumer.commit(offsets=commits, asynchronous=False)

        listed = run(cli, bootstrap, "list")
        assert listed.exit_code == 0, listed.output
        row = next(line.split() for line in listed.output.splitlines() if group_id in line)
        assert row == [group_id, "Classic", "Stable", "false"]

        described = run(cli, bootstrap, "describe", group_id)
        assert described.exit_code == 0, described.output
        assert "cli-test" in described.output
        assert f"Group {group_id}: type Classic, state Stable" in described.output
        assert "TARGET" not in described.output
        rows = [line.split() for line in described.output.splitlines() if line.startswith(topic)]
        member = consumer.memberid()
        assert sorted(rows) == [
            [topic, "0", "3", "10", "7", member],
            [topic, "1", "10", "10", "0", member],
        ]

        busy = run(
            cli,
            bootstrap,
            "reset-offsets",
            group_id,
            "--topic",
            topic,
            "--to-earliest",
            "--execute",
        )
        assert busy.exit_code != 0, "a group with members cannot be reset"
    finally:
        consumer.close()

    dry = run(cli, bootstrap, "reset-offsets", group_id, "--topic", topic, "--to-earliest")
    assert dry.exit_code == 0, dry.output
    assert "Dry run" in dry.output
    reset = run(
        cli,
        bootstrap,
        "reset-offsets",
        group_id,
        "--topic",
        f"{topic}:1",
        "--shift-by",
        "-4",
        "--execute",
    )
    assert reset.exit_code == 0, reset.output
    after = Consumer(consumer_config(bootstrap, group_id))
    try:
        offsets = after.committed([TopicPartition(topic, 0), TopicPartition(topic, 1)], timeout=10)
        assert [tp.offset for tp in offsets] == [3, 6]
    finally:
        after.close()

    deleted = run(cli, bootstrap, "delete", group_id)
    assert deleted.exit_code == 0, deleted.output
    assert group_id not in run(cli, bootstrap, "list").output
    again = run(cli, bootstrap, "delete", group_id)
    assert again.exit_code != 0
    assert "GROUP_ID_NOT_FOUND" in again.output or "not" in again.output.lower()


def test_unreachable_cluster_is_a_clear_failure(cli: click.Group) -> None:
    dead = f"127.0.0.1:{free_port()}"
    result = CliRunner().invoke(cli, ["groups", "list", "-b", dead, "--timeout", "1"])
    assert result.exit_code == 1
    assert "cannot list groups" in result.output


def test_a_consumer_protocol_group_shows_its_type_and_target_assignment(
    cli: click.Group, bootstrap: str, group_id: str
) -> None:
    topic = create_topic(bootstrap, partitions=2)
    config = {
        "bootstrap.servers": bootstrap,
        "group.id": group_id,
        "group.protocol": "consumer",
        "client.id": "cli-848",
    }
    consumer = Consumer(config)
    consumer.subscribe([topic])
    try:
        wait_until(lambda: consumer.poll(0.1) is None and len(consumer.assignment()) == 2)
        listed = run(cli, bootstrap, "list")
        assert listed.exit_code == 0, listed.output
        row = next(line.split() for line in listed.output.splitlines() if group_id in line)
        assert row[:2] == [group_id, "Consumer"]

        described = run(cli, bootstrap, "describe", group_id)
        assert described.exit_code == 0, described.output
        assert f"Group {group_id}: type Consumer, state Stable" in described.output
        lines = described.output.splitlines()
        assert next(line for line in lines if line.startswith("MEMBER")).split()[-1] == "TARGET"
        member = next(line for line in lines if line.startswith(consumer.memberid()))
        both = f"{topic}-0, {topic}-1"
        assert member.endswith(f"{both}  {both}"), member
    finally:
        consumer.close()
