"""The Java clients held by quotas, for `bench.quota_bench`: ProducerPerformance under
`producer_byte_rate` and ConsumerPerformance under `consumer_byte_rate`, each measured by the
broker's byte counters over the tail of its run and by the client's own throttle metrics."""

from __future__ import annotations

import os
import re
import tempfile
import threading
import time

from bench.harness import brokers, workloads
from bench.harness.quotas import FLOOD, MIB, Scraped, perf_args, set_quota

DRAIN = "drain"  # the Java consumer's client id


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
