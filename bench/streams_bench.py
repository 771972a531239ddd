"""Kafka Streams 4.4 word count with each group protocol (classic, and KIP-1071's streams groups,
`group.protocol=streams`), ferrolog against Apache Kafka 4.4 on this machine, one broker at a
time, in one run (issue 31).

    python -m bench.streams_bench [--lines 200000] [--rounds 3] [--protocols classic,streams]
                                  [--guarantees at_least_once,exactly_once_v2]
                                  [--quiet-wait 20] [--logs DIR]
                                  [--out bench/results/streams-latest.md]

Each round starts a fresh broker of each kind in turn (ferrolog first in odd rounds, Kafka first
in even ones). On it: an unmeasured warm-up (a tenth of the lines counted by one app, and a
transaction, so that `__consumer_offsets` and `__transaction_state` exist and a JVM broker is
past its first compilations), then `--lines` lines of five words from a 1,000-word vocabulary
into a topic of 6 partitions (round-robin), then for each guarantee and protocol (their order
rotated each round) one new app: one instance of `harness/java/StreamsWordCountBench.java`
(the tests' word count, timed from inside: it says when the last word reached its store) with
`num.stream.threads=2`, a new application.id and output topic, the commit interval left at its
default (30 s for at_least_once, 100 ms for exactly_once_v2). Measured per app:

- to RUNNING: from KafkaStreams.start() to its first RUNNING state (group join, the initial
  rebalance delay, assignment, internal topics, task creation);
- lines/s: the lines over the time from RUNNING to the last word counted;
- counted: from start() to the last word counted; output: from start() until a read_committed
  reader of the output topic sees every word's final count (the sum of the latest counts equals
  the words written: the commit interval shows here);
- broker CPU s per GB of input lines (the lines' bytes; the broker moves several times more:
  the repartition topic in and out, changelog, output), its process tree's CPU from the app's
  spawn to the last word counted.

Broker settings: `brokers.COMMON` (replication factor 1 for internal topics, the transaction log
`min.isr` 1; Kafka's share coordinator state topic at 1 replica) except the initial rebalance
delays, both at Kafka's default: `group.initial.rebalance.delay.ms` 3000 (classic; COMMON sets 0)
and `group.streams.initial.rebalance.delay.ms` left unset (3000 in both brokers).

Reported: medians over the rounds, ratios ferrolog/Kafka, and what other processes used of the
machine's CPU during the run (the system's busy time less this process tree's). `--quiet-wait M`
first waits, at most M minutes, until the 1-minute load average has stayed below 1.0 for a
minute (a look every 30 s) and says in the results how that went; `--logs DIR` keeps every
broker's and app's log there."""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import string
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition

from bench.harness import brokers, kafka_dist, procstat
from bench.harness.streams_app import WordCountApp, app_command
from tests.groups.streams_tools import Counts, new_topic
from tests.handlers.features_tools import finalized

VOCABULARY, WORDS_PER_LINE, PARTITIONS = 1000, 5, 6
SETTINGS = {"group.initial.rebalance.delay.ms": "3000"}
PROTOCOLS = ("classic", "streams")
GUARANTEES = ("at_least_once", "exactly_once_v2")
# One broker kind's results: per round, per (guarantee, protocol), the figures of one app.
Rounds = list[dict[tuple[str, str], dict[str, Any]]]
# Waiting for a quiet machine: the 1-minute load average below QUIET_LOAD at every look, a
# look every QUIET_STEP_S, for QUIET_S.
QUIET_LOAD, QUIET_STEP_S, QUIET_S = 1.0, 30, 60


def make_lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    vocabulary: set[str] = set()
    while len(vocabulary) < VOCABULARY:
        vocabulary.add("".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9))))
    words = sorted(vocabulary)
    return [" ".join(rng.choices(words, k=WORDS_PER_LINE)) for _ in range(count)]


def fill(bootstrap: str, lines: list[str]) -> str:
    topic = new_topic(bootstrap, PARTITIONS)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "acks": "all"})
    for i, line in enumerate(lines):
        while True:
            try:
                producer.produce(topic, line.encode(), partition=i % PARTITIONS)
                break
            except BufferError:
                producer.poll(0.05)
    assert producer.flush(120) == 0
    return topic


def warm_transactions(bootstrap: str) -> None:
    """One committed transaction with an offset commit in it, into a topic of its own: the
    transaction log and the offsets topic exist before any measured app needs them."""
    topic = new_topic(bootstrap, 1)
    producer = Producer(
        {"bootstrap.servers": bootstrap, "transactional.id": f"warm-{uuid.uuid4().hex[:8]}"}
    )
    producer.init_transactions(60)
    producer.begin_transaction()
    producer.produce(topic, b"warm up", partition=0)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"warm-{uuid.uuid4()}"})
    offsets = [TopicPartition(topic, 0, 0)]
    producer.send_offsets_to_transaction(offsets, consumer.consumer_group_metadata(), 60)
    producer.commit_transaction(60)
    consumer.close()


