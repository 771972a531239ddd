"""Turns a run's samples into medians, ferrolog/Kafka ratios and the targets' verdicts, then
writes the JSON, the markdown table and the PNG plots."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.harness.workloads import Workload

METRICS = ["records_s", "mb_s", "p50_ms", "p99_ms", "p999_ms", "cpu_s_per_gb", "cpu_s",
           "peak_rss_mb"]
START_METRICS = ["start_to_first_ack_s", "prepare_s", "rss_after_start_mb",
                 "aux_rss_after_start_mb"]


def _median(values: list[float]) -> float | None:
    vals = [v for v in values if v is not None and math.isfinite(v)]
    return statistics.median(vals) if vals else None


def aggregate(samples: list[dict[str, Any]], workloads: list[Workload],
              broker_names: list[str]) -> list[dict[str, Any]]:
    """One entry per workload and broker: the median of every figure over the rounds."""
    entries = []
    names = ["startup"] + [w.name for w in workloads]
    for name in names:
        keys = START_METRICS if name == "startup" else METRICS
        for broker in broker_names:
            mine = [s for s in samples if s["workload"] == name and s["broker"] == broker]
            ok = [s["metrics"] for s in mine if "metrics" in s]
            entry: dict[str, Any] = {"workload": name, "broker": broker, "rounds_ok": len(ok),
                                     "rounds_failed": len(mine) - len(ok)}
            entry["median"] = {k: _median([m[k] for m in ok if k in m]) for k in keys}
            entry["median"] = {k: v for k, v in entry["median"].items() if v is not None}
            if "rate" in (ok[0] if ok else {}):
                entry["rate"] = ok[0]["rate"]
            errors = sorted({s["error"].splitlines()[0][:300] for s in mine if "error" in s})
            if errors:
                entry["errors"] = errors
            entries.append(entry)
    return entries


def ratios(entries: list[dict[str, Any]], kafkas: list[str]) -> list[dict[str, Any]]:
    """ferrolog's median over each Kafka's median, per workload and figure."""
    by = {(e["workload"], e["broker"]): e["median"] for e in entries}
    out = []
    for e in entries:
        if e["broker"] != "ferrolog":
            continue
        for k in kafkas:
            theirs = by.get((e["workload"], k), {})
            r = {m: e["median"][m] / theirs[m] for m in e["median"]
                 if theirs.get(m) and m in theirs}
            if r:
                out.append({"workload": e["workload"], "vs": k, "ferrolog_over_kafka": r})
    return out


def _geomean(values: list[float]) -> float | None:
    vals = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, vals)) / len(vals)) if vals else None


def targets(rats: list[dict[str, Any]], entries: list[dict[str, Any]],
            workloads: list[Workload], kafka: str | None) -> list[dict[str, Any]]:
    """The issue's targets against one Kafka: geometric means of the per-workload ratios."""
    kinds = {w.name: w for w in workloads}

    def pick(metric: str, pred: Any) -> list[float]:
        return [r["ferrolog_over_kafka"][metric] for r in rats
                if r["vs"] == kafka and r["workload"] in kinds and pred(kinds[r["workload"]])
                and metric in r["ferrolog_over_kafka"]]

    def is_max_produce(w: Workload) -> bool:
        return w.tool in ("java-produce", "rd-produce") and w.rate_of is None

    def is_consume(w: Workload) -> bool:
        return w.source is not None

    def is_latency(w: Workload) -> bool:
        return w.rate_of is not None

    start = [e["median"].get("start_to_first_ack_s") for e in entries
             if e["workload"] == "startup" and e["broker"] == "ferrolog"]
    rows = []
    if kafka is not None:
        rss = [r["ferrolog_over_kafka"]["peak_rss_mb"] for r in rats
               if r["vs"] == kafka and "peak_rss_mb" in r["ferrolog_over_kafka"]]
        for label, values, goal, higher in [
            ("produce throughput (records/s)", pick("records_s", is_max_produce), 1.5, True),
            ("broker CPU s per GB", pick("cpu_s_per_gb", lambda w: not is_latency(w)), 0.5,
             False),
            ("consume throughput (records/s)", pick("records_s", is_consume), 1.0, True),
            ("p99 latency at the same rate", pick("p99_ms", is_latency), 0.5, False),
            ("peak broker RSS", [max(rss)] if rss else [], 0.25, False),
        ]:
            g = _geomean(values)
            rows.append({"target": label, "vs": kafka, "ratio": g, "goal": goal,
                         "higher_is_better": higher, "workloads": len(values),
                         "met": None if g is None else (g >= goal if higher else g <= goal)})
    s = start[0] if start else None
    rows.append({"target": "ferrolog start to first acknowledged produce (s)", "value": s,
                 "goal": 1.0, "met": None if s is None else s < 1.0})
    return rows


