"""The scale mode's report: one row per measure and phase with ferrolog's figure, Kafka's, the
ratio ferrolog/Kafka and issue 9's goal for it (met or not), as JSON and markdown."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from bench.harness.report import _fmt


@dataclass(frozen=True)
class Row:
    kind: str  # the phase kind it is read from
    key: str  # a path into the phase's figures: "rd-produce.records_s"
    label: str
    goal: float | None = None  # issue 9's bound on the ratio ferrolog/Kafka
    higher: bool = False  # the goal is a lower bound (throughput)
    zero: bool = False  # ferrolog's figure must be 0 (errors), whatever Kafka's


CREATE, RESTART, RSS, STOP, THROUGHPUT = 1.0, 0.5, 0.25, 1.0, 1.5
ROWS = [
    Row("crash", "create_s", "create, until Metadata shows every leader (s)", CREATE),
    Row("crash", "create_to_ack_s", "create, until every partition acknowledged a write (s)"),
    Row("crash", "restart_s", "restart after SIGKILL, until every partition acknowledges an "
        "acks=all write (s)", RESTART),
    Row("crash", "rss_after_restart_mb", "RSS after that restart (MB)", RSS),
    Row("crash", "peak_rss_mb", "peak RSS (MB)", RSS),
    Row("crash", "stop_s", "SIGTERM to exit (s)", STOP),
    Row("crash", "open_files", "open files after the restart"),
    Row("crash", "disk_after_restart_mb", "log dir allocated size after the restart (MB)"),
    Row("crash", "records_checked", "acknowledged records read back"),
    Row("load", "rd-produce.records_s", "librdkafka produce, 1 KB acks=all (records/s)",
        THROUGHPUT, higher=True),
    Row("load", "java-produce.records_s", "ProducerPerformance, 1 KB acks=all (records/s)",
        THROUGHPUT, higher=True),
    Row("load", "rd-consume.records_s", "librdkafka consume from the start (records/s)",
        THROUGHPUT, higher=True),
    Row("load", "java-consume.records_s", "ConsumerPerformance from the start (records/s)",
        THROUGHPUT, higher=True),
    Row("load", "rd-consume-short-backoff.records_s", "librdkafka consume from the start, "
        "fetch.queue.backoff.ms=20 (records/s)"),
    Row("load", "kcat-consume.records_s", "kcat consume from the start, one process (records/s)",
        THROUGHPUT, higher=True),
    Row("load", "rd-produce.cpu_s_per_gb", "broker CPU s per GB, librdkafka produce"),
    Row("load", "rd-consume.cpu_s_per_gb", "broker CPU s per GB, librdkafka consume"),
    Row("load", "rd-consume.client_cpu_s_per_gb", "the librdkafka consumer's own CPU s per GB"),
    Row("load", "kcat-consume.cpu_s_per_gb", "broker CPU s per GB, kcat consume"),
    Row("load", "kcat-consume.client_cpu_s_per_gb", "kcat's own CPU s per GB"),
    Row("load", "java-consume.cpu_s_per_gb", "broker CPU s per GB, ConsumerPerformance"),
    Row("load", "java-consume.client_cpu_s_per_gb", "ConsumerPerformance's own CPU s per GB"),
    Row("load", "java-consume.client_cores", "cores ConsumerPerformance kept busy (of 2)"),
    Row("load", "peak_rss_mb", "peak RSS under load (MB)", RSS),
    Row("load", "stop_s", "SIGTERM to exit (s)", STOP),
    Row("replicated", "create_s", "create RF 3, until Metadata shows every leader (s)",
        CREATE),
    Row("replicated", "create_to_full_isr_s", "create RF 3, until every ISR has 3 (s)"),
    Row("replicated", "rd-produce.records_s", "librdkafka produce, 1 KB acks=all (records/s)",
        THROUGHPUT, higher=True),
    Row("replicated", "restart_s", "SIGKILL of one broker, restart until every partition "
        "acknowledges (s)", RESTART),
    Row("replicated", "restart_to_full_isr_s", "... until it is back in every ISR (s)",
        RESTART),
    Row("replicated", "rss_after_restart_mb", "largest broker RSS after that restart (MB)",
        RSS),
    Row("replicated", "peak_rss_mb", "largest broker peak RSS (MB)", RSS),
    Row("replicated", "stop_s", "SIGTERM to all three, until the last exits (s)", STOP),
    Row("replicated", "open_files", "open files, largest broker"),
    Row("replicated", "records_checked", "acknowledged keyed records read back"),
    Row("conns", "errors", "errors (connect, request, delivery)", zero=True),
    Row("conns", "idle_connect_s", "open the idle connections (s)"),
    Row("conns", "rss_idle_mb", "RSS with the idle connections (MB)", RSS),
    Row("conns", "rss_per_idle_connection_kb", "RSS per idle connection (KB)"),
    Row("conns", "rss_per_producer_connection_kb", "RSS per producer connection (KB)"),
    Row("conns", "peak_rss_mb", "peak RSS with the producers (MB)", RSS),
    Row("conns", "records_acked", "records acknowledged to the producers"),
]


def _value(metrics: dict[str, Any] | None, key: str) -> float | None:
    node: Any = metrics
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return float(node) if isinstance(node, int | float) else None


def _verdict(row: Row, ours: float | None, theirs: float | None,
             ratio: float | None) -> bool | None:
    if row.zero:
        return None if ours is None else ours == 0
    if row.goal is None or ratio is None:
        return None
    return ratio >= row.goal if row.higher else ratio <= row.goal


def _values(samples: list[dict[str, Any]], key: str) -> list[float]:
    """The figure of every round that has it, in the order they ran."""
    return [v for s in samples if (v := _value(s.get("metrics"), key)) is not None]


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def rows(samples: list[dict[str, Any]], kafka: str | None) -> list[dict[str, Any]]:
    """The report's rows, phase by phase in the order the phases ran; with several rounds,
    each broker's figure is the median of its rounds (all of them listed beside it)."""
    phases = list(dict.fromkeys(s["phase"] for s in samples))
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for s in samples:
        by.setdefault((s["phase"], s["broker"]), []).append(s)
    out = []
    for phase in phases:
        ours_s = by.get((phase, "ferrolog"), [])
        theirs_s = by.get((phase, kafka), []) if kafka else []
        first = (ours_s or theirs_s)[0]
        for row in (r for r in ROWS if r.kind == first["kind"]):
            ours_all, theirs_all = _values(ours_s, row.key), _values(theirs_s, row.key)
            ours, theirs = _median(ours_all), _median(theirs_all)
            ratio = ours / theirs if ours is not None and theirs else None
            out.append({"phase": phase, "partitions": first["partitions"],
                        "measure": row.label, "key": row.key, "ferrolog": ours, "kafka": theirs,
                        "ferrolog_rounds": ours_all, "kafka_rounds": theirs_all,
                        "ratio": ratio, "goal": row.goal, "higher_is_better": row.higher,
                        "must_be_zero": row.zero,
                        "met": _verdict(row, ours, theirs, ratio)})
    return out


