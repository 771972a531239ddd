"""`ferrolog topics|produce|consume` through click's CliRunner: against the embedded broker
(the whole round trip over the Kafka protocol), and against nothing (clear errors, non-zero
exit codes)."""

from __future__ import annotations

import uuid

import click
import pytest
from click.testing import CliRunner, Result
from ferrolog.cli.tools import register
from ferrolog.ports import free_port


@pytest.fixture(scope="module")
def cli() -> click.Group:
    @click.group()
    def group() -> None:
        """Stand-in for the `ferrolog` command group."""

    register(group)
    return group


def run(cli: click.Group, *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input)


@pytest.fixture(scope="module")
def dead_address() -> str:
    """An address where nothing listens."""
    return f"127.0.0.1:{free_port()}"


# -- without a broker -------------------------------------------------------------------------


def test_commands_are_registered(cli: click.Group) -> None:
    assert {"topics", "produce", "consume"} <= set(cli.commands)
    result = run(cli, "topics", "--help")
    assert result.exit_code == 0
    for sub in ("create", "list", "describe", "alter", "delete"):
        assert sub in result.output


def test_unreachable_cluster_is_a_clear_failure(cli: click.Group, dead_address: str) -> None:
    result = run(cli, "topics", "list", "--bootstrap-server", dead_address, "--timeout", "1")
    assert result.exit_code == 1
    assert "cannot reach the cluster" in result.output
    assert "Traceback" not in result.output


def test_produce_to_unreachable_cluster_fails(cli: click.Group, dead_address: str) -> None:
    result = run(cli, "produce", "t", "-b", dead_address, "--value", "x", "--timeout", "1")
    assert result.exit_code == 1
    assert "not delivered" in result.output


def test_usage_errors_exit_2(cli: click.Group) -> None:
    assert run(cli, "consume", "t", "--offset", "-5").exit_code == 2
    assert run(cli, "consume", "t", "--offset", "x").exit_code == 2
    assert run(cli, "consume", "t", "--from-beginning", "--offset", "3").exit_code == 2
    assert run(cli, "consume", "t", "--group", "g", "--partition", "0").exit_code == 2
    assert run(cli, "consume", "t", "--group", "g", "--offset", "3").exit_code == 2
    assert run(cli, "topics", "create", "t", "-c", "novalue").exit_code == 2
    assert run(cli, "topics", "create", "t", "--replica-assignment", "1:x").exit_code == 2
    assert run(cli, "topics", "create", "t", "-p", "2", "--replica-assignment", "0").exit_code == 2
    assert run(cli, "topics", "alter", "t").exit_code == 2
    assert run(cli, "produce", "t", "--header", "nokey").exit_code == 2


def test_missing_key_separator_names_the_line(cli: click.Group, dead_address: str) -> None:
    result = run(
        cli, "produce", "t", "-b", dead_address, "--key-separator", ":", input="k:v\nnokey\n"
    )
    assert result.exit_code == 1
    assert "line 2" in result.output


# -- against the embedded broker ---------------------------------------------------------------


@pytest.fixture
def bootstrap(ferrolog_broker) -> str:  # type: ignore[no-untyped-def]
    return str(ferrolog_broker.bootstrap_servers)


def test_topic_lifecycle(cli: click.Group, bootstrap: str) -> None:
    name = f"cli-{uuid.uuid4().hex[:8]}"
    created = run(
        cli, "topics", "create", name, "-b", bootstrap, "-p", "3", "-c", "retention.ms=123456"
    )
    assert created.exit_code == 0, created.output
    again = run(cli, "topics", "create", name, "-b", bootstrap)
    assert again.exit_code == 1
    assert "already exists" in again.output.lower()
    assert run(cli, "topics", "create", name, "-b", bootstrap, "--if-not-exists").exit_code == 0

    listed = run(cli, "topics", "list", "-b", bootstrap)
    assert listed.exit_code == 0, listed.output
    row = next(line for line in listed.output.splitlines() if name in line)
    assert "3" in row

    described = run(cli, "topics", "describe", name, "-b", bootstrap)
    assert described.exit_code == 0, described.output
    assert "retention.ms" in described.output
    assert "123456" in described.output
    assert "Partition" in described.output
    assert "ISR" in described.output

    altered = run(
        cli,
        "topics",
        "alter",
        name,
        "-b",
        bootstrap,
        "-p",
        "4",
        "-c",
        "retention.ms=999",
        "--delete-config",
        "segment.ms",
    )
    assert altered.exit_code == 0, altered.output
    described = run(cli, "topics", "describe", name, "-b", bootstrap, "--all-configs")
    assert "999" in described.output
    assert "123456" not in described.output
    assert "cleanup.policy" in described.output  # a default, shown with --all-configs

    assert run(cli, "topics", "delete", name, "-b", bootstrap).exit_code == 0
    gone = run(cli, "topics", "delete", name, "-b", bootstrap)
    assert gone.exit_code == 1
    assert run(cli, "topics", "delete", name, "-b", bootstrap, "--if-exists").exit_code == 0
    missing = run(cli, "topics", "describe", name, "-b", bootstrap)
    assert missing.exit_code == 1
    assert "unknown topic" in missing.output


