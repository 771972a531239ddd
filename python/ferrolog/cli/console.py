"""`ferrolog produce` and `ferrolog consume`: console producer and consumer.

Without `--group` the consumer assigns partitions itself and never joins a group or commits
offsets, so running it leaves no trace in the cluster (like `kafka-console-consumer
--partition`). With `--group` it joins that group, as `kafka-console-consumer --group` does:
the group assigns the partitions, it resumes from the group's committed offsets (else from
the end, or the beginning with `--from-beginning`), and commits what it printed."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from typing import Any

import click
from confluent_kafka import (
    OFFSET_BEGINNING,
    OFFSET_END,
    Consumer,
    KafkaError,
    KafkaException,
    Message,
    Producer,
    TopicPartition,
)

from ferrolog.cli.common import _client_config, _client_options, _kafka_message, _metadata

COMPRESSIONS = ("none", "gzip", "snappy", "lz4", "zstd")


def _split_key(text: str, separator: str | None, where: str) -> tuple[str | None, str]:
    if separator is None:
        return None, text
    key, sep, value = text.partition(separator)
    if not sep:
        raise click.ClickException(f"no key separator {separator!r} in {where}")
    return key, value


def _records(
    value: str | None, count: int | None, separator: str | None
) -> Iterator[tuple[str | None, str]]:
    """(key, value) pairs to send: `--value` repeated `--count` times (default once), or the
    lines of standard input (at most `--count` of them)."""
    if value is not None:
        pair = _split_key(value, separator, "--value")
        for _ in range(1 if count is None else count):
            yield pair
        return
    for number, line in enumerate(sys.stdin, start=1):
        if count is not None and number > count:
            return
        yield _split_key(line.rstrip("\r\n"), separator, f"line {number} of the input")


@click.command()
@click.argument("topic")
@click.option("--value", help="Send this value instead of reading lines from standard input.")
@click.option("--count", type=click.IntRange(min=0), help="How many messages to send.")
@click.option("--key-separator", help="Each line (or --value) is KEY<separator>VALUE.")
@click.option("--partition", type=click.IntRange(min=0), help="Default: the partitioner's.")
@click.option("--header", "headers", multiple=True, metavar="KEY=VALUE", help="Add a header.")
@click.option(
    "--compression",
    type=click.Choice(COMPRESSIONS),
    default="none",
    show_default=True,
)
@click.option(
    "--acks",
    type=click.Choice(["all", "-1", "0", "1"]),
    default="all",
    show_default=True,
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Seconds to wait for every message to be acknowledged.",
)
@_client_options
def produce(
    topic: str,
    value: str | None,
    count: int | None,
    key_separator: str | None,
    partition: int | None,
    headers: tuple[str, ...],
    compression: str,
    acks: str,
    timeout: float,
    bootstrap_server: str,
    properties: tuple[str, ...],
) -> None:
    """Send messages to TOPIC: one per line of standard input, or --value."""
    if key_separator == "":
        raise click.BadParameter("must not be empty", param_hint="--key-separator")
    header_list: list[tuple[str, str | bytes | None]] = []
    for pair in headers:
        name, sep, header_value = pair.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--header")
        header_list.append((name, header_value.encode()))
    config = _client_config(bootstrap_server, properties)
    config.setdefault("compression.type", compression)
    config.setdefault("acks", acks)
    config.setdefault("message.timeout.ms", int(timeout * 1000))
    producer = Producer(config)
    failures: list[str] = []
    delivered = 0

    def on_delivery(err: KafkaError | None, msg: Message) -> None:
        nonlocal delivered
        if err is not None:
            failures.append(str(err.str()))
        else:
            delivered += 1

    extra: dict[str, Any] = {} if partition is None else {"partition": partition}
    queued = 0
    for key, text in _records(value, count, key_separator):
        while True:
            try:
                producer.produce(
                    topic,
                    value=text.encode(),
                    key=None if key is None else key.encode(),
                    headers=header_list or None,
                    on_delivery=on_delivery,
                    **extra,
                )
                break
            except BufferError:
                # The local queue is full: let deliveries drain it, then retry this message.
                producer.poll(0.1)
            except KafkaException as exc:
                raise click.ClickException(f"cannot produce: {_kafka_message(exc)}") from exc
        queued += 1
        producer.poll(0)
    remaining = producer.flush(timeout)
    if failures or remaining:
        first = failures[0] if failures else "timed out"
        raise click.ClickException(
            f"{len(failures) + remaining} of {queued} messages not delivered to {topic}: {first}"
        )
    click.echo(f"Produced {delivered} message(s) to {topic}.", err=True)


def _start_offset(from_beginning: bool, offset: str | None) -> int:
    if from_beginning and offset is not None:
        raise click.UsageError("give either --from-beginning or --offset, not both")
    if from_beginning or offset == "earliest":
        return int(OFFSET_BEGINNING)
    if offset is None or offset == "latest":
        return int(OFFSET_END)
    try:
        start = int(offset)
    except ValueError:
        start = -1
    if start < 0:
        raise click.BadParameter(
            f"expected an offset >= 0, 'earliest' or 'latest', got {offset!r}",
            param_hint="--offset",
        )
    return start


def _format(
    msg: Message,
    separator: str,
    key: bool,
    partition: bool,
    offset: bool,
    timestamp: bool,
    headers: bool,
) -> str:
    def text(data: str | bytes | None) -> str:
        if isinstance(data, bytes):
            return data.decode("utf-8", errors="replace")
        return "null" if data is None else data

    fields = []
    if timestamp:
        kind, ms = msg.timestamp()
        label = {1: "CreateTime", 2: "LogAppendTime"}.get(kind, "NoTimestamp")
        fields.append(f"{label}:{ms}")
    if partition:
        fields.append(f"Partition:{msg.partition()}")
    if offset:
        fields.append(f"Offset:{msg.offset()}")
    if headers:
        received = msg.headers() or []
        # Consumed headers come as a list of pairs; the binding's type also allows a dict.
        pairs = list(received.items()) if isinstance(received, dict) else received
        fields.append(",".join(f"{name}:{text(data)}" for name, data in pairs) or "NO_HEADERS")
    if key:
        fields.append(text(msg.key()))
    fields.append(text(msg.value()))
    return separator.join(fields)


@click.command()
@click.argument("topic")
@click.option("--from-beginning", is_flag=True, help="Start at the earliest offset.")
@click.option("--offset", help="Start offset: a number, 'earliest' or 'latest' (default).")
@click.option(
    "--partition",
    "partitions",
    type=click.IntRange(min=0),
    multiple=True,
    help="Read only this partition (repeatable). Default: all.",
)
@click.option(
    "--group",
    help="Join this consumer group: resume from its committed offsets and commit what is "
    "printed. Not with --partition or --offset.",
)
@click.option("--max-messages", type=click.IntRange(min=1), help="Stop after this many.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    help="Stop after this many seconds without a message. Default: run until interrupted.",
)
@click.option(
    "--isolation-level",
    type=click.Choice(["read_uncommitted", "read_committed"]),
    default="read_uncommitted",
    show_default=True,
)
@click.option("--print-key", is_flag=True)
@click.option("--print-partition", is_flag=True)
@click.option("--print-offset", is_flag=True)
@click.option("--print-timestamp", is_flag=True)
@click.option("--print-headers", is_flag=True)
@click.option("--separator", default="\t", show_default="tab", help="Between printed fields.")
@_client_options
def consume(
    topic: str,
    from_beginning: bool,
    offset: str | None,
    partitions: tuple[int, ...],
    group: str | None,
    max_messages: int | None,
    timeout: float | None,
    isolation_level: str,
    print_key: bool,
    print_partition: bool,
    print_offset: bool,
    print_timestamp: bool,
    print_headers: bool,
    separator: str,
    bootstrap_server: str,
    properties: tuple[str, ...],
) -> None:
    """Print the messages of TOPIC, one per line."""
    start = _start_offset(from_beginning, offset)
    if group is not None and (partitions or offset is not None):
        raise click.UsageError(
            "--group cannot go with --partition or --offset: the group assigns the partitions "
            "and resumes from its commits"
        )
    config = _client_config(bootstrap_server, properties)
    if group is not None:
        config["group.id"] = group
        # Each printed message's offset is stored as it is handed over, and the stored ones
        # are committed as the consumer goes and when it closes: what was printed, no more.
        config.setdefault("enable.auto.commit", True)
        config.setdefault("enable.auto.offset.store", True)
        config.setdefault("auto.offset.reset", "earliest" if from_beginning else "latest")
    else:
        # The Python binding insists on a group id even for assign(); the consumer never joins
        # it and never commits, so a private name keeps it from touching anyone's offsets.
        config.setdefault("group.id", f"ferrolog-console-{os.getpid()}-{time.monotonic_ns()}")
        config.setdefault("enable.auto.commit", False)
        config.setdefault("enable.auto.offset.store", False)
    config.setdefault("isolation.level", isolation_level)
    consumer = Consumer(config)
    try:
        metadata = _metadata(consumer, 30.0 if timeout is None else max(timeout, 5.0), topic)
        info = metadata.topics.get(topic)
        if info is None or info.error is not None:
            reason = _kafka_message(KafkaException(info.error)) if info else "not found"
            raise click.ClickException(f"cannot read topic {topic}: {reason}")
        available = sorted(info.partitions)
        chosen = list(partitions) or available
        unknown = sorted(set(chosen) - set(available))
        if unknown:
            raise click.ClickException(
                f"topic {topic} has no partition {', '.join(map(str, unknown))} "
                f"(it has {len(available)})"
            )
        if group is not None:
            consumer.subscribe([topic])
        else:
            consumer.assign([TopicPartition(topic, p, start) for p in chosen])
        count = _consume_loop(
            consumer,
            max_messages,
            timeout,
            lambda m: _format(
                m,
                separator,
                print_key,
                print_partition,
                print_offset,
                print_timestamp,
                print_headers,
            ),
        )
    finally:
        consumer.close()
    click.echo(f"Processed a total of {count} message(s).", err=True)


def _consume_loop(
    consumer: Consumer, max_messages: int | None, timeout: float | None, render: Any
) -> int:
    count = 0
    idle_since = time.monotonic()
    while max_messages is None or count < max_messages:
        msg = consumer.poll(0.2)
        if msg is None:
            if timeout is not None and time.monotonic() - idle_since >= timeout:
                break
            continue
        error = msg.error()
        if error is not None:
            if error.code() == KafkaError._PARTITION_EOF:
                continue
            if error.fatal() or not error.retriable():
                raise click.ClickException(f"cannot consume: {error.str()}")
            continue
        click.echo(render(msg))
        count += 1
        idle_since = time.monotonic()
    return count


__all__ = ["consume", "produce"]
