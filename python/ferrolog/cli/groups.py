"""`ferrolog groups list|describe|delete|reset-offsets`, over the Kafka admin protocol
(confluent-kafka's AdminClient), so they work against Apache Kafka as well.

`describe` shows each group's type (classic or consumer protocol), state and members (with
their target assignment in a consumer-protocol group), and per partition the committed
offset, the log end offset and the lag between them (with the member that owns the
partition).
`reset-offsets` prints the plan and applies it only with `--execute`, like Kafka's
`kafka-consumer-groups.sh`; the broker refuses it while the group has members."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import click
from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition

# confluent_kafka.admin re-exports these without an __all__, which strict mypy reads as
# private; they are its documented public names.
from confluent_kafka.admin import AdminClient, OffsetSpec  # type: ignore[attr-defined]

from ferrolog.cli.common import _admin_options, _client_config, _kafka_message

# OffsetSpec's constructors are untyped; these are the two specs the tools need.
LATEST: Any = OffsetSpec.latest()  # type: ignore[no-untyped-call]
EARLIEST: Any = OffsetSpec.earliest()  # type: ignore[no-untyped-call]


@click.group()
def groups() -> None:
    """List, describe, delete consumer groups and reset their offsets."""


def _admin(bootstrap: str, properties: tuple[str, ...]) -> AdminClient:
    return AdminClient(_client_config(bootstrap, properties))


def _wait(future: Any, timeout: float, what: str) -> Any:
    # librdkafka fails the request itself at its request timeout; the margin is for that
    # answer to arrive.
    try:
        return future.result(timeout=timeout + 5)
    except KafkaException as exc:
        raise click.ClickException(f"{what}: {_kafka_message(exc)}") from exc
    except TimeoutError as exc:
        raise click.ClickException(f"{what}: no answer in {timeout:g} s") from exc


def _name(value: Any) -> str:
    """An enum of confluent-kafka (state, type) as Kafka's tools print it."""
    text = str(getattr(value, "name", value))
    kafka_names = {
        "PREPARING_REBALANCING": "PreparingRebalance",
        "COMPLETING_REBALANCING": "CompletingRebalance",
    }
    return kafka_names.get(text, text.title().replace("_", ""))


@groups.command("list")
@_admin_options
def groups_list(bootstrap_server: str, properties: tuple[str, ...], timeout: float) -> None:
    """List the consumer groups with their state."""
    admin = _admin(bootstrap_server, properties)
    result = _wait(
        admin.list_consumer_groups(request_timeout=timeout), timeout, "cannot list groups"
    )
    if result.errors and not result.valid:
        # librdkafka reports an unreachable cluster as a per-broker error, not an exception.
        problems = "; ".join(str(e.str()) if hasattr(e, "str") else str(e) for e in result.errors)
        raise click.ClickException(f"cannot list groups: {problems}")
    table = _table("GROUP", "TYPE", "STATE", "SIMPLE")
    for listing in sorted(result.valid, key=lambda g: g.group_id):
        table.add_row(
            listing.group_id,
            _name(listing.type),
            _name(listing.state),
            str(listing.is_simple_consumer_group).lower(),
        )
    table.echo()
    for error in result.errors:
        click.echo(f"error: {error}", err=True)


@dataclass
class PartitionLag:
    topic: str
    partition: int
    committed: int | None
    end: int | None
    owner: Any | None

    @property
    def lag(self) -> int | None:
        if self.end is None:
            return None
        return self.end - (self.committed if self.committed is not None else 0)


def _committed(admin: AdminClient, group: str, timeout: float) -> dict[tuple[str, int], int]:
    request = [ConsumerGroupTopicPartitions(group)]
    futures = admin.list_consumer_group_offsets(request, request_timeout=timeout)
    result = _wait(futures[group], timeout, f"cannot fetch the offsets of {group}")
    return {
        (tp.topic, tp.partition): tp.offset
        for tp in result.topic_partitions or []
        if tp.error is None and tp.offset >= 0
    }