def count(
    broker: brokers.Broker, source: str, lines: int, words: int, props: list[str], workdir: Path,
    output: bool = True,
) -> dict[str, Any]:  # fmt: skip
    """Runs one app over `source` until every word is counted (and, with `output`, until the
    output topic shows every final count); its figures."""
    sink = new_topic(broker.bootstrap, PARTITIONS)

    def broker_cpu() -> float:
        return sum(procstat.cpu_seconds(p) for p in broker.pids)

    app_id, command = app_command(broker.bootstrap, source, sink, words, props, workdir)
    app = WordCountApp(command, workdir / app_id, broker_cpu)
    cpu_before = broker_cpu()
    spawned = time.monotonic_ns()
    app.start()
    reader = None
    try:
        started = app.wait("STARTED", 120)
        running = app.wait("RUNNING", 300)
        counted = app.wait("COUNTED", 900)
        cpu = app.cpu_at_counted - cpu_before
        result: dict[str, Any] = {
            "launch_s": (started - spawned) / 1e9,
            "running_s": (running - started) / 1e9,
            "counted_s": (counted - started) / 1e9,
            "lines_per_s": lines / ((counted - running) / 1e9),
            "broker_cpu_s": cpu,
            "rebalances": [state for state, _ in app.states].count("REBALANCING"),
            "timeline": " ".join(f"{st}@{(ns - started) / 1e9:.1f}" for st, ns in app.states),
        }
        if output:
            reader = Counts(broker.bootstrap, sink, PARTITIONS)
            reader.wait_until(lambda c: sum(c.values()) == words, 300, "every final count")
            result["output_s"] = (time.monotonic_ns() - started) / 1e9
    finally:
        if reader is not None:
            reader.close()
        app.stop()
    result["peeked"] = app.peeked
    if app.peeked != words:
        print(f"  the app counted {app.peeked} words for {words} (reprocessed)", flush=True)
    return result


