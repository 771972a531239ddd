"""The workloads: what each one drives, with which client, and how its output is read.

Every workload runs against one live broker and returns the client's figures; the caller
adds the broker's cost (CPU, peak RSS) measured over the same window. The Java tools are
always Kafka 4.x's own (`kafka-tools`), whichever broker is under test, so both sides see
the same client."""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic

from bench.harness import kafka_dist

TOOLS = "org.apache.kafka.tools."
CLIENT_JVM = ["-Xmx512M", "-XX:+UseG1GC", "-Djava.awt.headless=true"]
TIMEOUT = 240.0
# The drivers run as `python -m bench.harness...`: from the repository root, wherever the
# harness was started.
REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Workload:
    name: str
    # java-produce, java-consume, java-e2e, rd-produce, rd-consume, rd-e2e, kcat-consume
    tool: str
    size: int = 1024
    acks: str = "1"
    partitions: int = 1
    count: int = 0  # records (max-throughput and consume workloads)
    source: str | None = None  # consume workloads read the topic this workload wrote
    rate_of: str | None = None  # fixed-rate workloads run at half of Kafka's max of this one
    seconds: float = 10.0  # fixed-rate workloads: how long
    # rd-consume, kcat-consume: librdkafka settings (KEY=VALUE) over the client's own
    client: tuple[str, ...] = ()

    @property
    def java(self) -> bool:
        return self.tool.startswith("java")

    @property
    def describe(self) -> str:
        what = {"java-produce": "ProducerPerformance", "java-consume": "ConsumerPerformance",
                "java-e2e": "EndToEndLatency", "rd-produce": "librdkafka producer",
                "rd-consume": "librdkafka consumer", "rd-e2e": "librdkafka e2e latency",
                "kcat-consume": "kcat, one process"}
        mode = "fixed rate" if self.rate_of else ("from start" if self.source else "max")
        return (f"{what[self.tool]}, {self.size} B, acks={self.acks}, "
                f"{self.partitions} partition(s), {mode}")


def create_topic(bootstrap: str, topic: str, partitions: int, replication: int = 1) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, replication)])[topic].result(60)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # leaders elected before the clients arrive
        meta = admin.list_topics(topic, timeout=10).topics.get(topic)
        if meta is not None and meta.error is None and len(meta.partitions) == partitions \
                and all(p.leader >= 0 and len(p.isrs) >= replication
                        for p in meta.partitions.values()):
            return
        time.sleep(0.05)
    raise RuntimeError(f"topic {topic} has no leaders after 60s")


def _run(cmd: list[str], timeout: float = TIMEOUT) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False,
                          cwd=REPO)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-6:])
        raise RuntimeError(f"{cmd[0]} exited {proc.returncode}: {tail}")
    return proc.stdout


def _java(main: str, *args: str) -> list[str]:
    return ["java", *CLIENT_JVM, "-cp", kafka_dist.classpath(kafka_dist.KAFKA4),
            TOOLS + main, *args]


# Fixed-rate ProducerPerformance runs this long at the same rate, in the same JVM, before the
# measured run (java/WarmProducerPerformance.java says why).
WARMUP_SECONDS = 3.0
WARM_PRODUCER = Path(__file__).resolve().parent / "java" / "WarmProducerPerformance.java"


_PERF = re.compile(
    r"(\d+) records sent, ([\d.]+) records/sec \([\d.]+ MB/sec\), ([\d.]+) ms avg latency, "
    r"([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99.9th")


# Spreads records over every partition in turn: the default (sticky) partitioner fills one
# partition's batch after the other and would leave many of thousands of partitions unwritten.
ROUND_ROBIN = "partitioner.class=org.apache.kafka.clients.producer.RoundRobinPartitioner"