def _offsets(
    admin: AdminClient, partitions: list[tuple[str, int]], spec: Any, timeout: float
) -> dict[tuple[str, int], int]:
    if not partitions:
        return {}
    futures = admin.list_offsets(
        {TopicPartition(t, p): spec for t, p in partitions}, request_timeout=timeout
    )
    out = {}
    for tp, future in futures.items():
        out[(tp.topic, tp.partition)] = _wait(
            future, timeout, f"cannot list offsets of {tp.topic}"
        ).offset
    return out


def _lags(admin: AdminClient, description: Any, timeout: float) -> list[PartitionLag]:
    committed = _committed(admin, description.group_id, timeout)
    owners: dict[tuple[str, int], Any] = {}
    for member in description.members:
        for tp in member.assignment.topic_partitions if member.assignment else []:
            owners[(tp.topic, tp.partition)] = member
    keys = sorted(set(committed) | set(owners))
    ends = _offsets(admin, keys, LATEST, timeout)
    return [
        PartitionLag(t, p, committed.get((t, p)), ends.get((t, p)), owners.get((t, p)))
        for t, p in keys
    ]


class _Table:
    """Plain aligned columns. Ids are long (client id + UUID) and are printed whole, as
    Kafka's tool does, even past the terminal's width, so they can be copied and grepped
    (rich crops them)."""

    def __init__(self, *headers: str) -> None:
        self.rows: list[tuple[str, ...]] = [headers]

    def add_row(self, *cells: str) -> None:
        self.rows.append(cells)

    def echo(self) -> None:
        widths = [max(len(row[i]) for row in self.rows) for i in range(len(self.rows[0]))]
        for row in self.rows:
            click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def _table(*headers: str) -> _Table:
    return _Table(*headers)


def _assigned(assignment: Any | None) -> str:
    owned = assignment.topic_partitions if assignment is not None else []
    return ", ".join(f"{tp.topic}-{tp.partition}" for tp in owned) or "-"


def _text(value: int | None) -> str:
    return "-" if value is None else str(value)


@groups.command("describe")
@click.argument("names", nargs=-1, required=True)
@_admin_options
def groups_describe(
    names: tuple[str, ...], bootstrap_server: str, properties: tuple[str, ...], timeout: float
) -> None:
    """Describe groups: state, members, and per partition offset, log end and lag."""
    admin = _admin(bootstrap_server, properties)
    futures = admin.describe_consumer_groups(list(names), request_timeout=timeout)
    for name in names:
        description = _wait(futures[name], timeout, f"cannot describe {name}")
        assignor = description.partition_assignor or "-"
        kind = _name(description.type)
        click.echo(
            f"Group {name}: type {kind}, state {_name(description.state)}, "
            f"{len(description.members)} member(s), assignor {assignor}"
        )
        # A consumer-protocol group's members move towards the assignment the coordinator
        # chose for them (KIP-848): shown beside what they own, as Kafka 4.4's tool does.
        target = kind == "Consumer"
        members = _table(
            "MEMBER", "INSTANCE", "CLIENT", "HOST", "PARTITIONS", *(["TARGET"] if target else [])
        )
        for m in description.members:
            cells = [m.member_id, m.group_instance_id or "-", m.client_id, m.host]
            cells.append(_assigned(m.assignment))
            if target:
                cells.append(_assigned(m.target_assignment))
            members.add_row(*cells)
        if description.members:
            members.echo()
        lags = _table(
            "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID"
        )
        for row in _lags(admin, description, timeout):
            lags.add_row(
                row.topic,
                str(row.partition),
                _text(row.committed),
                _text(row.end),
                _text(row.lag),
                row.owner.member_id if row.owner is not None else "-",
            )
        lags.echo()