def start(kind: str) -> brokers.Broker:
    broker = brokers.make(kind)
    broker.overrides = dict(SETTINGS)
    broker.prepare()
    broker.spawn()
    brokers.wait_port(broker.port, 120, broker.proc)
    # Both format a new cluster with streams.version 1 finalized: wait until it answers so.
    deadline = time.monotonic() + 60
    while True:
        try:
            levels = finalized(broker.bootstrap)[1]
            assert levels["streams.version"][1] >= 1
            print(f"{kind}: streams.version {levels['streams.version'][1]}, transaction.version "
                  f"{levels['transaction.version'][1]}", flush=True)  # fmt: skip
            return broker
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def session(
    kind: str, round_: int, cases: list[tuple[str, str]], lines: list[str], args: argparse.Namespace
) -> dict[tuple[str, str], dict[str, Any]]:
    """One fresh broker of `kind`: the warm-up, the input, then one app per case."""
    words = len(lines) * WORDS_PER_LINE
    input_bytes = sum(len(line) for line in lines)
    broker = start(kind)
    workdir = Path(tempfile.mkdtemp(prefix="streams-bench-"))
    out: dict[tuple[str, str], dict[str, Any]] = {}
    try:
        warm_lines = lines[: max(1, len(lines) // 10)]
        warm_source = fill(broker.bootstrap, warm_lines)
        warm_transactions(broker.bootstrap)
        props = [f"processing.guarantee={cases[0][0]}", f"group.protocol={cases[0][1]}"]
        try:
            count(broker, warm_source, len(warm_lines), len(warm_lines) * WORDS_PER_LINE, props,
                  workdir, output=False)  # fmt: skip
        except Exception as e:
            print(f"round {round_} {kind} warm-up failed: {e}", flush=True)
        source = fill(broker.bootstrap, lines)
        for guarantee, protocol in cases:
            props = [f"processing.guarantee={guarantee}", f"group.protocol={protocol}"]
            try:
                result = count(broker, source, len(lines), words, props, workdir)
                result["cpu_s_per_gb"] = result["broker_cpu_s"] / (input_bytes / 1e9)
            except Exception as e:
                result = {"error": f"{type(e).__name__}: {e}"[:500]}
            out[(guarantee, protocol)] = result
            print(f"round {round_} {kind} {guarantee} {protocol}: {result}", flush=True)
    finally:
        if broker.proc is not None and broker.proc.poll() is not None:
            print(f"{kind} exited early:{broker.exit_report()}", flush=True)
        if args.logs is not None:
            keep = args.logs / f"round{round_}-{kind}"
            keep.mkdir(parents=True, exist_ok=True)
            for name in ("broker.out", "server.log"):
                if (broker.workdir / name).exists():
                    shutil.copy(broker.workdir / name, keep / name)
            for log in workdir.glob("*.log"):
                shutil.copy(log, keep / log.name)
            for log in workdir.glob("*.stderr"):
                shutil.copy(log, keep / log.name)
        broker.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)
    return out


def busy_ticks() -> int:
    """The machine's busy CPU ticks since boot (/proc/stat's `cpu` line less idle, iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields[:8]) - fields[3] - fields[4]


def wait_quiet(minutes: float) -> str:
    """Waits until the 1-minute load average has stayed below QUIET_LOAD for QUIET_S, looking
    every QUIET_STEP_S, for at most `minutes`; what happened, for the report."""
    began = time.monotonic()
    quiet_since: float | None = None
    while True:
        load = os.getloadavg()[0]
        now = time.monotonic()
        print(f"load {load:.2f}", flush=True)
        quiet_since = (quiet_since or now) if load < QUIET_LOAD else None
        if quiet_since is not None and now - quiet_since >= QUIET_S:
            return (
                f"started once the 1-minute load average had stayed below {QUIET_LOAD} for "
                f"{QUIET_S} s (after waiting {(now - began) / 60:.1f} min)"
            )
        if now - began >= minutes * 60:
            return (
                f"the machine did not get quiet (1-minute load average below {QUIET_LOAD} "
                f"for {QUIET_S} s) within {minutes:g} min: run anyway, at load {load:.2f}"
            )
        time.sleep(QUIET_STEP_S)


def run(args: argparse.Namespace) -> tuple[Rounds, Rounds]:
    """Every round's results, ferrolog's and Kafka's: per (guarantee, protocol)."""
    lines = make_lines(args.lines, 31)
    base = [(g, p) for g in args.guarantees for p in args.protocols]
    samples: dict[str, Rounds] = {"ferrolog": [], "kafka4": []}
    for r in range(args.rounds):
        cases = base[r % len(base) :] + base[: r % len(base)]
        order = ("ferrolog", "kafka4") if r % 2 == 0 else ("kafka4", "ferrolog")
        for kind in order:
            samples[kind].append(session(kind, r + 1, cases, lines, args))
    return samples["ferrolog"], samples["kafka4"]


def median(samples: Rounds, case: tuple[str, str],
           key: str) -> float | None:  # fmt: skip
    values = [s[case][key] for s in samples if key in s.get(case, {})]
    return statistics.median(values) if values else None


def _cell(value: float | None, spec: str) -> str:
    return "error" if value is None else format(value, spec)


def _ratio(ours: float | None, theirs: float | None) -> str:
    return "-" if ours is None or not theirs else f"{ours / theirs:.2f}x"


def report(
    ferrolog: Rounds,
    kafka: Rounds,
    args: argparse.Namespace,
    load: str,
) -> str:
    cases = [(g, p) for g in args.guarantees for p in args.protocols]
    mb = sum(len(x) for x in make_lines(args.lines, 31)) / 1e6
    lines = [
        f"# Kafka Streams {kafka_dist.KAFKA4} word count, classic and streams group protocols: "
        f"ferrolog vs Kafka {kafka_dist.KAFKA4}",
        "",
        f"`python -m bench.streams_bench --lines {args.lines} --rounds {args.rounds} "
        f"--protocols {','.join(args.protocols)} --guarantees {','.join(args.guarantees)}"
        f"{f' --quiet-wait {args.quiet_wait:g}' if args.quiet_wait else ''}`, "
        f"{time.strftime('%Y-%m-%d')}, this machine ({os.cpu_count()} cores, shared). "
        f"Medians of {args.rounds} round{'s' if args.rounds != 1 else ''}, a fresh broker of "
        "each kind per round, in turn. "
        f"{args.lines:,} lines ({mb:.1f} MB) of {WORDS_PER_LINE} words from a "
        f"{VOCABULARY:,}-word vocabulary in {PARTITIONS} partitions, counted by one Kafka "
        "Streams instance with 2 stream threads (`bench/harness/java/StreamsWordCountBench.java`"
        "), commit.interval.ms at its default (30 s at_least_once, 100 ms exactly_once_v2). "
        "Initial rebalance delays at Kafka's default on both brokers: "
        "group.initial.rebalance.delay.ms=3000 (classic), "
        "group.streams.initial.rebalance.delay.ms=3000 (streams).",
        "",
        f"Machine load: {load}.",
        "",
        "Lines/s from RUNNING to the last word counted; broker CPU from /proc (process tree), "
        "from the app's spawn to the last word counted, per GB of input lines.",
        "",
        "| guarantee | protocol | ferrolog lines/s | Kafka lines/s | ratio | "
        "ferrolog CPU s/GB | Kafka CPU s/GB | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for case in cases:
        f_rate, k_rate = median(ferrolog, case, "lines_per_s"), median(kafka, case, "lines_per_s")
        f_cpu, k_cpu = median(ferrolog, case, "cpu_s_per_gb"), median(kafka, case, "cpu_s_per_gb")
        lines.append(
            f"| {case[0]} | {case[1]} | {_cell(f_rate, ',.0f')} | {_cell(k_rate, ',.0f')} | "
            f"{_ratio(f_rate, k_rate)} | {_cell(f_cpu, ',.0f')} | {_cell(k_cpu, ',.0f')} | "
            f"{_ratio(f_cpu, k_cpu)} |"
        )
    lines += [
        "",
        "Seconds from KafkaStreams.start(): to RUNNING (the first assignment, the initial "
        "rebalance delay included), to the last word counted, and until a read_committed "
        "reader of the output sees every final count (at_least_once: the next commit).",
        "",
        "| guarantee | protocol | ferrolog to RUNNING | Kafka to RUNNING | ratio | "
        "ferrolog counted | Kafka counted | ratio | ferrolog output | Kafka output |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for case in cases:
        cells = [f"| {case[0]} | {case[1]} "]
        for key in ("running_s", "counted_s", "output_s"):
            ours, theirs = median(ferrolog, case, key), median(kafka, case, key)
            cells.append(f"| {_cell(ours, '.1f')} | {_cell(theirs, '.1f')} ")
            if key != "output_s":
                cells.append(f"| {_ratio(ours, theirs)} ")
        lines.append("".join(cells) + "|")
    lines += ["", "Every round (ferrolog / Kafka): lines/s; to RUNNING s; REBALANCING states.", ""]
    for case in cases:
        parts = []
        for name, samples in (("ferrolog", ferrolog), ("Kafka", kafka)):
            runs = [s.get(case, {}) for s in samples]
            parts.append(
                f"{name} "
                + ", ".join(
                    r["error"][:80]
                    if "error" in r
                    else f"{r['lines_per_s']:,.0f}; {r['running_s']:.1f}; {r['rebalances']}"
                    for r in runs
                )
            )
        lines.append(f"- {case[0]} {case[1]}: {' / '.join(parts)}")
    words = args.lines * WORDS_PER_LINE
    again = [
        f"{name} {case[0]} {case[1]} round {i + 1}: {r['peeked']:,}"
        for name, samples in (("ferrolog", ferrolog), ("Kafka", kafka))
        for case in cases
        for i, r in enumerate(s.get(case, {}) for s in samples)
        if "peeked" in r and r["peeked"] != words
    ]
    if again:
        lines += ["", f"Words the app counted where not the {words:,} written (at_least_once may "
                  f"count again after a task moves): {'; '.join(again)}."]  # fmt: skip
    return "\n".join(lines) + "\n"


def _names(allowed: tuple[str, ...]) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        names = text.split(",")
        if not set(names) <= set(allowed):
            raise argparse.ArgumentTypeError(f"expected some of {','.join(allowed)}")
        return names

    return parse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--protocols", type=_names(PROTOCOLS), default=list(PROTOCOLS))
    parser.add_argument("--guarantees", type=_names(GUARANTEES), default=list(GUARANTEES))
    parser.add_argument("--quiet-wait", type=float, default=0.0,
                        help="minutes to wait at most for a quiet machine first")  # fmt: skip
    parser.add_argument("--logs", type=Path, default=None,
                        help="keep each broker's and app's log here")  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("bench/results/streams-latest.md"))
    args = parser.parse_args(argv)
    quiet = wait_quiet(args.quiet_wait) if args.quiet_wait else "no wait for a quiet machine"
    busy0 = busy_ticks()
    own0 = procstat.cpu_seconds(os.getpid())
    began = time.monotonic()
    load_before = os.getloadavg()
    ferrolog, kafka = run(args)
    busy1 = busy_ticks()
    own = procstat.cpu_seconds(os.getpid()) - own0
    tick = os.sysconf("SC_CLK_TCK")
    others = max(0.0, (busy1 - busy0) / tick - own)
    wall = time.monotonic() - began
    load = (
        f"{quiet}; 1-minute load average {load_before[0]:.2f} at the start, "
        f"{os.getloadavg()[0]:.2f} at the end; other processes (the system's busy CPU less "
        f"this run's process tree) used {others / wall:.2f} of the {os.cpu_count()} cores on "
        f"average over the {wall / 60:.0f} min run"
    )
    text = report(ferrolog, kafka, args, load)
    args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