def test_produce_then_consume(cli: click.Group, bootstrap: str) -> None:
    name = f"cli-{uuid.uuid4().hex[:8]}"
    assert run(cli, "topics", "create", name, "-b", bootstrap, "-p", "1").exit_code == 0
    lines = "".join(f"k{i}:value {i}\n" for i in range(5))
    produced = run(
        cli,
        "produce",
        name,
        "-b",
        bootstrap,
        "--key-separator",
        ":",
        "--compression",
        "gzip",
        "--acks",
        "1",
        input=lines,
    )
    assert produced.exit_code == 0, produced.output
    repeated = run(
        cli, "produce", name, "-b", bootstrap, "--value", "again", "--count", "2", "--header", "h=1"
    )
    assert repeated.exit_code == 0, repeated.output

    consumed = run(
        cli,
        "consume",
        name,
        "-b",
        bootstrap,
        "--from-beginning",
        "--max-messages",
        "7",
        "--timeout",
        "20",
        "--print-key",
        "--print-offset",
        "--print-headers",
    )
    assert consumed.exit_code == 0, consumed.output
    out = [line for line in consumed.output.splitlines() if line.startswith("Offset:")]
    assert out[0] == "Offset:0\tNO_HEADERS\tk0\tvalue 0"
    assert out[4] == "Offset:4\tNO_HEADERS\tk4\tvalue 4"
    assert out[5] == "Offset:5\th:1\tnull\tagain"
    assert len(out) == 7

    from_offset = run(
        cli,
        "consume",
        name,
        "-b",
        bootstrap,
        "--offset",
        "3",
        "--partition",
        "0",
        "--max-messages",
        "1",
        "--timeout",
        "20",
    )
    assert from_offset.exit_code == 0
    assert from_offset.output.splitlines()[0] == "value 3"

    idle = run(cli, "consume", name, "-b", bootstrap, "--timeout", "1")
    assert idle.exit_code == 0  # from the end: nothing new before the timeout
    assert "value" not in idle.output

    no_partition = run(cli, "consume", name, "-b", bootstrap, "--partition", "7", "--timeout", "1")
    assert no_partition.exit_code == 1
    assert "no partition 7" in no_partition.output


def test_consume_with_a_group_commits_what_it_printed(cli: click.Group, bootstrap: str) -> None:
    name = f"cli-{uuid.uuid4().hex[:8]}"
    group = f"cli-group-{uuid.uuid4().hex[:8]}"
    assert run(cli, "topics", "create", name, "-b", bootstrap, "-p", "2").exit_code == 0
    lines = [f"value {i}" for i in range(6)]
    assert run(cli, "produce", name, "-b", bootstrap, input="\n".join(lines) + "\n").exit_code == 0

    def consume(*args: str) -> list[str]:
        done = run(cli, "consume", name, "-b", bootstrap, "--group", group, *args)
        assert done.exit_code == 0, done.output
        return [line for line in done.output.splitlines() if line.startswith("value")]

    first = consume("--from-beginning", "--max-messages", "4", "--timeout", "20")
    assert len(first) == 4
    # The next member of the group resumes from the commits: only what was not printed
    # (--from-beginning counts only where the group has no commit). The idle timeout covers
    # the group's first rebalance, delayed 3 s on an empty group by default.
    rest = consume("--from-beginning", "--max-messages", "2", "--timeout", "10")
    assert sorted(first + rest) == lines
