"""`ferrolog verify-replicas`: proves the replicas of every partition are byte-identical.

For each partition it reads every replica directly from its broker with Fetch
`replica_id = -2` (Kafka's debugging consumer: a broker serves it from its local log whatever
its role) from the log start up to the leader's high watermark, splits the records into
batches and compares them batch by batch. It reports the first differing batch of each
partition, and replicas that do not hold everything up to the high watermark. Exit code 0:
identical; 1: a difference or a replica that could not be read.

`--command-config` takes the client properties of Kafka's own tools (`security.protocol`,
`ssl.truststore.*`, `sasl.jaas.config`, ...), so a secured cluster is checked the same way.

Only committed data (below the high watermark) must agree: past it a follower may still be
fetching, and an old leader's uncommitted tail is truncated when it follows again.
"""

from __future__ import annotations

from pathlib import Path

import click

from ferrolog.client.security import ClientSecurity
from ferrolog.config.values import parse_properties
from ferrolog.replicas import ReplicaLog, batch_end, read_replica


def compare(topic: str, partition: int, leader: ReplicaLog, others: list[ReplicaLog]) -> list[str]:
    """Differences between the leader's batches (up to its high watermark) and each other
    replica's, as human-readable lines (empty: identical)."""
    problems = []
    reference = {base: batch for base, batch in leader.batches}
    for replica in others:
        if replica.error is not None:
            problems.append(f"{topic}-{partition}: replica {replica.broker}: {replica.error}")
            continue
        theirs = {base: batch for base, batch in replica.batches}
        start = max(leader.log_start_offset, replica.log_start_offset)
        for base, batch in sorted(reference.items()):
            if batch_end(batch) <= start:
                continue
            other = theirs.get(base)
            if other is None:
                problems.append(
                    f"{topic}-{partition}: replica {replica.broker} lacks the batch at offset "
                    f"{base} (leader {leader.broker} high watermark {leader.high_watermark})"
                )
                break
            if other != batch:
                problems.append(
                    f"{topic}-{partition}: replica {replica.broker} differs from leader "
                    f"{leader.broker} at the batch with base offset {base}"
                )
                break
        extra = [b for b in theirs if b not in reference and b < leader.high_watermark]
        if extra:
            problems.append(
                f"{topic}-{partition}: replica {replica.broker} has a batch at offset "
                f"{min(extra)} the leader does not"
            )
    return problems


@click.command("verify-replicas")
@click.option("--bootstrap-server", "bootstrap", default="127.0.0.1:9092", show_default=True)
@click.option("--topic", "topics", multiple=True, help="Only these topics (default: all).")
@click.option("--timeout", default=10.0, show_default=True, help="Socket timeout, seconds.")
@click.option(
    "--command-config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Client properties (security.protocol, ssl.*, sasl.*), as Kafka's tools take them.",
)
def verify_replicas(
    bootstrap: str, topics: tuple[str, ...], timeout: float, command_config: Path | None
) -> None:
    """Compare every partition's replicas batch by batch up to the high watermark."""
    from confluent_kafka.admin import AdminClient

    security = (
        None
        if command_config is None
        else ClientSecurity.from_properties(parse_properties(command_config.read_text()))
    )
    admin = {"bootstrap.servers": bootstrap, **(security.librdkafka() if security else {})}
    md = AdminClient(admin).list_topics(timeout=timeout)
    brokers = {b.id: (str(b.host), int(b.port)) for b in md.brokers.values()}
    problems: list[str] = []
    checked = 0
    for name in sorted(topics or md.topics):
        topic = md.topics.get(name)
        if topic is None or topic.error is not None:
            problems.append(f"{name}: not found")
            continue
        for index, p in sorted(topic.partitions.items()):
            if p.leader not in brokers:
                problems.append(f"{name}-{index}: no leader")
                continue
            host, port = brokers[p.leader]
            try:
                leader = read_replica(host, port, p.leader, name, index, None, timeout, security)
            except OSError as exc:
                problems.append(f"{name}-{index}: leader {p.leader}: {exc}")
                continue
            if leader.error is not None:
                problems.append(f"{name}-{index}: leader {p.leader}: {leader.error}")
                continue
            others = []
            for replica in p.replicas:
                if replica == p.leader:
                    continue
                if replica not in brokers:
                    problems.append(f"{name}-{index}: replica {replica} is offline")
                    continue
                rhost, rport = brokers[replica]
                try:
                    others.append(
                        read_replica(
                            rhost,
                            rport,
                            replica,
                            name,
                            index,
                            leader.high_watermark,
                            timeout,
                            security,
                        )
                    )
                except OSError as exc:
                    problems.append(f"{name}-{index}: replica {replica}: {exc}")
            problems.extend(compare(name, index, leader, others))
            checked += 1
            click.echo(
                f"{name}-{index}: leader {p.leader} high watermark {leader.high_watermark} "
                f"batches {len(leader.batches)} replicas {list(p.replicas)}"
            )
    for line in problems:
        click.echo(f"DIFFERENCE {line}", err=True)
    if problems:
        raise SystemExit(1)
    click.echo(f"{checked} partitions: replicas identical")