def java_produce(w: Workload, bootstrap: str, topic: str, rate: float | None,
                 extra_props: tuple[str, ...] = ()) -> dict[str, Any]:
    # Client defaults (linger.ms=5) in latency runs too: half the maximum rate is then the
    # same kind of load as the maximum, only less of it.
    props = [f"bootstrap.servers={bootstrap}", f"acks={w.acks}", *extra_props]

    def args(count: int) -> list[str]:
        return ["--topic", topic, "--num-records", str(count), "--record-size", str(w.size),
                "--throughput", str(int(rate or -1)), "--command-property", *props]

    if rate is None:
        out = _run(_java("ProducerPerformance", *args(w.count)))
        warmup = 0
    else:
        warmup = int(rate * WARMUP_SECONDS)
        out = _run(["java", *CLIENT_JVM, "-cp", kafka_dist.classpath(kafka_dist.KAFKA4),
                    str(WARM_PRODUCER), *args(warmup), "--", *args(int(rate * w.seconds))])
    res = parse_producer_performance(out)  # the last summary: the measured run's
    # The broker's CPU is measured over the warm-up too, so its bytes count as well.
    return {**res, "bytes_in": (res["records"] + warmup) * w.size}


def parse_producer_performance(out: str) -> dict[str, Any]:
    found = list(_PERF.finditer(out))  # the last summary line is the whole run's
    if not found:
        raise RuntimeError(f"no ProducerPerformance summary in: {out[-300:]}")
    m = found[-1]
    records, rps = int(m[1]), float(m[2])
    return {"records": records, "seconds": records / rps if rps else float("nan"),
            "p50_ms": float(m[5]), "p99_ms": float(m[7]), "p999_ms": float(m[8])}


def java_consume(w: Workload, bootstrap: str, topic: str, count: int) -> dict[str, Any]:
    # The client's own CPU (its JVM's start and group join included), beside the broker's:
    # on two cores, a client that keeps both busy sets the pace whatever the broker.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = _run(_java("ConsumerPerformance", "--bootstrap-server", bootstrap, "--topic", topic,
                     "--num-records", str(count), "--timeout", "60000"))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = parse_consumer_performance(out)
    if res["records"] < count:
        raise RuntimeError(f"ConsumerPerformance read {res['records']} of {count} records")
    client_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {**res, "bytes_out": res["records"] * w.size, "client_cpu_s": client_cpu,
            "client_cores": client_cpu / wall if wall else float("nan")}


def parse_consumer_performance(out: str) -> dict[str, Any]:
    # start.time, end.time, MB, MB.sec, nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, ...
    rows = [line.split(", ") for line in out.splitlines()
            if line.count(", ") >= 9 and not line.startswith("start.time")]
    if not rows:
        raise RuntimeError(f"no ConsumerPerformance line in: {out[-300:]}")
    row = rows[-1]
    # fetch time excludes the group join (rebalance.time.ms): the data path is measured.
    return {"records": int(row[4]), "seconds": float(row[7]) / 1000,
            "rebalance_ms": float(row[6])}


def java_e2e(w: Workload, bootstrap: str, topic: str) -> dict[str, Any]:
    out = _run(_java("EndToEndLatency", bootstrap, topic, str(w.count), w.acks, str(w.size)))
    res = parse_end_to_end_latency(out, w.count)
    return {**res, "bytes_in": w.count * w.size, "bytes_out": w.count * w.size}


def parse_end_to_end_latency(out: str, count: int) -> dict[str, Any]:
    avg = re.search(r"Avg latency: ([\d.]+) ms", out)
    pct = re.search(r"50th = (\d+), 99th = (\d+), 99.9th = (\d+)", out)
    if avg is None or pct is None:
        raise RuntimeError(f"no EndToEndLatency summary in: {out[-300:]}")
    # One record in flight at a time: the run lasts count round trips.
    return {"records": count, "seconds": count * float(avg[1]) / 1000,
            "p50_ms": float(pct[1]), "p99_ms": float(pct[2]), "p999_ms": float(pct[3])}


def _driver(*args: str) -> list[str]:
    return [sys.executable, "-m", "bench.harness.rdkafka_driver", *args]


