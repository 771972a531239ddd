"""Runs the matrix: rounds of fresh brokers alternating (A B C, B C A, ...), each broker
run measuring start-to-first-produce and then every workload, with the broker's CPU and
peak RSS taken from /proc over each workload's window."""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.harness import brokers, procstat, rdkafka_driver, workloads
from bench.harness.workloads import Workload

# The Python latency driver holds a steady rate up to here on this class of machine; above
# it the client, not the broker, would set the latency (the cap is recorded per result).
RD_E2E_MAX_RATE = 80_000.0
# Fixed-rate runs without a Kafka reference (ferrolog alone) use half of ferrolog's own max.
RATE_SHARE = 0.5


@dataclass
class Matrix:
    workloads: list[Workload]
    broker_names: list[str]
    rounds: int
    # Records (1 KB) produced and consumed, unmeasured, right after start: a fresh JVM runs
    # interpreted code until its JIT has seen traffic, and the measured figures are meant to
    # be the steady state of either broker, not its warm-up.
    warmup_records: int = 0
    # workload -> fixed rate (records/s) and where it came from; set once, then the same
    # rate is offered to every broker in every round.
    rates: dict[str, float] = field(default_factory=dict)
    rate_basis: dict[str, str] = field(default_factory=dict)
    samples: list[dict[str, Any]] = field(default_factory=list)
    # How a broker (or a cluster of brokers) is made from its name, and the replication
    # factor of the workload topics.
    make: Callable[[str], brokers.Broker] = brokers.make
    replication: int = 1

    @property
    def reference(self) -> str:
        kafkas = [b for b in self.broker_names if b != "ferrolog"]
        return kafkas[0] if kafkas else self.broker_names[0]

    def order(self, round_no: int) -> list[str]:
        base = [self.reference] + [b for b in self.broker_names if b != self.reference]
        k = round_no % len(base)
        return base[k:] + base[:k]

    def steps(self) -> int:
        return self.rounds * len(self.broker_names) * (len(self.workloads) + 1)


def workload_metrics(w: Workload | None, res: dict[str, Any], cpu: float,
                     rss: int) -> dict[str, Any]:
    """A workload's client figures with the broker's cost over the same window."""
    out: dict[str, Any] = {"cpu_s": cpu, "peak_rss_mb": rss / 1e6}
    if w is None:
        return {**res, **out}
    seconds = res["seconds"]
    moved = res.get("bytes_in", 0) + res.get("bytes_out", 0)
    out["records"] = res["records"]
    out["seconds"] = seconds
    out["records_s"] = res["records"] / seconds if seconds > 0 else math.nan
    out["mb_s"] = res["records"] * w.size / seconds / 1e6 if seconds > 0 else math.nan
    out["cpu_s_per_gb"] = cpu / (moved / 1e9) if moved else math.nan
    if "client_cpu_s" in res:
        out["client_cpu_s_per_gb"] = res["client_cpu_s"] / (moved / 1e9) if moved else math.nan
    for key in ("p50_ms", "p99_ms", "p999_ms", "rate", "rebalance_ms", "client_cores"):
        if key in res:
            out[key] = res[key]
    return out


def _run_workload(w: Workload, broker: brokers.Broker, rnd: int,
                  done: dict[str, dict[str, Any]], rate: float | None,
                  replication: int = 1) -> dict[str, Any]:
    if w.source is not None:
        src = done.get(w.source)
        if src is None:
            raise RuntimeError(f"its source workload {w.source} did not run")
        topic, parts, count = src["topic"], src["partitions"], src["records"]
    else:
        topic, parts, count = f"{w.name}-r{rnd}", w.partitions, w.count
        workloads.create_topic(broker.bootstrap, topic, parts, replication)
    if w.rate_of is not None and rate is None:
        raise RuntimeError(f"no rate: {w.rate_of} has no maximum yet")
    meter = procstat.Meter(*broker.pids)
    if w.tool == "java-produce":
        res = workloads.java_produce(w, broker.bootstrap, topic, rate)
    elif w.tool == "java-consume":
        res = workloads.java_consume(w, broker.bootstrap, topic, count)
    elif w.tool == "java-e2e":
        res = workloads.java_e2e(w, broker.bootstrap, topic)
    elif w.tool == "rd-produce":
        res = workloads.rd_produce(w, broker.bootstrap, topic)
    elif w.tool == "rd-consume":
        res = workloads.rd_consume(w, broker.bootstrap, topic, parts, count)
    elif w.tool == "rd-e2e":
        assert rate is not None
        res = workloads.rd_e2e(w, broker.bootstrap, topic, rate)
    else:
        raise ValueError(w.tool)
    cpu, rss = meter.read()
    if rate is not None:
        res["rate"] = rate
    out = workload_metrics(w, res, cpu, rss)
    if len(broker.pids) > 1:  # a cluster: peak_rss_mb is its largest broker, each one here
        out["peak_rss_mb_each"] = [p / 1e6 for p in meter.peaks()]
        if w.source is None:  # what each replica holds of the topic just written
            out["log_mb_each"] = [b / 1e6 for b in broker.topic_bytes(topic)]
    done[w.name] = {"topic": topic, "partitions": parts, "records": res["records"]}
    return out


