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
import re
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from confluent_kafka import Producer
from ferrolog.connection import Connection
from prometheus_client.parser import text_string_to_metric_families

from bench.harness import brokers, kafka_dist, workloads

ALTER_CLIENT_QUOTAS = 49
MIB = 1 << 20
STEADY_RATE = 1000  # records/s
FLOOD, STEADY = "flood", "steady"
DRAIN = "drain"  # the Java consumer's client id
PHASES = ("isolation", "changes", "java-producer", "java-consumer")


@dataclass
class Scraped(brokers.Ferrolog):
    metrics_port: int = field(default_factory=brokers.free_port)

    def command(self) -> list[str]:
        overrides = {
            "metrics.listener": f"http://127.0.0.1:{self.metrics_port}",
            "quota.window.num": "3",
            "quota.window.size.seconds": "1",
        }
        return [
            *super().command(),
            *(a for k, v in overrides.items() for a in ("--override", f"{k}={v}")),
        ]

    def bytes_in(self, topic: str) -> float:
        return topic_bytes_in(f"http://127.0.0.1:{self.metrics_port}", topic)

    def bytes_out(self, topic: str) -> float:
        return topic_bytes_out(f"http://127.0.0.1:{self.metrics_port}", topic)


class KafkaWindows(brokers.KafkaKRaft):
    """Apache Kafka measuring quotas over the same windows as `Scraped`, for the isolation
    comparison."""

    def prepare(self) -> None:
        super().prepare()
        with (self.workdir / "server.properties").open("a") as props:
            props.write("quota.window.num=3\nquota.window.size.seconds=1\n")


def topic_counter(metrics_url: str, name: str, topic: str) -> float:
    """The broker's per-topic counter `name` for `topic` so far, from its /metrics at
    `metrics_url`."""
    with urllib.request.urlopen(f"{metrics_url}/metrics", timeout=10) as response:
        text = response.read().decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels.get("topic") == topic:
                return float(sample.value)
    return 0.0


def topic_bytes_in(metrics_url: str, topic: str) -> float:
    """The broker's bytes in to `topic` so far (Kafka's BytesInPerSec)."""
    return topic_counter(metrics_url, "kafka_server_brokertopicmetrics_bytesin_total", topic)


def topic_bytes_out(metrics_url: str, topic: str) -> float:
    """The broker's record bytes sent to consumers of `topic` so far (BytesOutPerSec; what
    followers fetch is not counted)."""
    return topic_counter(metrics_url, "kafka_server_brokertopicmetrics_bytesout_total", topic)


def set_quota(
    bootstrap: str, client_id: str, rate: float | None, key: str = "producer_byte_rate"
) -> None:
    """AlterClientQuotas for `client_id`'s `key` (a byte rate); None removes it."""
    host, _, port = bootstrap.rpartition(":")
    conn = Connection(host, int(port), 10, "quota-bench")
    try:
        body = {
            "entries": [
                {
                    "entity": [{"entity_type": "client-id", "entity_name": client_id}],
                    "ops": [{"key": key, "value": rate or 0.0, "remove": rate is None}],
                }
            ],
            "validate_only": False,
        }
        (entry,) = conn.request(ALTER_CLIENT_QUOTAS, 1, body)["entries"]
        if entry["error_code"] != 0:
            raise RuntimeError(f"AlterClientQuotas: {entry}")
    finally:
        conn.close()


def perf_args(bootstrap: str, topic: str, records: int) -> list[str]:
    """Kafka's ProducerPerformance at full speed, as client id `flood`."""
    return [
        "--topic", topic, "--num-records", str(records), "--record-size", "100",
        "--throughput", "-1", "--command-property", f"bootstrap.servers={bootstrap}", "acks=1",
        f"client.id={FLOOD}",
    ]  # fmt: skip


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


def flood(
    bootstrap: str, topic: str, seconds: float, cores: set[int] | None = None
) -> subprocess.Popen[str]:
    """ProducerPerformance for at least `seconds` (more records than it sends in that time),
    on `cores` if given."""
    cmd = workloads._java("ProducerPerformance", *perf_args(bootstrap, topic, int(seconds * 1e6)))
    return subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=None if cores is None else partial(os.sched_setaffinity, 0, cores),
    )


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


THROTTLE_AVG = re.compile(r"produce-throttle-time-avg:\{client-id=flood\}\s*:\s*([\d.]+)")
HELD_S, HELD_TAIL_S = 20.0, 15.0


