"""What fetch sessions (KIP-227) save on idle partitions: bytes per Fetch response and broker
CPU per minute, for one idle consumer of many partitions on one broker (`consumer`) and for
the followers of a three-broker cluster with replication factor 3 (`followers`).

Every broker is reached only through a `FetchSpy` proxy (its advertised listener), which
records the Fetch exchanges; CPU is the broker processes' utime+stime from /proc over the
measured window, in all and in the native core's threads (`ferrolog-io`: the tokio runtime
that serves Fetch and runs the replica fetchers; the rest is the Python control plane). Each
run starts fresh brokers; the figures are the medians over the runs.

    python -m bench.fetch_sessions consumer --partitions 1000 --runs 3 --seconds 60
    python -m bench.fetch_sessions followers --partitions 1000 --runs 3 --seconds 60

`--slots 0` sets `max.incremental.fetch.session.cache.slots=0`: the same build with fetch
sessions off, for a comparison under the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.ports import free_port

from bench.harness import kafka_dist, procstat
from bench.harness.fetch_spy import FetchExchange, FetchSpy
from tests.cluster.harness import Cluster, ZooKeeper, wait_until

TOPIC = "idle"
# The name of the native core's tokio threads (`Server::new`).
NATIVE_THREADS = "ferrolog-io"
TICK = os.sysconf("SC_CLK_TCK")


def _create_and_fill(bootstrap: str, partitions: int, replication: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(TOPIC, partitions, replication)])
    futures[TOPIC].result(120)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 20})
    for p in range(partitions):
        producer.produce(TOPIC, value=f"record-{p}".encode(), partition=p)
    assert producer.flush(120) == 0, "records left unsent"


def _java_consumer(bootstrap: str, out: Path) -> subprocess.Popen[bytes]:
    """Kafka 4.1's console consumer subscribed to the topic, in a group, from the start."""
    args = [
        "java", "-Xmx256M", "-cp", kafka_dist.classpath(kafka_dist.KAFKA4),
        "org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server", bootstrap,
        "--topic", TOPIC, "--group", "idle-reader", "--from-beginning",
    ]  # fmt: skip
    with open(out, "wb") as sink:
        return subprocess.Popen(args, stdout=sink, stderr=subprocess.STDOUT)


def _native_ticks(pid: int) -> int:
    """CPU ticks of the native core's threads of `pid` (live ones: the runtime keeps them)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            if (task / "comm").read_text().strip() != NATIVE_THREADS:
                continue
            stat = (task / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        total += int(fields[11]) + int(fields[12])
    return total


def _window(
    pids: list[int], spies: list[FetchSpy], seconds: float
) -> tuple[float, float, list[FetchExchange]]:
    """(CPU seconds in all, CPU seconds of the native threads, Fetch exchanges) over the window."""
    for spy in spies:
        spy.clear()
    before = sum(procstat.cpu_seconds(p) for p in pids)
    native_before = sum(_native_ticks(p) for p in pids)
    time.sleep(seconds)
    cpu = sum(procstat.cpu_seconds(p) for p in pids) - before
    native = (sum(_native_ticks(p) for p in pids) - native_before) / TICK
    return cpu, native, [e for spy in spies for e in spy.exchanges()]


def _summary(
    window: tuple[float, float, list[FetchExchange]], seconds: float, client: str | None
) -> dict[str, float]:
    cpu, native, exchanges = window
    if client is None:
        exchanges = [e for e in exchanges if e.replica_id >= 0]
    else:
        exchanges = [e for e in exchanges if e.client_id.startswith(client)]
    return {
        "broker_cpu_s_per_min": round(cpu * 60 / seconds, 2),
        "native_cpu_s_per_min": round(native * 60 / seconds, 2),
        "fetches_per_min": round(len(exchanges) * 60 / seconds),
        "native_cpu_ms_per_fetch": round(native * 1000 / max(len(exchanges), 1), 3),
        "median_response_bytes": statistics.median(e.response_bytes for e in exchanges),
        "median_request_partitions": statistics.median(e.partitions_asked for e in exchanges),
        "sessions": len({e.response_session_id for e in exchanges} - {0}),
    }


def consumer_run(
    workdir: Path, partitions: int, seconds: float, extra: dict[str, str]
) -> dict[str, float]:
    port = free_port()
    spy = FetchSpy(port)
    settings = {
        **extra,
        "listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "advertised.listeners": f"PLAINTEXT://{spy.address}",
        "log.dirs": str(workdir / "data"),
        "offsets.topic.num.partitions": "1",
        "group.initial.rebalance.delay.ms": "0",
    }
    args = [sys.executable, "-m", "ferrolog", "broker"]
    for key, value in settings.items():
        args += ["--override", f"{key}={value}"]
    with open(workdir / "broker.log", "wb") as log:
        broker = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    out = workdir / "consumer.out"
    consumer = None
    try:
        wait_until(lambda: _listening(port), 30, what="the broker to listen")
        _create_and_fill(spy.address, partitions, 1)
        consumer = _java_consumer(spy.address, out)
        wait_until(
            lambda: out.read_bytes().count(b"record-") >= partitions,
            120,
            what="the consumer to read every partition",
        )
        time.sleep(5)  # past the first fetches after the last record
        return _summary(_window([broker.pid], [spy], seconds), seconds, "console-consumer")
    finally:
        for proc in (consumer, broker):
            if proc is not None:
                proc.kill()
                proc.wait(10)
        spy.close()


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def followers_run(
    workdir: Path, partitions: int, seconds: float, extra: dict[str, str]
) -> dict[str, float]:
    zk = ZooKeeper(workdir / "zk")
    zk.start()
    cluster = Cluster(zk, workdir, 3)
    spies = {}
    for node_id, broker in cluster.brokers.items():
        spies[node_id] = FetchSpy(broker.port)
        broker.overrides.update({
            **extra,
            "advertised.listeners": f"PLAINTEXT://{spies[node_id].address}",
            # the harness shortens these for fault tests; the defaults are what is measured
            "replica.fetch.wait.max.ms": "500",
            "replica.fetch.backoff.ms": "1000",
            "replica.socket.timeout.ms": "30000",
            "replica.lag.time.max.ms": "30000",
        })  # fmt: skip
    try:
        cluster.start()
        _create_and_fill(spies[1].address, partitions, 3)
        time.sleep(10)  # followers caught up, sessions settled
        pids = [b.proc.pid for b in cluster.brokers.values() if b.proc is not None]
        return _summary(_window(pids, list(spies.values()), seconds), seconds, None)
    finally:
        cluster.stop()
        zk.stop()
        for spy in spies.values():
            spy.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["consumer", "followers"])
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--slots", type=int, help="max.incremental.fetch.session.cache.slots")
    args = parser.parse_args()
    extra = {}
    if args.slots is not None:
        extra["max.incremental.fetch.session.cache.slots"] = str(args.slots)
    run = consumer_run if args.mode == "consumer" else followers_run
    results = []
    for i in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="ferrolog-sessions-") as tmp:
            result = run(Path(tmp), args.partitions, args.seconds, extra)
        print(f"run {i + 1}: {json.dumps(result)}", flush=True)
        results.append(result)
    medians = {k: statistics.median(r[k] for r in results) for k in results[0]}
    print(f"median of {args.runs}: {json.dumps(medians)}")


if __name__ == "__main__":
    main()
