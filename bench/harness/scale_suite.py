"""The scale mode (issue 9): ferrolog and Apache Kafka 4 (KRaft) side by side with many
partitions and many connections, each phase against a fresh broker (or cluster) of each kind.

Phases, in order (each broker of `--brokers` runs each phase once; Kafka first):
- `crash-<N>` for every N of `--partitions` (`scale.py`): create, keyed acks=all writes,
  SIGKILL, restart until every partition acknowledges, read-back of every acknowledged key,
  SIGTERM; RSS, peak RSS, open files, allocated size of the log directory.
- `load` (`scale_load.py`): produce and consume throughput over every partition of one topic
  of `--load-partitions`, with librdkafka and Kafka's perf tools.
- `replicated` (`scale_cluster.py`): three brokers, RF 3, `--replicated-partitions`: create,
  produce throughput acks=all, SIGKILL of one broker and its restart until back in the ISR,
  stop. ferrolog in cluster mode (with its ZooKeeper) against three Kafka 4 KRaft nodes.
- `conns` (`scale_conns.py`): `--idle` idle connections and `--producers` active producers
  on one broker, errors counted, memory per connection.

A phase that times out, fails or loses an acknowledged record becomes an error sample (a lost
record is flagged as such); the next phase runs regardless."""

from __future__ import annotations

import argparse
import os
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness import brokers, cluster, scale, scale_cluster, scale_conns, scale_load
from bench.harness.brokers import Broker

PHASES = ("crash", "load", "replicated", "conns")
SETTLE_S = 2.0


@dataclass(frozen=True)
class Phase:
    kind: str  # one of PHASES
    partitions: int
    run: Callable[[Broker], dict[str, Any]]
    make: Callable[[str], Broker] = brokers.make

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.partitions}" if self.kind == "crash" else self.kind


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("scale mode")
    g.add_argument("--partitions", default="1000,10000",
                   help="crash phase: comma-separated partition counts (default 1000,10000)")
    g.add_argument("--phases", default=",".join(PHASES), help=f"subset of {','.join(PHASES)}")
    g.add_argument("--records", type=int, default=10,
                   help="crash phase: keyed acks=all records per partition before the crash")
    g.add_argument("--load-partitions", type=int, default=1000)
    g.add_argument("--load-records", type=int, default=300_000,
                   help="1 KB records per producer in the load phase")
    g.add_argument("--consume-rounds", type=int, default=5,
                   help="load phase: how many times each consumer reads everything (median)")
    g.add_argument("--replicated-partitions", type=int, default=1000)
    g.add_argument("--replicated-records", type=int, default=200_000,
                   help="1 KB acks=all records of the replicated throughput run")
    g.add_argument("--idle", type=int, default=10_000, help="idle connections")
    g.add_argument("--producers", type=int, default=1_000, help="active producers")
    g.add_argument("--seconds", type=float, default=30.0,
                   help="how long the active producers send")
    g.add_argument("--no-java", action="store_true",
                   help="load phase without Kafka's perf tools (no jars needed)")


def phases(args: argparse.Namespace) -> list[Phase]:
    wanted = set(args.phases.split(","))
    unknown = wanted - set(PHASES)
    if unknown:
        raise SystemExit(f"unknown phases {sorted(unknown)} (known: {', '.join(PHASES)})")
    out: list[Phase] = []
    if "crash" in wanted:
        out += [Phase("crash", n, lambda b, n=n: scale.run(b, n, args.records))
                for n in (int(x) for x in args.partitions.split(","))]
    if "load" in wanted:
        out.append(Phase("load", args.load_partitions, lambda b: scale_load.run(
            b, args.load_partitions, args.load_records, not args.no_java,
            args.consume_rounds)))
    if "replicated" in wanted:
        out.append(Phase("replicated", args.replicated_partitions, lambda b: scale_cluster.run(
            b, args.replicated_partitions, args.replicated_records, args.records),
            make=cluster.make))
    if "conns" in wanted:
        out.append(Phase("conns", scale_conns.PARTITIONS, lambda b: scale_conns.run(
            b, args.idle, args.producers, args.seconds)))
    return out


