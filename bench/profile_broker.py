"""Profiles a ferrolog broker while a librdkafka producer (or consumer) drives it: py-spy
over the broker's Python threads (is any Python on the produce/fetch path?) and, if `perf`
is present, perf over the whole process (where does the native side spend its CPU?).

    python -m bench.profile_broker [--workload produce|consume|txn] [--seconds 8] [--out DIR]

`txn` drives it with the transaction bench's ProducerPerformance (a commit every 100 ms).

Writes `py-spy.txt` (collapsed stacks, idle samples included, one line per distinct stack
with its count), `perf.txt` (perf report, top symbols) and prints a summary: the share of
py-spy samples in which each Python thread was doing anything but waiting."""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.harness import brokers, runner, workloads

# Frames where a thread of the broker waits rather than works.
IDLE = ("epoll_pwait", "epoll_wait", "PyThread_acquire_lock_timed", "uv__io_poll",
        "pthread_cond_wait", "pthread_cond_timedwait", "__futex_abstimed_wait", "select")


def _driver(mode: str, bootstrap: str, count: int) -> subprocess.Popen[str]:
    if mode == "txn":
        # The transaction bench's perf workload: a commit every 100 ms (`bench.txn_bench`).
        args = [
            "--topic", "profile", "--num-records", str(count), "--record-size", "100",
            "--throughput", "-1", "--transactional-id", "profile",
            "--transaction-duration-ms", "100",
            "--command-property", f"bootstrap.servers={bootstrap}",
        ]  # fmt: skip
        return subprocess.Popen(workloads._java("ProducerPerformance", *args),
                                stdout=subprocess.PIPE, text=True, cwd=workloads.REPO)
    args = ["--bootstrap", bootstrap, "--topic", "profile", "--count", str(count)]
    if mode == "produce":
        args += ["--size", "1024", "--acks", "all"]
    else:
        args += ["--partitions", "6"]
    return subprocess.Popen([sys.executable, "-m", "bench.harness.rdkafka_driver", mode, *args],
                            stdout=subprocess.PIPE, text=True, cwd=workloads.REPO)


def summarize(raw: str) -> dict[str, tuple[int, int, collections.Counter[str]]]:
    """thread -> (samples, busy samples, busy leaf Python frames)."""
    out: dict[str, tuple[int, int, collections.Counter[str]]] = {}
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        thread = frames[0]
        total, busy, leaves = out.get(thread, (0, 0, collections.Counter()))
        n = int(count)
        total += n
        if not any(idle in frames[-1] or idle in stack[-200:] for idle in IDLE):
            busy += n
            py = [f for f in frames if ".py:" in f]
            leaves[py[-1] if py else frames[-1]] += n
        out[thread] = (total, busy, leaves)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workload", choices=["produce", "consume", "txn"], default="produce")
    p.add_argument("--seconds", type=float, default=8)
    p.add_argument("--out", type=Path, default=Path("/tmp/ferrolog-profile"))
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    broker = brokers.make("ferrolog")
    try:
        runner.start_broker(broker)
        workloads.create_topic(broker.bootstrap, "profile", 1 if a.workload == "txn" else 6)
        if a.workload == "consume":
            subprocess.run(_driver("produce", broker.bootstrap, 1_000_000).args, check=True,
                           stdout=subprocess.DEVNULL, cwd=workloads.REPO)
        drive = _driver(a.workload, broker.bootstrap, 50_000_000 if a.workload != "consume"
                        else 1_000_000)
        # Past the client's start (a JVM's takes longer): the profile covers the steady state.
        time.sleep(5 if a.workload == "txn" else 1.5)
        perf = None
        if shutil.which("perf"):
            perf = subprocess.Popen(["perf", "record", "-F", "499", "-g", "-p",
                                     str(broker.pid), "-o", str(a.out / "perf.data"),
                                     "--", "sleep", str(a.seconds)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        spy = subprocess.run(["py-spy", "record", "--native", "--threads", "--idle", "-r", "100",
                              "-d", str(int(a.seconds)), "-p", str(broker.pid), "-f", "raw",
                              "-o", str(a.out / "py-spy.txt")], capture_output=True, text=True)
        if spy.returncode != 0:
            print(spy.stderr[-800:], file=sys.stderr)
            return 1
        if perf is not None:
            perf.wait()
        drive.kill()
        drive.communicate()
    finally:
        broker.cleanup()
    for thread, (total, busy, leaves) in summarize((a.out / "py-spy.txt").read_text()).items():
        print(f"{thread}: {busy}/{total} samples busy")
        for frame, n in leaves.most_common(5):
            print(f"    {n:5d}  {frame}")
    if (a.out / "perf.data").exists():
        rep = subprocess.run(["perf", "report", "-i", str(a.out / "perf.data"), "--stdio",
                              "--no-children", "--sort", "comm,dso,symbol", "--percent-limit",
                              "1", "-g", "none"], capture_output=True, text=True)
        (a.out / "perf.txt").write_text(rep.stdout)
        print("perf, top symbols (whole broker process):")
        print("\n".join(ln for ln in rep.stdout.splitlines() if ln.strip()
                        and not ln.startswith("#"))[:3000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
