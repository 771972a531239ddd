"""What client quotas do to clients (issue 13), on a ferrolog broker (a second one for the
control case, and Apache Kafka 4 alongside with `--with-kafka`):

- isolation: a steady producer (librdkafka, 1,000 records/s of 100 B, acks=1, its own client
  id) measures its p99 latency alone, then while Kafka's ProducerPerformance floods the broker
  from another process without a quota, then with `producer_byte_rate=1048576` for the flood's
  client id, then (the control) with that flood held the same way but sent to a second
  broker: what is left is the flood client's share of the machine's cores, not the broker's.
  Then the same with the cores split as separate client machines would split them: the broker
  and the steady producer on the first core, the flood client on the others (the "pinned"
  layout). `--with-kafka` measures both layouts (without the control) on Apache Kafka 4 too;
- changes: ProducerPerformance runs flat out while its client id's quota is set to 1 MiB/s,
  raised to 4 MiB/s, and removed, each change through AlterClientQuotas while it runs; the
  broker's bytes-in counter (/metrics) gives the rate every quarter second;
- the Java producer held: ProducerPerformance sends 25 s worth of 1 MiB/s flat out under
  that quota; the broker's bytes in give its rate over seconds 5 to 20, and it reports its own
  rate and `produce-throttle-time-avg`;
- the Java consumer held: ConsumerPerformance reads a topic of 40 MiB from the start, flat
  out, under `consumer_byte_rate=1048576` for its client id until it has read 25 s worth of
  1 MiB/s; the broker's bytes out give its rate over seconds 5 to 20, and it reports its own
  rate and `fetch-throttle-time-avg`.

The broker measures rates over `quota.window.num=3` windows of 1 s, as the quota tests do
(tests/quotas/test_byte_rates.py says why). `--phases` runs some of the phases only
(isolation, changes, java-producer, java-consumer; `--with-kafka` concerns isolation and
java-consumer).

    python -m bench.quota_bench [--phase-seconds 10] [--rounds 3] [--with-kafka]
        [--phases all|PHASE,...] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import Producer

from bench.harness import brokers, kafka_dist, workloads
from bench.harness.quotas import FLOOD, MIB, KafkaWindows, Scraped, flood, set_quota
from bench.quota_java import DRAIN_RECORD, HELD_S, HELD_TAIL_S, java_consumer_held, java_held

STEADY_RATE = 1000  # records/s
STEADY = "steady"
PHASES = ("isolation", "changes", "java-producer", "java-consumer")


@dataclass(frozen=True)
class Layout:
    """Which cores the broker and the steady producer run on, and which the flood client:
    None leaves both to the scheduler."""

    name: str
    cores: tuple[set[int], set[int]] | None


SHARED = Layout("shared", None)


def pinned() -> Layout:
    """The first core for the broker and the steady producer, the rest for the flood client.

    On this 2-core machine the flood client's own CPU, not the broker, is what the steady
    producer's p99 measures in the shared layout: measured on 27 Nov, the held flood cost it as
    much when sent to another broker (the control), and as much as the same JVM sending 1 MiB/s
    paced with no quota at all; at nice 19 the same held client cost it a third as much. The
    held client sends its quota in bursts (about `quota.window.num - 1` windows at once) and
    uses 0.1-0.25 of a core on average. Split this way, the only path from the flood to the
    steady producer is the broker, which is what a quota isolates; the steady producer still
    shares its core with the broker, so the broker's work for the flood counts twice."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        raise SystemExit("the pinned layout needs two cores")
    return Layout("pinned", ({cores[0]}, set(cores[1:])))