def java_held(broker: Scraped, topic: str) -> dict[str, float]:
    """ProducerPerformance flat out under 1 MiB/s of quota for longer than `HELD_S`: the rate
    the broker took in over the last `HELD_TAIL_S` of its first `HELD_S` (its bytes in, the
    batches the quota holds, less the request headers it also counts), and the client's own
    figures for its whole run."""
    set_quota(broker.bootstrap, FLOOD, float(MIB))
    records = int((HELD_S + 5) * MIB / 100)
    cmd = workloads._java("ProducerPerformance", *perf_args(broker.bootstrap, topic, records))
    before = broker.bytes_in(topic)
    tail: list[float] = []

    def measure() -> None:
        while broker.bytes_in(topic) == before:  # the JVM starts
            time.sleep(0.05)
        start = time.monotonic()
        time.sleep(HELD_S - HELD_TAIL_S)
        begin = broker.bytes_in(topic)
        time.sleep(max(0.0, start + HELD_S - time.monotonic()))
        tail.append((broker.bytes_in(topic) - begin) / HELD_TAIL_S)

    meter = threading.Thread(target=measure, daemon=True)
    meter.start()
    out = workloads._run([*cmd, "--print-metrics"])
    meter.join()
    set_quota(broker.bootstrap, FLOOD, None)
    result = workloads.parse_producer_performance(out)
    throttle = THROTTLE_AVG.findall(out)
    return {
        "records/s": result["records"] / result["seconds"],
        "seconds": result["seconds"],
        "tail_bytes/s": tail[0] if tail else float("nan"),
        "throttle_avg_ms": float(throttle[-1]) if throttle else float("nan"),
    }


FETCH_THROTTLE = re.compile(
    rf"fetch-throttle-time-(avg|max):\{{client-id={DRAIN}\}}\s*:\s*([\d.]+|NaN)"
)
DRAINED_BYTES = 40 * MIB  # the topic the consumer reads: 40 s at its quota
DRAIN_RECORD = 1000  # bytes


def java_consumer_held(broker: brokers.Broker, topic: str) -> dict[str, float]:
    """ConsumerPerformance (64 KiB a partition a fetch) reading `topic`, filled first with
    DRAINED_BYTES, from the start under 1 MiB/s of consumer_byte_rate until it has read
    `HELD_S` + 5 s of it: the rate the broker sent over the last `HELD_TAIL_S` of its first
    `HELD_S` (its bytes out, the record batches the quota meters), and the client's own
    figures for its whole run. A broker without /metrics here (Kafka) gives the client's
    figures only."""
    workloads.create_topic(broker.bootstrap, topic, 6)
    workloads._run(
        workloads._java(
            "ProducerPerformance", "--topic", topic,
            "--num-records", str(DRAINED_BYTES // DRAIN_RECORD),
            "--record-size", str(DRAIN_RECORD), "--throughput", "-1",
            "--command-property", f"bootstrap.servers={broker.bootstrap}", "acks=1",
            "client.id=fill",
        )
    )  # fmt: skip
    # The written pages out of the way of the reads, as between the isolation rounds.
    os.sync()
    set_quota(broker.bootstrap, DRAIN, float(MIB), "consumer_byte_rate")
    records = int((HELD_S + 5) * MIB / DRAIN_RECORD)
    tail: list[float] = []
    done = threading.Event()

    def measure(scraped: Scraped) -> None:
        before = scraped.bytes_out(topic)
        while scraped.bytes_out(topic) == before:  # the JVM starts and joins its group
            if done.wait(0.05):
                return
        start = time.monotonic()
        time.sleep(HELD_S - HELD_TAIL_S)
        begin = scraped.bytes_out(topic)
        time.sleep(max(0.0, start + HELD_S - time.monotonic()))
        tail.append((scraped.bytes_out(topic) - begin) / HELD_TAIL_S)

    meter = None
    if isinstance(broker, Scraped):
        meter = threading.Thread(target=measure, args=(broker,), daemon=True)
        meter.start()
    # ConsumerPerformance takes its client id from a consumer config file only. 64 KiB a
    # partition, as tests/quotas/test_byte_rates.py reads, keeps each response small beside
    # the quota (with 1 MiB a partition the broker's rate over the tail swung more).
    with tempfile.NamedTemporaryFile("w", suffix=".properties") as config:
        config.write(f"client.id={DRAIN}\nmax.partition.fetch.bytes=65536\n")
        config.flush()
        cmd = workloads._java(
            "ConsumerPerformance", "--bootstrap-server", broker.bootstrap, "--topic", topic,
            "--num-records", str(records), "--timeout", "60000", "--command-config", config.name,
            "--print-metrics",
        )  # fmt: skip
        try:
            out = workloads._run(cmd)
        finally:
            done.set()
    if meter is not None:
        meter.join()
    set_quota(broker.bootstrap, DRAIN, None, "consumer_byte_rate")
    result = workloads.parse_consumer_performance(out)
    throttle = {kind: float(value) for kind, value in FETCH_THROTTLE.findall(out)}
    return {
        "records": result["records"],
        "seconds": result["seconds"],
        "rebalance_ms": result["rebalance_ms"],
        "tail_bytes/s": tail[0] if tail else float("nan"),
        "throttle_avg_ms": throttle.get("avg", float("nan")),
        "throttle_max_ms": throttle.get("max", float("nan")),
    }


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
