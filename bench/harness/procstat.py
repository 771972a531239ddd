"""Broker cost from /proc: CPU seconds of a process tree and its peak resident memory.

CPU is utime+stime of every live process in the tree plus cutime+cstime (children that
exited and were reaped), read in clock ticks. Peak RSS is VmHWM; writing "5" to
/proc/<pid>/clear_refs resets it, so each workload gets its own peak."""

from __future__ import annotations

import os
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _children(pid: int) -> list[int]:
    out: list[int] = []
    task_dir = Path(f"/proc/{pid}/task")
    try:
        tasks = list(task_dir.iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def tree(pid: int) -> list[int]:
    """`pid` and all its descendants alive now."""
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        seen.append(p)
        todo += _children(p)
    return seen


def _stat_ticks(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    # The command name may hold spaces and parentheses: fields start after the last ')'.
    fields = text[text.rindex(")") + 2 :].split()
    utime, stime, cutime, cstime = (int(f) for f in fields[11:15])
    return utime + stime + cutime + cstime


def cpu_seconds(pid: int) -> float:
    return sum(_stat_ticks(p) for p in tree(pid)) / _TICK


def _status_kb(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def peak_rss_bytes(pid: int) -> int:
    """Sum of the tree's VmHWM (for the brokers here the tree is one process)."""
    return sum(_status_kb(p, "VmHWM") for p in tree(pid)) * 1024


def rss_bytes(pid: int) -> int:
    return sum(_status_kb(p, "VmRSS") for p in tree(pid)) * 1024


def reset_peak_rss(pid: int) -> bool:
    """Starts a new VmHWM window; False if the kernel refused (then the peak is since start)."""
    ok = True
    for p in tree(pid):
        try:
            Path(f"/proc/{p}/clear_refs").write_text("5")
        except OSError:
            ok = False
    return ok


class Meter:
    """CPU and peak RSS of one or more process trees over one window (one workload): CPU is
    summed over the trees, the peak is per tree (one tree per broker)."""

    def __init__(self, *pids: int) -> None:
        self.pids = pids
        self.windowed_peak = all([reset_peak_rss(p) for p in pids])
        self._cpu0 = sum(cpu_seconds(p) for p in pids)

    def peaks(self) -> list[int]:
        """Peak RSS of each tree since the window started, in the order of the pids."""
        return [peak_rss_bytes(p) for p in self.pids]

    def read(self) -> tuple[float, int]:
        """CPU seconds of all the trees, and the largest per-tree peak RSS."""
        cpu = sum(cpu_seconds(p) for p in self.pids) - self._cpu0
        return cpu, max(self.peaks())