def failures(samples: list[dict[str, Any]]) -> list[str]:
    """Every phase that failed on a broker, and every workload that failed inside a phase
    that went on (the load phase's)."""
    out = []
    for s in samples:
        where = f"{s['phase']} on {s['broker']}"
        if "error" in s:
            out.append(f"{where} after {s['wall_s']} s: "
                       f"{'**LOST ACKNOWLEDGED RECORDS** ' if s.get('lost') else ''}"
                       f"{s['error'].splitlines()[0][:400]}")
        out += [f"{where}, {name}: {m['error'].splitlines()[0][:400]}"
                for name, m in s.get("metrics", {}).items()
                if isinstance(m, dict) and "error" in m]
    return out


def problems(doc: dict[str, Any]) -> list[str]:
    """What makes a run fail its check: a phase or workload that failed on any broker, a
    lost record, ferrolog's errors where there must be none."""
    out = failures(doc["samples"])
    out += [f"{r['phase']}: {r['measure']} = {r['ferrolog']}" for r in doc["rows"]
            if r["must_be_zero"] and r["met"] is False]
    return out


def _goal(r: dict[str, Any]) -> str:
    if r["must_be_zero"]:
        return "ferrolog = 0"
    if r["goal"] is None:
        return ""
    return ("≥ " if r["higher_is_better"] else "≤ ") + f"{r['goal']}x"


def _cell(r: dict[str, Any], broker: str) -> str:
    """The median, and with several rounds their range: `12.3 (11.0-15.2)`."""
    values = r.get(f"{broker}_rounds") or []
    if len(values) < 2:
        return _fmt(r[broker])
    return f"{_fmt(r[broker])} ({_fmt(min(values))}-{_fmt(max(values))})"


def markdown(doc: dict[str, Any]) -> str:
    run = doc["run"]
    kafka = run.get("kafka") or "Kafka"
    lines = [f"# ferrolog vs Apache Kafka at scale: {run['finished']}", "",
             f"Brokers: {', '.join(run['brokers'])} (Kafka {run['versions']['kafka4']}, KRaft); "
             f"one fresh broker per phase and kind, Kafka first. Machine: "
             f"{run['machine']['nproc']} cores, load average before/after: "
             f"{run['machine']['load_before']} / {run['machine']['load_after']}; wall "
             f"{run['wall_s']} s{' (interrupted)' if run.get('interrupted') else ''}."
             + (f" Each phase ran {run['rounds']} times per broker: figures are medians "
                "(range in brackets), ratios are of the medians." if run.get("rounds", 1) > 1
                else ""), "",
             *[f"- {p}" for p in run["phases"]], "",
             f"| phase | measure | ferrolog | {kafka} | ratio | goal | met |",
             "|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        met = {True: "met", False: "**not met**", None: "n/a" if _goal(r) else ""}[r["met"]]
        lines.append(f"| {r['phase']} | {r['measure']} | {_cell(r, 'ferrolog')} | "
                     f"{_cell(r, 'kafka')} | {_fmt(r['ratio'])} | {_goal(r)} | {met} |")
    failed = failures(doc["samples"])
    if failed:
        lines += ["", "## Failures", "", *[f"- {f}" for f in failed]]
    return "\n".join(lines) + "\n"
