"""Unit tests of the side-by-side harness (no broker, no Java): /proc accounting, the tools'
output parsers, round alternation and fixed rates, aggregation, ratios, targets and the
report files. The end-to-end smoke run is `make bench-smoke`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.harness import cluster, procstat, report, runner, scale_report, workloads
from bench.harness.matrix import MATRICES
from bench.harness.workloads import Workload


def _reap(child: subprocess.Popen[str]) -> None:
    child.kill()
    child.communicate()  # closes the pipes too: pytest turns unclosed files into errors


def test_cpu_seconds_counts_threads_and_reaped_children() -> None:
    # The child burns CPU on two threads and in a grandchild it waits for, then reports its
    # own CPU clock (all its threads) and its reaped children's; /proc must account for both.
    code = (
        "import os, subprocess, sys, threading, time\n"
        "def spin():\n    while time.process_time() < 0.4: pass\n"
        "t = threading.Thread(target=spin); t.start(); spin(); t.join()\n"
        "subprocess.run([sys.executable, '-c', "
        "'import time\\nwhile time.process_time() < 0.3: pass'])\n"
        "c = os.times()\n"
        "print(c.user + c.system, c.children_user + c.children_system, flush=True)\n"
        "sys.stdin.readline()"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        own, reaped = (float(x) for x in child.stdout.readline().split())
        assert own >= 0.35  # os.times() counts in 10 ms ticks
        assert reaped >= 0.25
        measured = procstat.cpu_seconds(child.pid)
        assert own + reaped - 0.05 <= measured <= own + reaped + 0.1
    finally:
        _reap(child)


def test_peak_rss_window_resets() -> None:
    code = ("import sys, time\nb = bytearray(150_000_000)\n"
            "for i in range(0, len(b), 4096): b[i] = 1\n"
            "del b\nprint('freed', flush=True)\nsys.stdin.readline()")
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "freed"
        assert procstat.peak_rss_bytes(child.pid) > 150_000_000
        meter = procstat.Meter(child.pid)
        assert meter.windowed_peak
        _, peak = meter.read()
        assert peak < 100_000_000  # the 150 MB buffer is gone and the window is new
    finally:
        _reap(child)


def test_tree_includes_grandchildren() -> None:
    code = ("import subprocess, sys\n"
            "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
            "print(c.pid, flush=True); c.wait()")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        grandchild = int(child.stdout.readline())
        assert grandchild in procstat.tree(child.pid)
    finally:
        subprocess.run(["kill", str(grandchild)], check=False)
        _reap(child)


def test_parse_producer_performance_takes_the_final_summary() -> None:
    out = ("50001 records sent, 10000.2 records/sec (0.95 MB/sec), 3.1 ms avg latency, "
           "40.0 ms max latency.\n"
           "100000 records sent, 19950.1 records/sec (1.90 MB/sec), 2.50 ms avg latency, "
           "41.00 ms max latency, 2 ms 50th, 6 ms 95th, 12 ms 99th, 33 ms 99.9th.\n")
    res = workloads.parse_producer_performance(out)
    assert res["records"] == 100000
    assert res["seconds"] == pytest.approx(100000 / 19950.1)
    assert (res["p50_ms"], res["p99_ms"], res["p999_ms"]) == (2, 12, 33)
    with pytest.raises(RuntimeError):
        workloads.parse_producer_performance("Exception in thread main")


def test_parse_consumer_performance_uses_fetch_time() -> None:
    out = ("start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, "
           "nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec\n"
           "2026-01-01 10:00:00:000, 2026-01-01 10:00:05:000, 95.3, 19.0, 1000000, 200000.0, "
           "3000, 2000, 47.6, 500000.0\n")
    res = workloads.parse_consumer_performance(out)
    assert res == {"records": 1000000, "seconds": 2.0, "rebalance_ms": 3000.0}


def test_parse_end_to_end_latency() -> None:
    out = "0\t2.1\nAvg latency: 1.5000 ms\nPercentiles: 50th = 1, 99th = 4, 99.9th = 9\n"
    res = workloads.parse_end_to_end_latency(out, 1000)
    assert res["seconds"] == pytest.approx(1.5)
    assert (res["p50_ms"], res["p99_ms"], res["p999_ms"]) == (1, 4, 9)


def test_rounds_alternate_and_kafka_goes_first() -> None:
    m = runner.Matrix([], ["ferrolog", "kafka4", "kafka3zk"], 3)
    orders = [m.order(r) for r in range(3)]
    assert orders[0][0] == "kafka4"  # the rate reference runs first
    assert all(sorted(o) == sorted(m.broker_names) for o in orders)
    assert [o[0] for o in orders] == ["kafka4", "ferrolog", "kafka3zk"]


def test_fixed_rate_is_set_once_from_the_reference() -> None:
    ws = [Workload("max", "java-produce", count=10),
          Workload("lat", "java-produce", rate_of="max"),
          Workload("e2e", "rd-e2e", rate_of="max")]
    m = runner.Matrix(ws, ["ferrolog", "kafka4"], 2)
    runner._set_rates(m, "max", 1_000_000.0, "kafka4")
    runner._set_rates(m, "max", 10.0, "kafka4")  # a later round does not move the rate
    assert m.rates["lat"] == 500_000
    assert m.rates["e2e"] == runner.RD_E2E_MAX_RATE  # the Python driver's cap, recorded
    assert "capped" in m.rate_basis["e2e"]


def test_matrices_are_consistent() -> None:
    for make in MATRICES.values():
        ws = make()
        names = [w.name for w in ws]
        assert len(names) == len(set(names))
        for w in ws:
            # Sources and rate references run earlier in the same broker run.
            for dep in (w.source, w.rate_of):
                assert dep is None or names.index(dep) < names.index(w.name)
    assert not any(w.java for w in MATRICES["smoke"]())  # CI has no Kafka jars


def _samples() -> list[dict]:
    out = []
    for rnd, (f, k) in enumerate([(300.0, 100.0), (200.0, 120.0), (250.0, 80.0)]):
        out.append({"workload": "startup", "broker": "ferrolog", "round": rnd,
                    "metrics": {"start_to_first_ack_s": 0.3, "prepare_s": 0.0,
                                "rss_after_start_mb": 35.0}})
        out.append({"workload": "startup", "broker": "kafka4", "round": rnd,
                    "metrics": {"start_to_first_ack_s": 3.0, "prepare_s": 1.5,
                                "rss_after_start_mb": 400.0}})
        for broker, rps, cpu, rss in (("ferrolog", f, 1.0, 40.0), ("kafka4", k, 10.0, 500.0)):
            out.append({"workload": "max", "broker": broker, "round": rnd,
                        "metrics": {"records_s": rps, "mb_s": rps / 1000, "cpu_s": cpu,
                                    "cpu_s_per_gb": cpu * 2, "peak_rss_mb": rss}})
    out.append({"workload": "lat", "broker": "ferrolog", "round": 0, "error": "boom\nmore"})
    return out


def test_aggregate_ratios_targets_and_report(tmp_path: Path) -> None:
    ws = [Workload("max", "java-produce", count=10),
          Workload("lat", "java-produce", rate_of="max")]
    entries = report.aggregate(_samples(), ws, ["ferrolog", "kafka4"])
    by = {(e["workload"], e["broker"]): e for e in entries}
    assert by["max", "ferrolog"]["median"]["records_s"] == 250.0
    assert by["max", "kafka4"]["median"]["records_s"] == 100.0
    assert by["lat", "ferrolog"]["errors"] == ["boom"]
    rats = report.ratios(entries, ["kafka4"])
    max_ratio = next(r for r in rats if r["workload"] == "max")["ferrolog_over_kafka"]
    assert max_ratio["records_s"] == pytest.approx(2.5)
    assert max_ratio["cpu_s_per_gb"] == pytest.approx(0.1)
    tg = {t["target"]: t for t in report.targets(rats, entries, ws, "kafka4")}
    assert tg["produce throughput (records/s)"]["met"] is True
    assert tg["broker CPU s per GB"]["met"] is True
    assert tg["peak broker RSS"]["ratio"] == pytest.approx(0.08)
    assert tg["p99 latency at the same rate"]["met"] is None  # no data is not a pass
    assert tg["ferrolog start to first acknowledged produce (s)"]["met"] is True

    doc = {"run": {"mode": "test", "finished": "now", "brokers": ["ferrolog", "kafka4"],
                   "rounds": 3, "machine": {"nproc": 2, "load_before": "1", "load_after": "1"},
                   "rates": {}, "rate_basis": {}},
           "workloads": {w.name: w.describe for w in ws}, "results": entries,
           "ratios": rats, "targets": list(tg.values())}
    assert any("lat on ferrolog" in p for p in report.problems(doc))
    path = report.write(doc, tmp_path, "stamp")
    assert json.loads(path.read_text())["ratios"] == rats
    md = (tmp_path / "latest.md").read_text()
    assert "| max | ferrolog | 250 |" in md
    assert "| lat on ferrolog" not in md
    assert "- lat on ferrolog: boom" in md
    for png in ("throughput.png", "cpu_per_gb.png", "peak_rss.png"):
        assert (tmp_path / "plots" / png).read_bytes().startswith(b"\x89PNG")


def test_meter_sums_cpu_over_brokers_and_keeps_each_peak() -> None:
    # Two "brokers": one burns CPU, the other holds 150 MB; a cluster's CPU is the sum, its
    # peak RSS per broker is kept apart (the largest is the figure reported).
    burn = ("import sys, time\nt = time.process_time()\n"
            "while time.process_time() - t < 0.3: pass\nprint('done', flush=True)\n"
            "sys.stdin.readline()")
    hold = ("import sys\nb = bytearray(150_000_000)\n"
            "for i in range(0, len(b), 4096): b[i] = 1\nprint('done', flush=True)\n"
            "sys.stdin.readline()")
    go = "import sys\nsys.stdin.readline()\n"
    children = [subprocess.Popen([sys.executable, "-c", go + code], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True) for code in (burn, hold)]
    try:
        meter = procstat.Meter(*(c.pid for c in children))
        for c in children:
            assert c.stdin is not None
            c.stdin.write("\n")
            c.stdin.flush()
        for c in children:
            assert c.stdout is not None
            assert c.stdout.readline().strip() == "done"
        cpu, peak = meter.read()
        assert cpu >= 0.3
        small, big = meter.peaks()
        assert big > 150_000_000 > small
        assert peak == big
    finally:
        for c in children:
            _reap(c)


def test_cluster_brokers_get_the_same_replication_settings() -> None:
    # No ZooKeeper and no Java: only the settings each kind of broker would start with.
    kafka = cluster.KafkaZkCluster("kafka3zk", "kafka-zookeeper-cluster", "3.9.1")
    ferro = cluster.FerrologCluster("ferrolog", "ferrolog-cluster", "native")
    try:
        knode = kafka._node(2, "127.0.0.1:1/kafka")
        props = dict(line.split("=", 1) for line in
                     (knode.workdir / "server.properties").read_text().splitlines())
        fnode = ferro._node(2, "127.0.0.1:1/ferrolog")
        cmd = fnode.command()
        overrides = dict(cmd[i + 1].split("=", 1) for i, a in enumerate(cmd) if a == "--override")
        for settings in (props, overrides):
            assert settings["default.replication.factor"] == "3"
            assert settings["min.insync.replicas"] == "2"
            assert settings["broker.id"] == "2"
            assert settings["log.segment.bytes"] == str(1 << 30)
            assert settings["listeners"].startswith("PLAINTEXT://127.0.0.1:")
        assert {k: v for k, v in props.items() if k not in ("zookeeper.connect", "listeners",
                                                                "log.dirs")} == \
            {k: v for k, v in overrides.items() if k not in ("zookeeper.connect", "listeners",
                                                              "log.dirs")}
    finally:
        kafka.cleanup()
        ferro.cleanup()


def test_replicated_results_keep_the_single_node_files(tmp_path: Path) -> None:
    ws = [Workload("max", "java-produce", count=10)]
    entries = report.aggregate(_samples(), ws, ["ferrolog", "kafka4"])
    doc = {"run": {"mode": "replicated", "finished": "now", "brokers": ["ferrolog", "kafka4"],
                   "rounds": 3, "machine": {"nproc": 2, "load_before": "1", "load_after": "1"},
                   "rates": {}, "rate_basis": {}, "setup": "Replicated: three and three."},
           "workloads": {w.name: w.describe for w in ws}, "results": entries,
           "ratios": report.ratios(entries, ["kafka4"]), "targets": []}
    (tmp_path / "latest.json").write_text("single-node")
    path = report.write(doc, tmp_path, "stamp", prefix="replicated-")
    assert path == tmp_path / "replicated-latest.json"
    assert (tmp_path / "latest.json").read_text() == "single-node"
    assert (tmp_path / "replicated-run-stamp.json").exists()
    assert "Replicated: three and three." in (tmp_path / "replicated-latest.md").read_text()
    assert (tmp_path / "plots" / "replicated-throughput.png").exists()
    assert not (tmp_path / "plots" / "throughput.png").exists()


def test_topic_bytes_counts_each_replicas_segments() -> None:
    ferro = cluster.FerrologCluster("ferrolog", "ferrolog-cluster", "native")
    try:
        ferro.nodes = [ferro._node(i, "127.0.0.1:1/ferrolog") for i in (1, 2, 3)]
        for node, size in zip(ferro.nodes, (300, 300, 100), strict=True):
            for part in (0, 1):
                d = node.data_dir / f"t-{part}"
                d.mkdir(parents=True)
                (d / "00000000000000000000.log").write_bytes(b"x" * size)
                (d / "00000000000000000000.index").write_bytes(b"\0" * 4096)  # preallocated
            (node.data_dir / "other-0").mkdir()
            (node.data_dir / "other-0" / "00000000000000000000.log").write_bytes(b"y" * 7)
        assert ferro.topic_bytes("t") == [600, 600, 200]
    finally:
        ferro.cleanup()


def test_scale_mode_runs_every_phase_small(tmp_path: Path) -> None:
    # The scale mode end to end against ferrolog alone, at sizes CI can afford (no Java): every
    # phase runs, checks its read-back and fills its rows; `--check` fails on any error.
    args = ["--mode", "scale", "--brokers", "ferrolog", "--partitions", "50", "--records", "2",
            "--load-partitions", "50", "--load-records", "5000", "--replicated-partitions",
            "30", "--replicated-records", "3000", "--idle", "200", "--producers", "20",
            "--seconds", "2", "--no-java", "--consume-rounds", "2", "--out", str(tmp_path),
            "--check"]
    proc = subprocess.run([sys.executable, "-m", "bench.run", *args], capture_output=True,
                          text=True, timeout=300, cwd=workloads.REPO, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    doc = json.loads((tmp_path / "scale-latest.json").read_text())
    assert [s["phase"] for s in doc["samples"]] == ["crash-50", "load", "replicated", "conns"]
    assert all("metrics" in s for s in doc["samples"])
    figures = {(r["phase"], r["key"]): r["ferrolog"] for r in doc["rows"]}
    assert figures["crash-50", "records_checked"] == 50 * 3  # two before the crash, one after
    assert figures["replicated", "records_checked"] == 30 * 3
    for key in [("crash-50", "create_s"), ("crash-50", "restart_s"), ("crash-50", "stop_s"),
                ("crash-50", "peak_rss_mb"), ("load", "rd-produce.records_s"),
                ("load", "rd-consume.records_s"), ("load", "rd-consume-short-backoff.records_s"),
                ("load", "rd-consume.client_cpu_s_per_gb"), ("load", "kcat-consume.records_s"),
                ("load", "kcat-consume.client_cpu_s_per_gb"),
                ("replicated", "restart_to_full_isr_s"), ("replicated", "rd-produce.records_s"),
                ("conns", "rss_idle_mb")]:
        assert (figures[key] or 0) > 0, key
    assert figures["conns", "errors"] == 0
    load = next(s["metrics"] for s in doc["samples"] if s["phase"] == "load")
    assert len(load["rd-consume"]["rounds_records_s"]) == 2
    assert load["rd-consume"]["records_s"] in load["rd-consume"]["rounds_records_s"]
    assert figures["conns", "records_acked"] >= 20  # each producer's first record at least
    assert (tmp_path / "scale-latest.md").read_text().count("| crash-50 |") == 9
    assert len(list(tmp_path.glob("scale-run-*.json"))) == 1


def test_scale_report_marks_goals_and_lost_records() -> None:
    def sample(broker: str, **metrics: float) -> dict:
        return {"phase": "crash-10", "kind": "crash", "partitions": 10, "broker": broker,
                "metrics": metrics, "wall_s": 1.0}

    samples = [sample("kafka4", create_s=2.0, restart_s=10.0, peak_rss_mb=400.0),
               sample("ferrolog", create_s=1.0, restart_s=6.0, peak_rss_mb=40.0),
               {"phase": "load", "kind": "load", "partitions": 10, "broker": "kafka4",
                "metrics": {"rd-produce": {"records_s": 100.0}}, "wall_s": 1.0},
               {"phase": "load", "kind": "load", "partitions": 10, "broker": "ferrolog",
                "error": "LostRecords: LOST 3", "lost": True, "wall_s": 1.0}]
    rows = {(r["phase"], r["key"]): r for r in scale_report.rows(samples, "kafka4")}
    assert rows["crash-10", "create_s"]["ratio"] == pytest.approx(0.5)
    assert rows["crash-10", "create_s"]["met"] is True
    assert rows["crash-10", "restart_s"]["met"] is False  # 0.6 > 0.5
    assert rows["crash-10", "peak_rss_mb"]["met"] is True
    assert rows["crash-10", "stop_s"]["met"] is None  # no figure is not a pass
    assert rows["load", "rd-produce.records_s"]["kafka"] == 100.0
    assert rows["load", "rd-produce.records_s"]["met"] is None
    doc = {"samples": samples, "rows": list(rows.values())}
    assert any("LOST ACKNOWLEDGED RECORDS" in p for p in scale_report.problems(doc))


def test_scale_report_takes_the_median_of_the_rounds() -> None:
    def sample(broker: str, r: int, **metrics: float) -> dict:
        return {"phase": "replicated", "kind": "replicated", "partitions": 10, "broker": broker,
                "round": r, "metrics": metrics, "wall_s": 1.0}

    samples = [sample("kafka4", 0, restart_to_full_isr_s=20.0),
               sample("ferrolog", 0, restart_to_full_isr_s=30.0),
               sample("kafka4", 1, restart_to_full_isr_s=24.0),
               sample("ferrolog", 1, restart_to_full_isr_s=8.0),
               sample("kafka4", 2, restart_to_full_isr_s=22.0),
               {"phase": "replicated", "kind": "replicated", "partitions": 10,
                "broker": "ferrolog", "round": 2, "error": "TimeoutError", "wall_s": 1.0}]
    rows = {r["key"]: r for r in scale_report.rows(samples, "kafka4")}
    isr = rows["restart_to_full_isr_s"]
    assert isr["kafka"] == 22.0
    assert isr["ferrolog"] == 19.0  # the failed round has no figure; it is a failure instead
    assert isr["ferrolog_rounds"] == [30.0, 8.0]
    assert isr["ratio"] == pytest.approx(19.0 / 22.0)
    assert isr["met"] is False
    doc = {"run": {"finished": "-", "brokers": ["ferrolog", "kafka4"], "kafka": "kafka4",
                   "versions": {"kafka4": "4.1.1"}, "wall_s": 1.0, "rounds": 3,
                   "machine": {"nproc": 2, "load_before": "", "load_after": ""}, "phases": []},
           "samples": samples, "rows": list(rows.values())}
    text = scale_report.markdown(doc)
    assert "| 19 (8-30) | 22 (20-24) |" in text
    assert "medians" in text
    assert any("replicated on ferrolog" in p for p in scale_report.problems(doc))
