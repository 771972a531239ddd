"""Console tools: `ferrolog topics create|list|describe|alter|delete`, `ferrolog produce`,
`ferrolog consume`, `ferrolog groups list|describe|delete|reset-offsets`,
`ferrolog verify-replicas`, `ferrolog fuzz`, `ferrolog chaos`.

They speak the Kafka protocol through confluent-kafka (librdkafka) rather than calling into a
running broker, so the same commands work against Apache Kafka and any other compatible
broker. Every command reports a failure as a clear message and a non-zero exit code (click's
ClickException: exit 1; usage errors: exit 2). Each command lives in the module named after it
(`console` holds produce and consume); `common` holds their shared plumbing."""

from __future__ import annotations

import click

from ferrolog.cli.chaos import chaos
from ferrolog.cli.console import consume, produce
from ferrolog.cli.fuzz import fuzz
from ferrolog.cli.groups import groups
from ferrolog.cli.topics import topics
from ferrolog.cli.verify_replicas import verify_replicas

__all__ = ["chaos", "consume", "fuzz", "groups", "produce", "register", "topics", "verify_replicas"]


def register(group: click.Group) -> None:
    """Adds the console tools to the `ferrolog` command group."""
    group.add_command(topics)
    group.add_command(produce)
    group.add_command(consume)
    group.add_command(groups)
    group.add_command(verify_replicas)
    group.add_command(fuzz)
    group.add_command(chaos)