@groups.command("delete")
@click.argument("names", nargs=-1, required=True)
@_admin_options
def groups_delete(
    names: tuple[str, ...], bootstrap_server: str, properties: tuple[str, ...], timeout: float
) -> None:
    """Delete groups without members, with their committed offsets."""
    admin = _admin(bootstrap_server, properties)
    futures = admin.delete_consumer_groups(list(names), request_timeout=timeout)
    failures = []
    for name, future in futures.items():
        try:
            future.result(timeout=timeout)
        except KafkaException as exc:
            failures.append(f"{name}: {_kafka_message(exc)}")
            continue
        click.echo(f"Group {name} deleted.")
    if failures:
        raise click.ClickException("cannot delete group " + "; ".join(failures))


@groups.command("reset-offsets")
@click.argument("group")
@click.option(
    "--topic", "topics", multiple=True, required=True, help="Topic (all partitions) or topic:0,1,2."
)
@click.option("--to-earliest", "target", flag_value="earliest", help="To the log start.")
@click.option("--to-latest", "target", flag_value="latest", help="To the log end.")
@click.option("--to-offset", type=int, help="To this offset.")
@click.option("--shift-by", type=int, help="Move the committed offset by N (negative: back).")
@click.option("--execute", is_flag=True, help="Apply the plan (default: print it only).")
@_admin_options
def groups_reset_offsets(
    group: str,
    topics: tuple[str, ...],
    target: str | None,
    to_offset: int | None,
    shift_by: int | None,
    execute: bool,
    bootstrap_server: str,
    properties: tuple[str, ...],
    timeout: float,
) -> None:
    """Reset a group's committed offsets (the group must have no members)."""
    chosen = [x for x in (target, to_offset, shift_by) if x is not None]
    if len(chosen) != 1:
        raise click.UsageError(
            "give exactly one of --to-earliest, --to-latest, --to-offset, --shift-by"
        )
    admin = _admin(bootstrap_server, properties)
    partitions = _partitions(admin, topics, timeout)
    earliest = _offsets(admin, partitions, EARLIEST, timeout)
    latest = _offsets(admin, partitions, LATEST, timeout)
    committed = _committed(admin, group, timeout)
    plan: dict[tuple[str, int], int] = {}
    for key in partitions:
        if target == "earliest":
            offset = earliest[key]
        elif target == "latest":
            offset = latest[key]
        elif to_offset is not None:
            offset = to_offset
        else:
            assert shift_by is not None
            offset = committed.get(key, earliest[key]) + shift_by
        # Like Kafka's tool: never outside what the log holds.
        plan[key] = min(max(offset, earliest[key]), latest[key])
    table = _table("TOPIC", "PARTITION", "NEW-OFFSET")
    for (t, p), offset in sorted(plan.items()):
        table.add_row(t, str(p), str(offset))
    table.echo()
    if not execute:
        click.echo("Dry run: add --execute to apply.")
        return
    request = [
        ConsumerGroupTopicPartitions(
            group, [TopicPartition(t, p, o) for (t, p), o in sorted(plan.items())]
        )
    ]
    futures = admin.alter_consumer_group_offsets(request, request_timeout=timeout)
    result = _wait(futures[group], timeout, f"cannot reset the offsets of {group}")
    failed = [tp for tp in result.topic_partitions if tp.error is not None]
    if failed:
        raise click.ClickException(
            "cannot reset " + ", ".join(f"{tp.topic}-{tp.partition}: {tp.error}" for tp in failed)
        )
    click.echo(f"Offsets of group {group} reset.")


def _partitions(
    admin: AdminClient, topics: tuple[str, ...], timeout: float
) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for spec in topics:
        name, _, listed = spec.partition(":")
        if listed:
            try:
                out.extend((name, int(p)) for p in listed.split(","))
            except ValueError:
                raise click.BadParameter(
                    f"expected topic:0,1,2, got {spec!r}", param_hint="--topic"
                ) from None
            continue
        try:
            metadata = admin.list_topics(topic=name, timeout=timeout)
        except KafkaException as exc:
            raise click.ClickException(f"cannot reach the cluster: {_kafka_message(exc)}") from exc
        topic = metadata.topics.get(name)
        if topic is None or topic.error is not None:
            raise click.ClickException(f"unknown topic {name!r}")
        out.extend((name, p) for p in sorted(topic.partitions))
    return out
