"""The scale scenario's load phase: throughput over every partition of a broker that holds
many.

A fresh broker (spawned, then an unmeasured warm-up on a one-partition topic, as in the other
modes) gets one topic of `partitions` partitions; then, each measured over its own window with
the broker's CPU and peak RSS: the librdkafka producer and Kafka's ProducerPerformance write
1 KB acks=all records round-robin over every partition, then the librdkafka consumer, kcat
(librdkafka's C consumer in one process, printing only offsets: the cost of reading without
Python) and ConsumerPerformance read everything back from the start, each `consume_rounds`
times (a consumer's run lasts a second or two, which one busy moment of this shared machine
can halve): its figures are those of the median round, every round's records/s listed beside
them. kcat's clock is its whole process, start-up and metadata included. The other two
consumers' clocks start at the assignment and stop at the last record, whatever the broker:
librdkafka's (`rdkafka_driver.consume_all`) when `assign()` returns, so the offset lookups
and the first fetches are in it; ConsumerPerformance's at its rebalance listener's
`onPartitionsAssigned` (its `fetch.time.ms` is the whole run minus the group join), so its
committed-offset and offset lookups and first fetches are in it too. After each producer the
partitions' offsets are checked: every partition was written and the log holds at least
every acknowledged record. SIGTERM to exit is timed at the end, with the data written."""

from __future__ import annotations

import statistics
import time
from typing import Any

from bench.harness import procstat, runner, scale, workloads
from bench.harness.brokers import Broker
from bench.harness.workloads import Workload

TOPIC = "scale-load"
WARMUP_RECORDS = 50_000
SIZE = 1024
# librdkafka stops fetching a partition for fetch.queue.backoff.ms (1 s by default) when its
# local queue passes queued.max.messages.kbytes (64 MB); two 50 MB fetch responses in a row
# do that, and a broker that answers the first ones quickly (every start offset found before
# the first fetch) makes it likelier, so the default round is often one second of waiting.
# The same reading with a short backoff (librdkafka's own advice for ~1 s delays) is shown
# beside it, both brokers alike.
SHORT_BACKOFF = ("fetch.queue.backoff.ms=20",)


def plan(partitions: int, count: int, java: bool) -> list[Workload]:
    """The measured workloads, in order (the consumers read what both producers wrote)."""
    ws = [Workload("rd-produce", "rd-produce", SIZE, "all", partitions, count)]
    if java:
        ws.append(Workload("java-produce", "java-produce", SIZE, "all", partitions, count))
    ws.append(Workload("rd-consume", "rd-consume", SIZE, partitions=partitions,
                       source="rd-produce"))
    ws.append(Workload("rd-consume-short-backoff", "rd-consume", SIZE, partitions=partitions,
                       source="rd-produce", client=SHORT_BACKOFF))
    ws.append(Workload("kcat-consume", "kcat-consume", SIZE, partitions=partitions,
                       source="rd-produce"))
    if java:
        ws.append(Workload("java-consume", "java-consume", SIZE, partitions=partitions,
                           source="java-produce"))
    return ws


def _check_stored(bootstrap: str, parts: list[scale.Partition], acked: int,
                  timeout: float) -> None:
    high = scale.end_offsets(bootstrap, parts, timeout)
    low = scale.end_offsets(bootstrap, parts, timeout, earliest=True)
    stored = sum(high[tp] - low[tp] for tp in parts)
    if stored < acked:
        raise scale.LostRecords(f"LOST: the partitions hold {stored} records, {acked} were "
                                "acknowledged")
    empty = [tp for tp in parts if high[tp] == low[tp]]
    if empty:
        raise RuntimeError(f"{len(empty)} partitions were never written, e.g. {empty[:3]}")


def _run_one(w: Workload, broker: Broker, stored: int) -> dict[str, Any]:
    meter = procstat.Meter(*broker.pids)
    if w.tool == "rd-produce":
        res = workloads.rd_produce(w, broker.bootstrap, TOPIC, spread=True)
    elif w.tool == "java-produce":
        res = workloads.java_produce(w, broker.bootstrap, TOPIC, None,
                                     (workloads.ROUND_ROBIN,))
    elif w.tool == "rd-consume":
        res = workloads.rd_consume(w, broker.bootstrap, TOPIC, w.partitions, stored)
    elif w.tool == "kcat-consume":
        res = workloads.kcat_consume(broker.bootstrap, TOPIC, settings=w.client)
        if res["records"] < stored:
            raise RuntimeError(f"kcat read {res['records']} of {stored} records")
        res["bytes_out"] = res["records"] * w.size
    else:
        res = workloads.java_consume(w, broker.bootstrap, TOPIC, stored)
    cpu, rss = meter.read()
    return runner.workload_metrics(w, res, cpu, rss)


def _median_round(w: Workload, broker: Broker, stored: int, rounds: int) -> dict[str, Any]:
    """A consumer `rounds` times over the same data: the median round's metrics (the lower
    middle one for an even count), with `rounds_records_s` in the order they ran."""
    runs = []
    for _ in range(rounds):
        runs.append(_run_one(w, broker, stored))
        time.sleep(0.5)
    speeds = [m["records_s"] for m in runs]
    middle = statistics.median_low(speeds)
    return {**runs[speeds.index(middle)], "rounds_records_s": speeds}


def run(broker: Broker, partitions: int, count: int, java: bool,
        consume_rounds: int = 1) -> dict[str, Any]:
    """The load phase against one broker: {"startup": ..., "create_one_topic_s": ...,
    workload name: metrics or {"error": ...}, "peak_rss_mb": the largest workload's,
    "stop_s": ...}."""
    timeout = scale.timeout_for(partitions)
    out: dict[str, Any] = {"startup": runner.start_broker(broker)}
    warm = Workload("warmup", "rd-produce", SIZE, "1", 1, WARMUP_RECORDS)
    workloads.create_topic(broker.bootstrap, "flbench-warmup", 1)
    workloads.rd_produce(warm, broker.bootstrap, "flbench-warmup")
    workloads.rd_consume(warm, broker.bootstrap, "flbench-warmup", 1, warm.count)

    out["create_one_topic_s"] = scale.create(broker.bootstrap, {TOPIC: partitions})
    parts = scale.partitions_of({TOPIC: partitions})
    acked = 0
    for w in plan(partitions, count, java):
        try:
            if w.source is None:
                metrics = _run_one(w, broker, acked)
                acked += metrics["records"]
                _check_stored(broker.bootstrap, parts, acked, timeout)
            else:
                metrics = _median_round(w, broker, acked, consume_rounds)
            out[w.name] = metrics
        except Exception as exc:
            out[w.name] = {"error": f"{exc}{broker.exit_report()}"}
            if isinstance(exc, scale.LostRecords):
                raise
        time.sleep(0.5)  # let the broker's background work of this workload settle
    peaks = [m["peak_rss_mb"] for m in out.values()
             if isinstance(m, dict) and "peak_rss_mb" in m]
    if peaks:
        out["peak_rss_mb"] = max(peaks)
    assert broker.proc is not None
    out["stop_s"] = scale.timed_stop([broker.proc], timeout)
    broker.proc = None
    return out