def problems(doc: dict[str, Any]) -> list[str]:
    """What makes a run unusable: failed workloads, figures missing or not positive."""
    out = []
    for e in doc["results"]:
        where = f"{e['workload']} on {e['broker']}"
        if e["rounds_failed"] or not e["rounds_ok"]:
            out.append(f"{where}: {'; '.join(e.get('errors', ['no result']))}")
            continue
        med = e["median"]
        needed = (["start_to_first_ack_s", "rss_after_start_mb"] if e["workload"] == "startup"
                  else ["records_s", "mb_s", "cpu_s", "peak_rss_mb"])
        if "rate" in e:
            needed += ["p50_ms", "p99_ms", "p999_ms"]
        # CPU may round to 0 ticks in a tiny run; it must be there.
        bad = [k for k in needed if not ((med.get(k) or 0) > 0 or (k == "cpu_s" and k in med))]
        if bad:
            out.append(f"{where}: missing or non-positive {', '.join(bad)}")
    return out


def _fmt(v: float | None, digits: int = 3) -> str:
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def markdown(doc: dict[str, Any]) -> str:
    run = doc["run"]
    lines = [f"# ferrolog vs Apache Kafka: {run['mode']} run, {run['finished']}", "",
             f"Brokers: {', '.join(run['brokers'])}; rounds: {run['rounds']} (alternating); "
             f"figures are medians over the rounds. Machine: {run['machine']['nproc']} cores, "
             f"load average before/after: {run['machine']['load_before']} / "
             f"{run['machine']['load_after']}.", "",
             *([run["setup"], ""] if run.get("setup") else []), "## Targets", "",
             "| target | vs | ratio or value | goal | met |", "|---|---|---|---|---|"]
    for t in doc["targets"]:
        val = t.get("ratio", t.get("value"))
        goal = ("≥ " if t.get("higher_is_better") else "≤ ") + str(t["goal"]) \
            if "vs" in t else f"< {t['goal']}"
        met = {True: "yes", False: "**no**", None: "n/a"}[t["met"]]
        lines.append(f"| {t['target']} | {t.get('vs', '-')} | {_fmt(val)} | {goal} | {met} |")
    lines += ["", "## Figures", "",
              "| workload | broker | records/s | MB/s | p50 ms | p99 ms | p99.9 ms | "
              "CPU s/GB | peak RSS MB | ok/failed |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for e in doc["results"]:
        if e["workload"] == "startup":
            continue
        m = e["median"]
        lines.append(f"| {e['workload']} | {e['broker']} | {_fmt(m.get('records_s'))} | "
                     f"{_fmt(m.get('mb_s'))} | {_fmt(m.get('p50_ms'))} | {_fmt(m.get('p99_ms'))}"
                     f" | {_fmt(m.get('p999_ms'))} | {_fmt(m.get('cpu_s_per_gb'))} | "
                     f"{_fmt(m.get('peak_rss_mb'))} | {e['rounds_ok']}/{e['rounds_failed']} |")
    lines += ["", "## Start-up", "",
              "| broker | spawn to first acked produce s | preparation s | RSS after start MB |",
              "|---|---|---|---|"]
    for e in doc["results"]:
        if e["workload"] == "startup":
            m = e["median"]
            lines.append(f"| {e['broker']} | {_fmt(m.get('start_to_first_ack_s'))} | "
                         f"{_fmt(m.get('prepare_s'))} | {_fmt(m.get('rss_after_start_mb'))} |")
    lines += ["", "## Ratios ferrolog / Kafka (medians)", "",
              "| workload | vs | records/s | CPU s/GB | p99 ms | peak RSS |",
              "|---|---|---|---|---|---|"]
    for r in doc["ratios"]:
        x = r["ferrolog_over_kafka"]
        lines.append(f"| {r['workload']} | {r['vs']} | {_fmt(x.get('records_s'))} | "
                     f"{_fmt(x.get('cpu_s_per_gb'))} | {_fmt(x.get('p99_ms'))} | "
                     f"{_fmt(x.get('peak_rss_mb') or x.get('rss_after_start_mb'))} |")
    failed = [e for e in doc["results"] if e.get("errors")]
    if failed:
        lines += ["", "## Failures", ""]
        lines += [f"- {e['workload']} on {e['broker']}: {'; '.join(e['errors'])}" for e in failed]
    if doc["run"].get("rate_basis"):
        lines += ["", "## Fixed rates", ""]
        lines += [f"- {k}: {doc['run']['rates'][k]:,} records/s ({v})"
                  for k, v in doc["run"]["rate_basis"].items()]
    return "\n".join(lines) + "\n"


def plots(doc: dict[str, Any], out: Path, prefix: str = "") -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    brokers = doc["run"]["brokers"]
    entries = [e for e in doc["results"] if e["workload"] != "startup"]
    charts = [("throughput.png", "records_s", "records/s (median)", lambda e: "rate" not in e),
              ("cpu_per_gb.png", "cpu_s_per_gb", "broker CPU s per GB moved", lambda e: True),
              ("latency_p99.png", "p99_ms", "p99 latency ms at a fixed rate",
               lambda e: "rate" in e or e["workload"].startswith("e2e")),
              ("peak_rss.png", "peak_rss_mb", "peak broker RSS MB", lambda e: True)]
    written = []
    for filename, metric, title, keep in charts:
        names = sorted({e["workload"] for e in entries if keep(e)},
                       key=[e["workload"] for e in entries].index)
        if not names:
            continue
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(names) + 2), 4.5))
        width = 0.8 / len(brokers)
        for i, b in enumerate(brokers):
            vals = []
            for n in names:
                med = next((e["median"] for e in entries
                            if e["workload"] == n and e["broker"] == b), {})
                vals.append(med.get(metric, 0) or 0)
            ax.bar([x + i * width for x in range(len(names))], vals, width, label=b)
        ax.set_xticks([x + width * (len(brokers) - 1) / 2 for x in range(len(names))])
        ax.set_xticklabels(names, rotation=35, ha="right", fontsize=8)
        ax.set_title(title)
        if metric in ("records_s", "p99_ms", "cpu_s_per_gb"):
            ax.set_yscale("log")
        ax.legend()
        fig.tight_layout()
        path = out / f"{prefix}{filename}"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written


def write(doc: dict[str, Any], out_dir: Path, stamp: str, with_plots: bool = True,
          prefix: str = "", render: Callable[[dict[str, Any]], str] | None = None) -> Path:
    """`<prefix>run-<stamp>.json`, `<prefix>latest.json` and `.md`, `plots/<prefix>*.png`: a
    prefix keeps another suite's results (replicated, scale) apart from the single-node ones;
    `render` makes the markdown of a suite whose document is not the matrix's."""
    out_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=1, sort_keys=False)
    (out_dir / f"{prefix}run-{stamp}.json").write_text(text)
    (out_dir / f"{prefix}latest.json").write_text(text)
    (out_dir / f"{prefix}latest.md").write_text((render or markdown)(doc))
    if with_plots:
        plots(doc, out_dir / "plots", prefix)
    return out_dir / f"{prefix}latest.json"
