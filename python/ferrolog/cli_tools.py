"""Console tools: `ferrolog topics create|list|describe|alter|delete`, `ferrolog produce`,
`ferrolog consume`, `ferrolog groups list|describe|delete|reset-offsets`.

They speak the Kafka protocol through confluent-kafka (librdkafka) rather than calling into a
running broker, so the same commands work against Apache Kafka and any other compatible
broker. Every command reports a failure as a clear message and a non-zero exit code (click's
ClickException: exit 1; usage errors: exit 2). The commands live in `cli_topics` (admin) and
`cli_console` (produce, consume), `cli_groups`; `cli_common` holds their shared plumbing."""

from __future__ import annotations

import click

from ferrolog.cli_cluster import verify_replicas
from ferrolog.cli_console import consume, produce
from ferrolog.cli_groups import groups
from ferrolog.cli_topics import topics

__all__ = ["consume", "groups", "produce", "register", "topics", "verify_replicas"]


def register(group: click.Group) -> None:
    """Adds the console tools to the `ferrolog` command group."""
    group.add_command(topics)
    group.add_command(produce)
    group.add_command(consume)
    group.add_command(groups)
    group.add_command(verify_replicas)
