"""`ferrolog topics create|list|describe|alter|delete`, over the Kafka admin protocol."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

import click
from confluent_kafka import KafkaException

# confluent_kafka.admin re-exports these without an __all__, which strict mypy reads as
# private; they are its documented public names.
from confluent_kafka.admin import (  # type: ignore[attr-defined]
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewPartitions,
    NewTopic,
    ResourceType,
)
from rich.table import Table

from ferrolog.cli.common import (
    _admin_options,
    _client_config,
    _console,
    _error_name,
    _kafka_message,
    _metadata,
    _parse_pairs,
)
from ferrolog.client.connection import Connection
from ferrolog.client.security import ClientSecurity
from ferrolog.errors import KafkaError
from ferrolog.protocol.messages import Apis, DescribeTopicPartitionsRequest


@click.group()
def topics() -> None:
    """Create, list, describe, alter and delete topics."""


def _parse_assignment(text: str) -> list[list[int]]:
    """Kafka's `--replica-assignment` syntax: partitions separated by commas, the replicas of
    one partition by colons, preferred leader first: `1:2,2:3,3:1`."""
    try:
        return [[int(b) for b in part.split(":")] for part in text.split(",")]
    except ValueError:
        raise click.BadParameter(
            f"expected broker ids like 1:2,2:3, got {text!r}", param_hint="--replica-assignment"
        ) from None


def _resolve(futures: dict[Any, Future[Any]], describe: Callable[[Any], str]) -> list[str]:
    """Waits for every admin future; returns one line per failure."""
    failures = []
    for key, future in futures.items():
        try:
            future.result()
        except KafkaException as exc:
            failures.append(f"{describe(key)}: {_kafka_message(exc)}")
    return failures


@topics.command("create")
@click.argument("names", nargs=-1, required=True)
@click.option("--partitions", "-p", type=int, default=-1, help="Default: the broker's.")
@click.option("--replication-factor", "-r", type=int, default=-1, help="Default: the broker's.")
@click.option("--config", "-c", "configs", multiple=True, metavar="KEY=VALUE")
@click.option("--replica-assignment", help="Explicit replicas, e.g. 1:2,2:3 (no -p/-r then).")
@click.option("--if-not-exists", is_flag=True, help="Succeed if a topic already exists.")
@click.option("--validate-only", is_flag=True, help="Ask the broker to check, not create.")
@_admin_options
def topics_create(
    names: tuple[str, ...],
    partitions: int,
    replication_factor: int,
    configs: tuple[str, ...],
    replica_assignment: str | None,
    if_not_exists: bool,
    validate_only: bool,
    bootstrap_server: str,
    properties: tuple[str, ...],
    timeout: float,
) -> None:
    """Create topics."""
    config = _parse_pairs(configs, "--config")
    kwargs: dict[str, Any] = {"config": config}
    if replica_assignment is not None:
        if partitions != -1 or replication_factor != -1:
            raise click.UsageError(
                "--replica-assignment replaces --partitions/--replication-factor"
            )
        kwargs["replica_assignment"] = _parse_assignment(replica_assignment)
    else:
        kwargs["num_partitions"] = partitions
        kwargs["replication_factor"] = replication_factor
    admin = AdminClient(_client_config(bootstrap_server, properties))
    futures = admin.create_topics(
        [NewTopic(name, **kwargs) for name in names],
        operation_timeout=timeout,
        request_timeout=timeout,
        validate_only=validate_only,
    )
    failures = []
    for name, future in futures.items():
        try:
            future.result()
        except KafkaException as exc:
            if if_not_exists and _error_name(exc) == "TOPIC_ALREADY_EXISTS":
                continue
            failures.append(f"{name}: {_kafka_message(exc)}")
            continue
        verb = "would be created" if validate_only else "created"
        click.echo(f"Topic {name} {verb}.")
    if failures:
        raise click.ClickException("cannot create topic " + "; ".join(failures))


@topics.command("list")
@click.option("--internal", is_flag=True, help="Include internal topics (__consumer_offsets...).")
@_admin_options
def topics_list(
    internal: bool, bootstrap_server: str, properties: tuple[str, ...], timeout: float
) -> None:
    """List topics with their partition count and replication factor."""
    admin = AdminClient(_client_config(bootstrap_server, properties))
    metadata = _metadata(admin, timeout)
    table = Table(
        "Topic", "Partitions", "Replication factor", title=f"Topics on {bootstrap_server}"
    )
    for name in sorted(metadata.topics):
        if name.startswith("__") and not internal:
            continue
        topic = metadata.topics[name]
        replication = max((len(p.replicas) for p in topic.partitions.values()), default=0)
        table.add_row(name, str(len(topic.partitions)), str(replication))
    _console().print(table)


_SOURCE_NAMES = {
    ConfigSource.DYNAMIC_TOPIC_CONFIG.value: "topic",
    ConfigSource.DYNAMIC_BROKER_CONFIG.value: "dynamic broker",
    ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.value: "dynamic default",
    ConfigSource.STATIC_BROKER_CONFIG.value: "broker",
    ConfigSource.DEFAULT_CONFIG.value: "default",
}


def _config_rows(entries: dict[str, ConfigEntry], all_configs: bool) -> Iterator[tuple[str, ...]]:
    for name in sorted(entries):
        entry = entries[name]
        # The binding's stub says ConfigSource, but entries come back with a plain int.
        raw: Any = entry.source
        source = int(raw.value if isinstance(raw, ConfigSource) else raw)
        if not all_configs and source == ConfigSource.DEFAULT_CONFIG.value:
            continue
        value = (
            "(sensitive)" if entry.is_sensitive else ("" if entry.value is None else entry.value)
        )
        yield name, value, _SOURCE_NAMES.get(source, str(source))


@topics.command("describe")
@click.argument("names", nargs=-1)
@click.option("--all-configs", is_flag=True, help="Show every config, not only the overrides.")
@click.option("--internal", is_flag=True, help="With no names: include internal topics.")
@_admin_options
def topics_describe(
    names: tuple[str, ...],
    all_configs: bool,
    internal: bool,
    bootstrap_server: str,
    properties: tuple[str, ...],
    timeout: float,
) -> None:
    """Describe topics (all of them with no names): partitions, leaders, replicas, ISR,
    eligible leader replicas and configs."""
    admin = AdminClient(_client_config(bootstrap_server, properties))
    metadata = _metadata(admin, timeout)
    wanted = list(names) or sorted(n for n in metadata.topics if internal or not n.startswith("__"))
    missing = [n for n in wanted if n not in metadata.topics or metadata.topics[n].error]
    if missing:
        raise click.ClickException(f"unknown topic: {', '.join(missing)}")
    config_futures = (
        admin.describe_configs(
            [ConfigResource(ResourceType.TOPIC, n) for n in wanted], request_timeout=timeout
        )
        if wanted
        else {}
    )
    console = _console()
    config = _client_config(bootstrap_server, properties)
    eligible = _eligible_leaders(metadata, config, wanted, timeout)
    for name in wanted:
        topic = metadata.topics[name]
        columns = ["Partition", "Leader", "Replicas", "ISR"]
        table = Table(
            *columns, *(["ELR", "Last known ELR"] if eligible else []), title=f"Topic {name}"
        )
        for index in sorted(topic.partitions):
            part = topic.partitions[index]
            leader = str(part.leader) if part.leader >= 0 else "none"
            row = [
                str(index),
                leader,
                ",".join(map(str, part.replicas)),
                ",".join(map(str, part.isrs)),
            ]
            if eligible:
                row.extend(",".join(map(str, ids)) for ids in eligible.get((name, index), ([], [])))
            table.add_row(*row)
        console.print(table)
        future = next(f for r, f in config_futures.items() if r.name == name)
        try:
            entries = future.result()
        except KafkaException as exc:
            raise click.ClickException(
                f"cannot describe configs of {name}: {_kafka_message(exc)}"
            ) from exc
        rows = list(_config_rows(entries, all_configs))
        if not rows:
            console.print(f"Topic {name} has no config overrides (--all-configs shows them all).")
            continue
        configs = Table("Config", "Value", "Source", title=f"Configs of {name}")
        for config_row in rows:
            configs.add_row(*config_row)
        console.print(configs)


def _eligible_leaders(
    metadata: Any, config: dict[str, Any], names: list[str], timeout: float
) -> dict[tuple[str, int], tuple[list[int], list[int]]] | None:
    """Each partition's eligible leader replicas and last known ELR (KIP-966), which only
    DescribeTopicPartitions carries, as Kafka's kafka-topics reads them; None when no broker
    answers it (an older broker: the columns are left out)."""
    if not names or not metadata.brokers:
        return {}
    broker = next(iter(metadata.brokers.values()))
    found: dict[tuple[str, int], tuple[list[int], list[int]]] = {}
    body: DescribeTopicPartitionsRequest = {
        "topics": [{"name": n} for n in names],
        "response_partition_limit": 2000,
        "cursor": None,
    }
    try:
        security = ClientSecurity.from_librdkafka(config)
        with Connection(broker.host, broker.port, timeout, "ferrolog-topics", security) as conn:
            while True:
                answer = conn.request(Apis.DESCRIBE_TOPIC_PARTITIONS, 0, body)
                for topic in answer["topics"]:
                    name = topic["name"]
                    if name is None:  # a topic id this broker does not know
                        continue
                    for p in topic["partitions"]:
                        found[(name, p["partition_index"])] = (
                            p["eligible_leader_replicas"] or [],
                            p["last_known_elr"] or [],
                        )
                if answer["next_cursor"] is None:
                    return found
                body["cursor"] = answer["next_cursor"]
    except (OSError, ValueError, KafkaError):
        return None


@topics.command("alter")
@click.argument("name")
@click.option("--partitions", "-p", type=int, help="Grow the topic to this many partitions.")
@click.option("--config", "-c", "configs", multiple=True, metavar="KEY=VALUE", help="Set.")
@click.option("--delete-config", "deletes", multiple=True, metavar="KEY", help="Remove override.")
@_admin_options
def topics_alter(
    name: str,
    partitions: int | None,
    configs: tuple[str, ...],
    deletes: tuple[str, ...],
    bootstrap_server: str,
    properties: tuple[str, ...],
    timeout: float,
) -> None:
    """Add partitions to a topic or change its config overrides."""
    if partitions is None and not configs and not deletes:
        raise click.UsageError("nothing to alter: give --partitions, --config or --delete-config")
    admin = AdminClient(_client_config(bootstrap_server, properties))
    failures: list[str] = []
    if partitions is not None:
        grow = admin.create_partitions(
            [NewPartitions(name, partitions)], operation_timeout=timeout, request_timeout=timeout
        )
        failures += _resolve(grow, lambda _: f"partitions of {name}")
    if configs or deletes:
        entries = [
            ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET)
            for k, v in _parse_pairs(configs, "--config").items()
        ] + [ConfigEntry(k, None, incremental_operation=AlterConfigOpType.DELETE) for k in deletes]
        resource = ConfigResource(ResourceType.TOPIC, name, incremental_configs=entries)
        alter = admin.incremental_alter_configs([resource], request_timeout=timeout)
        failures += _resolve(alter, lambda _: f"configs of {name}")
    if failures:
        raise click.ClickException("; ".join(failures))
    click.echo(f"Topic {name} altered.")


@topics.command("delete")
@click.argument("names", nargs=-1, required=True)
@click.option("--if-exists", is_flag=True, help="Succeed if a topic does not exist.")
@_admin_options
def topics_delete(
    names: tuple[str, ...],
    if_exists: bool,
    bootstrap_server: str,
    properties: tuple[str, ...],
    timeout: float,
) -> None:
    """Delete topics."""
    admin = AdminClient(_client_config(bootstrap_server, properties))
    futures = admin.delete_topics(list(names), operation_timeout=timeout, request_timeout=timeout)
    failures = []
    for name, future in futures.items():
        try:
            future.result()
        except KafkaException as exc:
            if if_exists and _error_name(exc) == "UNKNOWN_TOPIC_OR_PART":
                continue
            failures.append(f"{name}: {_kafka_message(exc)}")
            continue
        click.echo(f"Topic {name} deleted.")
    if failures:
        raise click.ClickException("cannot delete topic " + "; ".join(failures))