def start_broker(broker: brokers.Broker) -> dict[str, Any]:
    broker.prepare()
    producer = rdkafka_driver.first_ack_producer(broker.bootstrap)
    t0 = time.monotonic()
    broker.spawn()
    acked = rdkafka_driver.wait_first_ack(producer, "flbench-first")
    producer.flush(5)
    start_s = acked - t0
    rss = max(procstat.rss_bytes(p) for p in broker.pids)  # per broker: the largest
    out = {"start_to_first_ack_s": start_s, "prepare_s": broker.prepare_s,
           "rss_after_start_mb": rss / 1e6,
           "cpu_to_first_ack_s": sum(procstat.cpu_seconds(p) for p in broker.pids)}
    if broker.aux_pids:  # ZooKeeper: not the broker, but part of what a ZK-mode Kafka costs
        out["aux_rss_after_start_mb"] = sum(procstat.rss_bytes(p) for p in broker.aux_pids) / 1e6
    return out


def run(matrix: Matrix, on_step: Callable[[str], None]) -> None:
    for rnd in range(matrix.rounds):
        for name in matrix.order(rnd):
            _run_broker(matrix, name, rnd, on_step)


def _record(matrix: Matrix, workload: str, broker: str, rnd: int, **data: Any) -> None:
    matrix.samples.append({"workload": workload, "broker": broker, "round": rnd, **data})


def _run_broker(matrix: Matrix, name: str, rnd: int, on_step: Callable[[str], None]) -> None:
    broker = matrix.make(name)
    try:
        on_step(f"round {rnd + 1}/{matrix.rounds} {name}: start")
        try:
            start = start_broker(broker)
        except Exception as exc:
            msg = f"start failed: {exc!r}\n{broker.log_tail()}"
            _record(matrix, "startup", name, rnd, error=msg)
            for w in matrix.workloads:
                _record(matrix, w.name, name, rnd, error=msg)
                on_step(f"round {rnd + 1}/{matrix.rounds} {name}: skipped")
            return
        _record(matrix, "startup", name, rnd, metrics=start)
        if matrix.warmup_records:
            on_step(f"round {rnd + 1}/{matrix.rounds} {name}: warm-up")
            warm = Workload("warmup", "rd-produce", 1024, "1", 1, matrix.warmup_records)
            workloads.create_topic(broker.bootstrap, "flbench-warmup", 1, matrix.replication)
            workloads.rd_produce(warm, broker.bootstrap, "flbench-warmup")
            workloads.rd_consume(warm, broker.bootstrap, "flbench-warmup", 1, warm.count)
        done: dict[str, dict[str, Any]] = {}
        for w in matrix.workloads:
            on_step(f"round {rnd + 1}/{matrix.rounds} {name}: {w.name}")
            rate = _rate_for(matrix, w)
            try:
                metrics = _run_workload(w, broker, rnd, done, rate, matrix.replication)
            except Exception as exc:
                detail = traceback.format_exception_only(exc)[-1].strip()
                detail += broker.exit_report()
                _record(matrix, w.name, name, rnd, error=detail)
                continue
            _record(matrix, w.name, name, rnd, metrics=metrics)
            if w.rate_of is None and name == matrix.reference:
                _set_rates(matrix, w.name, metrics["records_s"], name)
            time.sleep(0.5)  # let the broker's background work of this workload settle
    finally:
        broker.cleanup()


def _rate_for(matrix: Matrix, w: Workload) -> float | None:
    if w.rate_of is None:
        return None
    return matrix.rates.get(w.name)


def _set_rates(matrix: Matrix, source: str, records_s: float, broker: str) -> None:
    for w in matrix.workloads:
        if w.rate_of == source and w.name not in matrix.rates and math.isfinite(records_s):
            rate = RATE_SHARE * records_s
            basis = f"{RATE_SHARE:.0%} of {broker}'s {source}"
            if w.tool == "rd-e2e" and rate > RD_E2E_MAX_RATE:
                rate, basis = RD_E2E_MAX_RATE, basis + f" capped at {RD_E2E_MAX_RATE:.0f}/s"
            matrix.rates[w.name] = round(rate)
            matrix.rate_basis[w.name] = basis
