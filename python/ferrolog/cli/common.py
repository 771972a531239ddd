"""Plumbing shared by the console tools: connection options, client config, error text."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click
from confluent_kafka import Consumer, KafkaError, KafkaException
from confluent_kafka.admin import AdminClient
from rich.console import Console

DEFAULT_BOOTSTRAP = "localhost:9092"
F = TypeVar("F", bound=Callable[..., Any])


def _client_options(func: F) -> F:
    """The connection options every tool takes, in the spelling of Kafka's own tools."""
    func = click.option(
        "-X",
        "--property",
        "properties",
        multiple=True,
        metavar="KEY=VALUE",
        help="Extra librdkafka client property (security.protocol, sasl.*, debug, ...).",
    )(func)
    return click.option(
        "--bootstrap-server",
        "-b",
        default=DEFAULT_BOOTSTRAP,
        show_default=True,
        envvar="FERROLOG_BOOTSTRAP_SERVER",
        help="host:port of one or more brokers, comma separated.",
    )(func)


def _admin_options(func: F) -> F:
    """The client options plus how long to wait for the cluster (admin commands)."""
    func = click.option(
        "--timeout",
        type=click.FloatRange(min=0.1),
        default=30.0,
        show_default=True,
        help="Seconds to wait for the cluster to answer.",
    )(func)
    return _client_options(func)


def _parse_pairs(pairs: Iterable[str], what: str) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint=what)
        parsed[key] = value
    return parsed


def _client_config(bootstrap: str, properties: Iterable[str]) -> dict[str, Any]:
    # librdkafka logs every refused connection to stderr on its own; the tools report the
    # failure that matters themselves. `-X log_level=7` brings the logs back.
    config: dict[str, Any] = {"bootstrap.servers": bootstrap, "log_level": 0}
    config.update(_parse_pairs(properties, "--property"))
    return config


def _kafka_message(exc: BaseException) -> str:
    """librdkafka's own description of a failure, without the wrapper noise."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return str(exc.args[0].str())
    return str(exc)


def _error_name(exc: BaseException) -> str | None:
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return str(exc.args[0].name())
    return None


def _metadata(admin: AdminClient | Consumer, timeout: float, topic: str | None = None) -> Any:
    try:
        if topic is None:
            return admin.list_topics(timeout=timeout)
        return admin.list_topics(topic=topic, timeout=timeout)
    except KafkaException as exc:
        raise click.ClickException(f"cannot reach the cluster: {_kafka_message(exc)}") from exc


def _console() -> Console:
    # Created per command so that it writes to whatever sys.stdout is now (CliRunner swaps it).
    return Console(highlight=False, soft_wrap=False)