def run_phase(phase: Phase, name: str) -> dict[str, Any]:
    """One phase against a fresh broker (or cluster) `name`: a sample with its figures or
    its error; the broker is gone afterwards either way."""
    sample: dict[str, Any] = {"phase": phase.name, "kind": phase.kind,
                              "partitions": phase.partitions, "broker": name}
    # The previous broker's data was just deleted and its dirty pages may still be going to
    # disk: written back now, so that no broker's timings carry the one before it.
    os.sync()
    time.sleep(SETTLE_S)
    start = time.monotonic()
    broker = phase.make(name)
    try:
        sample["metrics"] = phase.run(broker)
    except Exception as exc:
        # Where in the harness it stopped (a bare TimeoutError says nothing by itself).
        ours = [f for f in traceback.extract_tb(exc.__traceback__) if "/bench/" in f.filename]
        where = "".join(f" (at {f.name}, {Path(f.filename).name}:{f.lineno})" for f in ours[-1:])
        sample["error"] = traceback.format_exception_only(exc)[-1].strip()[:2000] + where
        sample["lost"] = isinstance(exc, scale.LostRecords)
        sample["broker_log"] = broker.log_tail(20)
    finally:
        broker.cleanup()
        sample["wall_s"] = round(time.monotonic() - start, 1)
    return sample


def run(plan: list[Phase], names: list[str], on_step: Callable[[str], None],
        samples: list[dict[str, Any]], rounds: int = 1) -> None:
    """Every phase against every broker (Kafka first), `rounds` times in a row per phase
    (the report takes the medians), appending to `samples` as it goes so that an interrupted
    run keeps what it measured."""
    scale_conns.raise_fd_limit()  # the brokers inherit it: 10,000 connections need more fds
    order = [n for n in names if n != "ferrolog"] + [n for n in names if n == "ferrolog"]
    for phase in plan:
        for r in range(rounds):
            for name in order:
                on_step(f"{phase.name} {name}" + (f" ({r + 1}/{rounds})" if rounds > 1 else ""))
                samples.append({**run_phase(phase, name), "round": r})


def describe(plan: list[Phase], args: argparse.Namespace) -> list[str]:
    """What each phase of the plan did, for the report."""
    text = {
        "crash": f"{{name}}: {{n:,}} partitions in {scale.TOPICS} topics ({{requests}}), "
                 f"{args.records} keyed acks=all records to each, SIGKILL, restart on the same "
                 "data, one more acks=all record to each, every acknowledged key read back, "
                 "SIGTERM.",
        "load": f"{{name}}: one topic of {{n:,}} partitions; {args.load_records:,} records of "
                "1 KB acks=all from each producer, spread round-robin over every partition "
                "(librdkafka, then ProducerPerformance with RoundRobinPartitioner), then each "
                f"consumer reads everything from the start, {args.consume_rounds} times (the "
                "median round is shown; clocks from the assignment to the last record), the "
                "librdkafka one also with fetch.queue.backoff.ms=20; offsets checked against "
                "the acknowledged count.",
        "replicated": f"{{name}}: three brokers, RF 3, min.insync.replicas=2, {{n:,}} "
                      f"partitions in {scale.TOPICS} topics ({{requests}}; ferrolog with "
                      f"ZooKeeper, Kafka as three KRaft nodes); {args.records} keyed acks=all "
                      "records each, SIGKILL of broker 3 and its restart, every acknowledged "
                      f"key read back, then {args.replicated_records:,} 1 KB acks=all records "
                      "(librdkafka); RSS is the largest broker's.",
        "conns": f"{{name}}: {args.idle:,} idle connections (ApiVersions each, then again at "
                 f"the end) and {args.producers:,} librdkafka producers (one 100 B acks=all "
                 f"record a second each for {args.seconds:g} s) on one broker with a topic of "
                 "{n} partitions; per-connection RSS = RSS delta / broker sockets delta.",
    }
    def requests(n: int) -> str:
        count = len(scale.create_requests(scale.topic_names(n)))
        return "one CreateTopics" if count == 1 else f"{count} CreateTopics sent at once"

    return [text[p.kind].format(name=p.name, n=p.partitions, requests=requests(p.partitions))
            for p in plan]
