"""The checks over a complete history, once the cluster is healed.

- lost: a value the cluster acknowledged that the final read of the topic does not hold;
- duplicated: a value the final read holds more than once (idempotent producers);
- moved: a value read at another partition or offset than the one it was acknowledged at;
- non-monotonic: a consumer given an offset not above the previous one of the same partition
  within one assignment;
- re-delivered: a consumer given, as its first record of a partition after an assignment, a
  record below an offset the group had committed for it before that assignment;
- unconsumed: an acknowledged record the group was never given (it skipped it);
- replicas: `ferrolog verify-replicas` over the topic (leader and followers byte-identical up to
  the high watermark).
Values the client did not see acknowledged (failed or timed out) may or may not be in the log:
they are counted, not judged."""

from __future__ import annotations

import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field

from confluent_kafka import Consumer, TopicPartition

from ferrolog.chaos.workload import (
    CLIENT_LOG,
    TOPIC,
    ConsumerHistory,
    ProducerHistory,
    record_of,
)

SAMPLES = 10


@dataclass
class Verdict:
    acknowledged: int = 0
    read: int = 0
    unacknowledged_read: int = 0
    consumed: int = 0
    commits: int = 0
    rebalances: int = 0
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    non_monotonic: list[str] = field(default_factory=list)
    redelivered: list[str] = field(default_factory=list)
    unconsumed: list[str] = field(default_factory=list)
    replica_problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(self.counts.get(k) for k in ANOMALIES)


ANOMALIES = (
    "lost",
    "duplicated",
    "moved",
    "non_monotonic",
    "redelivered",
    "unconsumed",
    "replica_problems",
)


def final_read(
    bootstrap: str, partitions: int, timeout: float = 60.0
) -> dict[int, list[tuple[int, str]]]:
    """Every record of the topic, partition by partition, from the log start to the high
    watermark."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "chaos-final-read",
            "enable.auto.commit": False,
            "check.crcs": True,
            "logger": CLIENT_LOG,
        }
    )
    out: dict[int, list[tuple[int, str]]] = {p: [] for p in range(partitions)}
    try:
        ends = {p: consumer.get_watermark_offsets(TopicPartition(TOPIC, p), 30)[1]
                for p in range(partitions)}  # fmt: skip
        consumer.assign([TopicPartition(TOPIC, p, -2) for p in range(partitions)])  # beginning
        deadline = time.monotonic() + timeout
        done = {p for p, end in ends.items() if end == 0}
        while len(done) < partitions and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            p, offset, value = record_of(message)
            out[p].append((offset, value))
            if offset + 1 >= ends[p]:
                done.add(p)
    finally:
        consumer.close()
    return out


def check(
    producers: list[ProducerHistory],
    consumers: list[ConsumerHistory],
    log: dict[int, list[tuple[int, str]]],
    replicas: list[str],
) -> Verdict:
    v = Verdict()
    acked: dict[str, tuple[int, int | None]] = {}
    for history in producers:
        acked.update(history.acked)
    v.acknowledged = len(acked)
    where: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for partition, records in log.items():
        for offset, value in records:
            where[value].append((partition, offset))
    v.read = sum(len(r) for r in log.values())
    v.lost = sorted(value for value in acked if value not in where)
    v.duplicated = sorted(value for value, places in where.items() if len(places) > 1)
    v.moved = sorted(
        f"{value}: acknowledged at {acked[value]}, read at {places[0]}"
        for value, places in where.items()
        if value in acked and len(places) == 1 and not _same_place(acked[value], places[0])
    )
    v.unacknowledged_read = sum(1 for value in where if value not in acked)

    deliveries = [d for c in consumers for d in c.deliveries]
    commits = sorted((c for h in consumers for c in h.commits), key=lambda c: c.at)
    assignments = [a for h in consumers for a in h.assignments]
    v.consumed = len(deliveries)
    given = {d.value for d in deliveries}
    v.unconsumed = sorted(value for value in acked if value not in given)
    v.commits = len(commits)
    v.rebalances = sum(1 for a in assignments if a.partitions)
    started = {(a.consumer, a.session): a.at for a in assignments}
    previous: dict[tuple[int, int, int], int] = {}
    for d in deliveries:
        key = (d.consumer, d.session, d.partition)
        last = previous.get(key)
        if last is not None and d.offset <= last:
            v.non_monotonic.append(
                f"consumer {d.consumer} partition {d.partition}: offset {d.offset} after {last}"
            )
        if last is None:
            since = started.get((d.consumer, d.session), 0.0)
            committed = max(
                (c.offset for c in commits if c.partition == d.partition and c.at < since),
                default=-1,
            )
            if d.offset < committed:
                v.redelivered.append(
                    f"consumer {d.consumer} partition {d.partition}: offset {d.offset} first "
                    f"after an assignment, below the committed {committed}"
                )
        previous[key] = d.offset
    v.replica_problems = replicas
    for name in ANOMALIES:
        items = getattr(v, name)
        v.counts[name] = len(items)
        setattr(v, name, items[:SAMPLES])
    return v


def _same_place(acknowledged: tuple[int, int | None], read: tuple[int, int]) -> bool:
    """Whether a record was read where it was acknowledged. A client may acknowledge a record
    without its offset (librdkafka gives None when the answer carried none, as Kafka 3.9 did
    once in a 100-cycle run): then only its partition can be compared."""
    partition, offset = acknowledged
    return partition == read[0] and (offset is None or offset < 0 or offset == read[1])


def verify_replicas(bootstrap: str, attempts: int = 5) -> list[str]:
    """`ferrolog verify-replicas` over the workload's topic: its DIFFERENCE lines, once the
    replicas agree or after `attempts` tries. A follower serves Kafka's debugging consumer up
    to its own high watermark, which learns the leader's one fetch round later: right after
    the last write a follower can look one batch short without lacking it."""
    problems: list[str] = []
    for attempt in range(attempts):
        if attempt:
            time.sleep(2.0)
        problems = _verify_once(bootstrap)
        if not problems:
            break
    return problems


def _verify_once(bootstrap: str) -> list[str]:
    run = subprocess.run(
        [sys.executable, "-m", "ferrolog", "verify-replicas", "--bootstrap-server", bootstrap,
         "--topic", TOPIC],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    problems = [line for line in run.stderr.splitlines() if line.startswith("DIFFERENCE")]
    if run.returncode != 0 and not problems:
        problems.append(f"verify-replicas exited {run.returncode}: {run.stderr[-300:]}")
    return problems