def pin_process(pid: int, cores: set[int]) -> None:
    """Every thread of `pid` to `cores`; the threads it starts later inherit them."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        with suppress(ProcessLookupError):  # a thread that ended meanwhile
            os.sched_setaffinity(int(task.name), cores)


@contextmanager
def pinned_thread(cores: set[int] | None) -> Iterator[None]:
    """This thread, and the client threads it starts meanwhile, on `cores`."""
    if cores is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cores)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def steady_p99(bootstrap: str, topic: str, seconds: float) -> float:
    """p99 delivery latency in ms of `STEADY_RATE` records/s, the first second left out."""
    producer = Producer(
        {"bootstrap.servers": bootstrap, "client.id": STEADY, "acks": "1", "linger.ms": 0}
    )
    latencies: list[float] = []
    start = time.perf_counter()

    def delivered(sent: float) -> object:
        def on_delivery(err: object, _msg: object) -> None:
            if err is None and sent - start > 1.0:
                latencies.append((time.perf_counter() - sent) * 1000)

        return on_delivery

    value = os.urandom(100)
    for i in range(int(seconds * STEADY_RATE)):
        due = start + i / STEADY_RATE
        while (now := time.perf_counter()) < due:
            producer.poll(max(0.0, min(due - now, 0.001)))
        producer.produce(topic, value, on_delivery=delivered(time.perf_counter()))
        producer.poll(0)
    producer.flush(60)
    return statistics.quantiles(latencies, n=100)[98]


ALONE, UNHELD, HELD = "alone", "flood, no quota", "flood held to 1 MiB/s"
ELSEWHERE = "flood held to 1 MiB/s, on another broker"


def isolation(
    broker: brokers.Broker,
    topic: str,
    seconds: float,
    rounds: int,
    layout: Layout = SHARED,
    elsewhere: brokers.Broker | None = None,
) -> dict[str, list[float]]:
    """Each round measures the cases in turn, so a drift in the machine's load is shared;
    one run of each varies several-fold on this machine. With `elsewhere`, a control: the
    held flood goes to that other broker (same topic, same quota), so what it still does to
    the steady producer's p99 is the flood client's share of this 2-core machine, which no
    broker can keep from the steady producer."""
    near, far = layout.cores or (None, None)
    if near is not None:
        pin_process(broker.pid, near)
    out: dict[str, list[float]] = {ALONE: [], UNHELD: [], HELD: []}
    cases: list[tuple[str, brokers.Broker, float | None]] = [
        (UNHELD, broker, None),
        (HELD, broker, float(MIB)),
    ]
    if elsewhere is not None:
        out[ELSEWHERE] = []
        cases.append((ELSEWHERE, elsewhere, float(MIB)))
    for _ in range(rounds):
        with pinned_thread(near):
            out[ALONE].append(steady_p99(broker.bootstrap, topic, seconds))
        for name, target, quota in cases:
            set_quota(target.bootstrap, FLOOD, quota)
            proc = flood(target.bootstrap, topic, seconds + 30, far)
            time.sleep(3)  # the JVM starts and the flood reaches its pace
            try:
                with pinned_thread(near):
                    out[name].append(steady_p99(broker.bootstrap, topic, seconds))
            finally:
                proc.kill()
                proc.wait()
            # An unheld flood leaves a gigabyte or more of dirty pages; their writeback would
            # stall the appends of whatever phase comes next.
            os.sync()
    for _, target, _ in cases:
        set_quota(target.bootstrap, FLOOD, None)
    if near is not None:
        pin_process(broker.pid, os.sched_getaffinity(0))
    return out


@dataclass
class Timeline:
    changes: list[tuple[float, str]]  # (seconds from start, what)
    samples: list[tuple[float, float]]  # (seconds from start, bytes/s over the last interval)


def changes(broker: Scraped, topic: str, phase: float) -> Timeline:
    plan = [(phase, float(MIB), "1 MiB/s"), (2 * phase, 4.0 * MIB, "4 MiB/s"),
            (3 * phase, None, "removed")]  # fmt: skip
    proc = flood(broker.bootstrap, topic, 4 * phase + 30)
    samples: list[tuple[float, float]] = []
    done: list[tuple[float, str]] = []
    stop = threading.Event()
    while broker.bytes_in(topic) == 0:  # the JVM starts
        time.sleep(0.05)
    start = time.monotonic()

    def sample() -> None:
        last_t, last_b = start, broker.bytes_in(topic)
        while not stop.wait(0.25):
            now, b = time.monotonic(), broker.bytes_in(topic)
            samples.append((now - start, (b - last_b) / (now - last_t)))
            last_t, last_b = now, b

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    for at, rate, what in plan:
        time.sleep(max(0.0, start + at - time.monotonic()))
        set_quota(broker.bootstrap, FLOOD, rate)
        done.append((time.monotonic() - start, what))
    time.sleep(max(0.0, start + 4 * phase - time.monotonic()))
    stop.set()
    sampler.join()
    proc.kill()
    proc.wait()
    return Timeline(done, samples)


def phase_rate(t: Timeline, begin: float, end: float) -> float:
    """The mean rate from `begin` to `end`: a throttled client sends in bursts (about
    `quota.window.num - 1` windows of quota at once) between silences, so medians of quarter
    seconds say little."""
    rates = [r for s, r in t.samples if begin <= s < end]
    return statistics.fmean(rates) if rates else 0.0


def p99_table(title: str, cases: dict[str, list[float]]) -> list[str]:
    alone = statistics.median(cases[ALONE])
    return [
        "",
        f"### {title}",
        "",
        "| while | median p99 ms | vs alone | each round's p99 ms |",
        "|---|---|---|---|",
        *(
            f"| {k} | {statistics.median(v):.1f} | {statistics.median(v) / alone:.1f}x |"
            f" {', '.join(f'{x:.1f}' for x in v)} |"
            for k, v in cases.items()
        ),
    ]


def phases(value: str) -> tuple[str, ...]:
    """`--phases`: `all`, or some of PHASES, comma-separated."""
    if value == "all":
        return PHASES
    chosen = tuple(p.strip() for p in value.split(",") if p.strip())
    unknown = [p for p in chosen if p not in PHASES]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"phases are {', '.join(PHASES)} or all")
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phase-seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("bench/results/quota-latest.md"))
    parser.add_argument(
        "--with-kafka",
        action="store_true",
        help="also measure isolation and the Java consumer on Apache Kafka 4",
    )
    parser.add_argument(
        "--phases",
        type=phases,
        default=PHASES,
        metavar="all|PHASE,...",
        help=f"the phases to run, of {', '.join(PHASES)} (default: all)",
    )
    args = parser.parse_args()
    run = set(args.phases)
    kafka_dist.fetch(kafka_dist.KAFKA4)
    # Only the isolation phase pins cores (and needs two).
    layouts = [SHARED, pinned()] if "isolation" in run else []
    kafka_p99: dict[str, dict[str, list[float]]] = {}
    kafka_drained: dict[str, float] | None = None
    if args.with_kafka and {"isolation", "java-consumer"} & run:
        kafka = KafkaWindows("kafka4", "kraft", kafka_dist.KAFKA4)
        try:
            kafka.prepare()
            kafka.spawn()
            brokers.wait_port(kafka.port, 120, kafka.proc)
            workloads.create_topic(kafka.bootstrap, "q", 6)
            for layout in layouts:
                kafka_p99[layout.name] = isolation(
                    kafka, "q", args.phase_seconds, args.rounds, layout
                )
            if "java-consumer" in run:
                kafka_drained = java_consumer_held(kafka, "drained")
        finally:
            kafka.stop()
            kafka.cleanup()
    broker = Scraped("ferrolog", "ferrolog", "native")
    p99: dict[str, dict[str, list[float]]] = {}
    timeline: Timeline | None = None
    held: dict[str, float] | None = None
    drained: dict[str, float] | None = None
    try:
        broker.spawn()
        brokers.wait_port(broker.port, 120, broker.proc)
        workloads.create_topic(broker.bootstrap, "q", 6)
        if "isolation" in run:
            other = Scraped("ferrolog", "ferrolog", "native")  # the isolation phase's control
            try:
                other.spawn()
                brokers.wait_port(other.port, 120, other.proc)
                workloads.create_topic(other.bootstrap, "q", 6)
                p99[SHARED.name] = isolation(
                    broker, "q", args.phase_seconds, args.rounds, SHARED, elsewhere=other
                )
            finally:
                other.cleanup()
            for layout in layouts[1:]:
                p99[layout.name] = isolation(broker, "q", args.phase_seconds, args.rounds, layout)
        if "changes" in run:
            timeline = changes(broker, "q", args.phase_seconds)
        if "java-producer" in run:
            held = java_held(broker, "q")
        if "java-consumer" in run:
            drained = java_consumer_held(broker, "drained")
    finally:
        broker.cleanup()

    phase = args.phase_seconds
    chosen = "" if args.phases == PHASES else f" --phases {','.join(args.phases)}"
    chosen += " --with-kafka" if args.with_kafka else ""
    lines = [
        "# Client quotas (issue 13)",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; `python -m bench.quota_bench"
        f" --phase-seconds {phase:g} --rounds {args.rounds}{chosen}`; one ferrolog broker, one"
        " topic of 6 partitions.",
    ]
    if "isolation" in run:
        lines += [
            "",
            f"## Isolation: a steady producer's p99 ({STEADY_RATE} records/s of 100 B, acks=1)",
            "",
            "Layouts: shared leaves every process to the scheduler; pinned puts the broker and"
            " the steady producer on the first core and the flood client on the other, as"
            " separate client machines would (`pinned()` says why).",
            *(
                line
                for name, kind in (
                    ("ferrolog", p99),
                    (f"Apache Kafka {kafka_dist.KAFKA4}", kafka_p99),
                )
                for layout, cases in kind.items()
                for line in p99_table(f"{name}, {layout} layout", cases)
            ),
        ]
    if timeline is not None:
        lines += [
            "",
            "## Quota changes while ProducerPerformance runs flat out",
            "",
            "| phase | mean MiB/s over its last half |",
            "|---|---|",
            f"| no quota | {phase_rate(timeline, phase / 2, phase) / MIB:.2f} |",
            *(
                f"| {what} (at {at:.1f} s) | "
                f"{phase_rate(timeline, at + phase / 2, at + phase) / MIB:.2f} |"
                for at, what in timeline.changes
            ),
            "",
            "Rate every 0.25 s (MiB/s): "
            + ", ".join(f"{s:.2f}s {r / MIB:.2f}" for s, r in timeline.samples),
        ]
    if held is not None:
        lines += [
            "",
            "## ProducerPerformance held to 1 MiB/s (100 B records, flat out)",
            "",
            f"The broker took in {held['tail_bytes/s'] / MIB:.3f} MiB/s of its batches over"
            f" seconds {HELD_S - HELD_TAIL_S:g} to {HELD_S:g} of the run (the quota also counts"
            f" request headers). Over its whole run of {held['seconds']:.1f} s it reported"
            f" {held['records/s']:,.0f} records/s ({held['records/s'] * 100 / MIB:.2f} MiB/s of"
            f" values) and a `produce-throttle-time-avg` of {held['throttle_avg_ms']:.1f} ms.",
        ]
    if drained is not None:
        held_by = {"ferrolog": drained}
        if kafka_drained is not None:
            held_by[f"Apache Kafka {kafka_dist.KAFKA4}"] = kafka_drained
        lines += [
            "",
            f"## ConsumerPerformance held to 1 MiB/s ({DRAIN_RECORD} B records, from the start"
            " of 40 MiB, flat out, up to 64 KiB a partition a fetch)",
            "",
            f"The client's MiB/s is what it read over its whole run (its group join left out);"
            f" the broker's is its bytes out over seconds {HELD_S - HELD_TAIL_S:g} to"
            f" {HELD_S:g} of the reading (ferrolog's /metrics; a fetch over the quota is"
            " answered empty).",
            "",
            "| broker | client MiB/s | broker MiB/s | records | seconds"
            " | fetch-throttle-time-avg ms | fetch-throttle-time-max ms |",
            "|---|---|---|---|---|---|---|",
        ]
        for name, d in held_by.items():
            client = d["records"] * DRAIN_RECORD / d["seconds"] / MIB
            lines.append(
                f"| {name} | {client:.3f} | {d['tail_bytes/s'] / MIB:.3f}"
                f" | {d['records']:,.0f} | {d['seconds']:.1f} | {d['throttle_avg_ms']:.1f}"
                f" | {d['throttle_max_ms']:.0f} |"
            )
    text = "\n".join([*lines, ""])
    print(text)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
