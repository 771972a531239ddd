"""ferrolog side by side with Apache Kafka on this machine.

    python -m bench.run --mode quick            # a few minutes: ferrolog, Kafka 4 (KRaft)
    python -m bench.run --mode full             # the whole matrix, three brokers, 3 rounds
    python -m bench.run --mode smoke --brokers ferrolog --out /tmp/x   # CI: no Java needed
    python -m bench.run --mode replicated       # 3 ferrolog brokers vs 3 Kafka 4.4 (KRaft)
                                                # and 3 Kafka 3.9 (ZK), RF 3
    python -m bench.run --mode scale --partitions 1000,10000   # issue 9: partitions, crash,
                                                # connections; ferrolog vs Kafka 4 (KRaft)

Brokers alternate within every round; the figures reported are medians over the rounds,
with ratios ferrolog/Kafka. Writes `<out>/run-<stamp>.json`, `<out>/latest.json`,
`<out>/latest.md` and `<out>/plots/*.png` (default out: bench/results); the replicated mode
writes the same files prefixed with `replicated-`. The scale mode runs each phase once per
broker (`bench/harness/scale_suite.py`) and writes `scale-run-<stamp>.json`,
`scale-latest.json` and `scale-latest.md`."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bench.harness import (
    brokers,
    cluster,
    kafka_dist,
    matrix,
    report,
    runner,
    scale_report,
    scale_suite,
)

RESULTS = Path(__file__).resolve().parent / "results"
DEFAULTS = {"smoke": (["ferrolog"], 1, 5_000), "quick": (["ferrolog", "kafka4"], 2, 100_000),
            "full": (["ferrolog", "kafka4", "kafka3zk"], 3, 200_000),
            "replicated": (["ferrolog", "kafka4", "kafka3zk"], 3, 100_000)}
REPLICATED_SETUP = (
    "Replicated: each broker name is a cluster of three brokers with one ZooKeeper of its own "
    "(ferrolog in cluster mode; Kafka 3.9 in ZooKeeper mode); kafka4 is three Kafka 4.4 nodes "
    "in KRaft mode, each broker and controller, without ZooKeeper; replication factor 3, "
    "min.insync.replicas=2, acks=all. CPU s/GB is the three brokers' process trees together "
    "(ZooKeeper not counted); peak RSS is the largest of the three brokers (each one in the "
    "samples: peak_rss_mb_each); start-up is spawning the three to the first acknowledged "
    "produce, preparation is ZooKeeper's start.")


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


VERSIONS = {"kafka4": kafka_dist.KAFKA4, "kafka3zk": kafka_dist.KAFKA3,
            "zookeeper": "Debian zookeeper package",
            "java_tools": f"kafka-tools {kafka_dist.KAFKA4}"}


def _machine(load_before: str) -> dict[str, Any]:
    return {"nproc": os.cpu_count(), "kernel": platform.release(),
            "python": sys.version.split()[0], "load_before": load_before,
            "load_after": _load()}


@contextmanager
def _progress(console: Console, total: int, t0: float) -> Iterator[Callable[[str], None]]:
    """A progress bar of `total` steps; yields the callback that starts the next step."""
    with Progress(TextColumn("{task.description:<56}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=False) as progress:
        task = progress.add_task("starting", total=total)
        first = [True]

        def on_step(text: str) -> None:
            if not first[0]:
                progress.advance(task)
            first[0] = False
            progress.update(task, description=text)
            if not console.is_terminal:  # a log file gets one line per step instead of a bar
                console.print(f"[{time.monotonic() - t0:6.0f}s] {text}", highlight=False)

        yield on_step
        progress.update(task, completed=total, description="done")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=[*matrix.MATRICES, "scale"], default="quick")
    parser.add_argument("--brokers", help="comma-separated: ferrolog,kafka4,kafka3zk")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--only", help="comma-separated workload names to keep")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if any workload failed or a figure is missing (CI)")
    scale_suite.add_arguments(parser)
    args = parser.parse_args(argv)

    signal.signal(signal.SIGTERM, _interrupt)
    if args.mode == "scale":
        return _scale(args)
    names, rounds, warmup = DEFAULTS[args.mode]
    if args.brokers:
        names = args.brokers.split(",")
    rounds = args.rounds or rounds
    workloads = matrix.MATRICES[args.mode]()
    if args.only:
        keep = set(args.only.split(","))
        workloads = [w for w in workloads if w.name in keep]
    if any(n != "ferrolog" for n in names):
        for version in (kafka_dist.KAFKA4, kafka_dist.KAFKA3):
            kafka_dist.fetch(version)  # before the clock starts: Maven is slow
    elif any(w.java for w in workloads):
        kafka_dist.fetch(kafka_dist.KAFKA4)  # the Java tools are the client
    replicated = args.mode == "replicated"
    m = runner.Matrix(workloads, names, rounds, warmup_records=warmup,
                      make=cluster.make if replicated else brokers.make,
                      replication=cluster.SIZE if replicated else 1)

    console = Console(stderr=True)
    started = dt.datetime.now(dt.UTC)
    load_before = _load()
    t0 = time.monotonic()
    interrupted = False
    with _progress(console, m.steps(), t0) as on_step:
        try:
            runner.run(m, on_step)
        except KeyboardInterrupt:
            # Stopped (Ctrl-C or SIGTERM): the brokers are down (finally blocks); what was
            # measured so far is still written, marked as interrupted.
            interrupted = True

    kafkas = [n for n in names if n != "ferrolog"]
    entries = report.aggregate(m.samples, workloads, names)
    rats = report.ratios(entries, kafkas)
    tgts = [t for k in (kafkas or [None]) for t in report.targets(rats, entries, workloads, k)]
    # One start-up target row is enough when several Kafkas are compared.
    seen: set[str] = set()
    tgts = [t for t in tgts if "vs" in t or not (t["target"] in seen or seen.add(t["target"]))]
    doc: dict[str, Any] = {
        "run": {
            "mode": args.mode, "started": started.isoformat(timespec="seconds"),
            "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "wall_s": round(time.monotonic() - t0, 1), "rounds": rounds, "brokers": names,
            "order": [m.order(r) for r in range(rounds)],
            "versions": VERSIONS, "machine": _machine(load_before),
            "rates": m.rates, "rate_basis": m.rate_basis, "warmup_records": warmup,
            "interrupted": interrupted,
            **({"setup": REPLICATED_SETUP} if replicated else {}),
        },
        "workloads": {w.name: w.describe for w in workloads},
        "results": entries,
        "ratios": rats,
        "targets": tgts,
        "samples": m.samples,
    }
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    path = report.write(doc, args.out, stamp, with_plots=not args.no_plots,
                        prefix="replicated-" if replicated else "")
    _print_summary(console, doc)
    console.print(f"results: {path} ({doc['run']['wall_s']} s)")
    if args.check:
        problems = report.problems(doc)
        for p in problems:
            console.print(f"[red]check failed:[/red] {p}")
        return 1 if problems or interrupted else 0
    return 0


def _scale(args: argparse.Namespace) -> int:
    names = args.brokers.split(",") if args.brokers else ["ferrolog", "kafka4"]
    plan = scale_suite.phases(args)
    if any(n != "ferrolog" for n in names) or not args.no_java:
        kafka_dist.fetch(kafka_dist.KAFKA4)  # before the clock starts: Maven is slow
    console = Console(stderr=True)
    started = dt.datetime.now(dt.UTC)
    load_before = _load()
    t0 = time.monotonic()
    samples: list[dict[str, Any]] = []
    interrupted = False
    rounds = args.rounds or 1
    with _progress(console, len(plan) * len(names) * rounds, t0) as on_step:
        try:
            scale_suite.run(plan, names, on_step, samples, rounds)
        except KeyboardInterrupt:  # what was measured so far is written, marked as such
            interrupted = True
    kafka = next((n for n in names if n != "ferrolog"), None)
    doc: dict[str, Any] = {
        "run": {"mode": "scale", "started": started.isoformat(timespec="seconds"),
                "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                "wall_s": round(time.monotonic() - t0, 1), "brokers": names, "kafka": kafka,
                "rounds": rounds,
                "versions": VERSIONS, "machine": _machine(load_before),
                "interrupted": interrupted, "settings": vars(args) | {"out": str(args.out)},
                "phases": scale_suite.describe(plan, args)},
        "rows": scale_report.rows(samples, kafka),
        "samples": samples,
    }
    path = report.write(doc, args.out, started.strftime("%Y%m%dT%H%M%SZ"), with_plots=False,
                        prefix="scale-", render=scale_report.markdown)
    print(scale_report.markdown(doc))
    console.print(f"results: {path} ({doc['run']['wall_s']} s)")
    problems = scale_report.problems(doc)
    for p in problems:
        console.print(f"[red]failed:[/red] {p[:500]}")
    return 1 if args.check and (problems or interrupted) else 0


def _interrupt(_signo: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _print_summary(console: Console, doc: dict[str, Any]) -> None:
    table = Table(title="medians")
    for col in ("workload", "broker", "records/s", "MB/s", "p99 ms", "CPU s/GB", "RSS MB", "ok"):
        table.add_column(col)
    for e in doc["results"]:
        m = e["median"]
        if e["workload"] == "startup":
            table.add_row("startup", e["broker"], "", "", "", "",
                          report._fmt(m.get("rss_after_start_mb")),
                          f"{report._fmt(m.get('start_to_first_ack_s'))} s")
            continue
        table.add_row(e["workload"], e["broker"], report._fmt(m.get("records_s")),
                      report._fmt(m.get("mb_s")), report._fmt(m.get("p99_ms")),
                      report._fmt(m.get("cpu_s_per_gb")), report._fmt(m.get("peak_rss_mb")),
                      f"{e['rounds_ok']}/{e['rounds_ok'] + e['rounds_failed']}")
    console.print(table)
    for t in doc["targets"]:
        console.print(f"target {t['target']} vs {t.get('vs', '-')}: "
                      f"{report._fmt(t.get('ratio', t.get('value')))} (goal {t['goal']}, "
                      f"met: {t['met']})")


if __name__ == "__main__":
    sys.exit(main())