def rd_produce(w: Workload, bootstrap: str, topic: str, spread: bool = False) -> dict[str, Any]:
    """`topic` may list several topics (comma-separated) when `spread`: then the records go
    round-robin over every partition of them all."""
    args = ["--topic", topic, "--count", str(w.count), "--size", str(w.size), "--acks", w.acks]
    out = json.loads(_run(_driver("produce", "--bootstrap", bootstrap, *args,
                                  *(["--spread"] if spread else []))).strip().splitlines()[-1])
    return {**out, "bytes_in": out["records"] * w.size}


def rd_consume(w: Workload, bootstrap: str, topic: str, partitions: int,
               count: int) -> dict[str, Any]:
    settings = [arg for kv in w.client for arg in ("--client", kv)]
    out = json.loads(_run(_driver("consume", "--bootstrap", bootstrap, "--topic", topic,
                                  "--partitions", str(partitions), "--count", str(count),
                                  *settings)).strip().splitlines()[-1])
    return {"records": out["records"], "seconds": out["seconds"], "bytes_out": out["bytes"],
            "client_cpu_s": out["client_cpu_s"]}


def kcat_consume(bootstrap: str, topic: str, partitions: int | None = None,
                 settings: Sequence[str] = ()) -> dict[str, Any]:
    """The topic read from the start to its end by kcat (librdkafka's C consumer, values
    written nowhere): one process over every partition, or with `partitions`, one process per
    partition at once. The records read, the wall time and the kcat processes' CPU seconds.
    `settings` are librdkafka's KEY=VALUE, as `-X` options."""
    cmd = ["kcat", "-C", "-q", "-e", "-b", bootstrap, "-t", topic, "-o", "beginning",
           *(arg for kv in settings for arg in ("-X", kv)), "-f", "%o\\n"]
    each = [[]] if partitions is None else [["-p", str(p)] for p in range(partitions)]
    # Offsets go to files, not pipes: a reader blocked on a full pipe would wait its turn.
    outs = [tempfile.TemporaryFile() for _ in each]  # noqa: SIM115
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    readers = [subprocess.Popen([*cmd, *args], stdout=out, stderr=subprocess.STDOUT)
               for args, out in zip(each, outs, strict=True)]
    for reader in readers:
        reader.wait(timeout=TIMEOUT)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    records = 0
    for reader, out in zip(readers, outs, strict=True):
        with out:
            out.seek(0)
            text = out.read()
        if reader.returncode != 0:
            raise RuntimeError(f"kcat exited {reader.returncode}: {text.decode()[-500:]}")
        records += sum(1 for line in text.splitlines() if line.isdigit())  # not its warnings
    return {
        "records": records,
        "seconds": seconds,
        "client_cpu_s": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
    }


def rd_e2e(w: Workload, bootstrap: str, topic: str, rate: float) -> dict[str, Any]:
    count = int(rate * w.seconds)
    consumer = subprocess.Popen(
        _driver("consume-latency", "--bootstrap", bootstrap, "--topic", topic,
                "--partitions", str(w.partitions), "--count", str(count),
                "--warmup", str(int(rate))),  # the first second: connections, caches
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert consumer.stdout is not None
        if consumer.stdout.readline().strip() != "READY":
            raise RuntimeError(f"latency consumer failed: {consumer.stderr.read()[-300:]}")
        _run(_driver("produce-rate", "--bootstrap", bootstrap, "--topic", topic,
                     "--rate", str(rate), "--seconds", str(w.seconds), "--size", str(w.size),
                     "--acks", w.acks))
        out, err = consumer.communicate(timeout=TIMEOUT)
    finally:
        if consumer.poll() is None:
            consumer.kill()
            consumer.wait()
    if consumer.returncode != 0:
        raise RuntimeError(f"latency consumer exited {consumer.returncode}: {err[-300:]}")
    res = json.loads(out.strip().splitlines()[-1])
    return {"records": count, "seconds": w.seconds, "p50_ms": res["p50_ms"],
            "p99_ms": res["p99_ms"], "p999_ms": res["p999_ms"],
            "bytes_in": count * w.size, "bytes_out": count * w.size}
