"""The word count app of bench/streams_bench.py (`java/StreamsWordCountBench.java`, Kafka
Streams 4.4) as a process: its command for a new application.id, and the events it prints
(start, state changes, the last word counted) with their CLOCK_MONOTONIC times."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from bench.harness import kafka_dist

APP = Path(__file__).resolve().parent / "java" / "StreamsWordCountBench.java"
# The app's own log (Kafka's clients and Streams), warnings and errors, in a file per app.
LOG4J2 = """appender.f.type=File
appender.f.name=F
appender.f.fileName={path}
appender.f.layout.type=PatternLayout
appender.f.layout.pattern=[%d] %p %m (%c)%n
rootLogger.level=WARN
rootLogger.appenderRef.f.ref=F
"""


class WordCountApp:
    """One StreamsWordCountBench process: its stdout events with their CLOCK_MONOTONIC
    nanoseconds, and the broker's CPU seconds read the moment the last word is counted."""

    def __init__(self, command: list[str], log: Path, broker_cpu: Callable[[], float]) -> None:
        self.command, self.log, self.broker_cpu = command, log, broker_cpu
        self.events: dict[str, int] = {}
        # Every state change: (state, CLOCK_MONOTONIC ns).
        self.states: list[tuple[str, int]] = []
        self.peeked = -1
        self.cpu_at_counted = 0.0
        self._changed = threading.Condition()
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> WordCountApp:
        with open(self.log.with_suffix(".stderr"), "w") as err:
            self.proc = subprocess.Popen(
                self.command, stdout=subprocess.PIPE, stderr=err, text=True
            )
        threading.Thread(target=self._read, daemon=True).start()
        return self

    def _read(self) -> None:
        assert self.proc is not None
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            kind, *rest = line.split()
            with self._changed:
                if kind == "COUNTED":
                    self.cpu_at_counted = self.broker_cpu()
                    self.events["COUNTED"] = int(rest[0])
                elif kind == "STARTED":
                    self.events["STARTED"] = int(rest[0])
                elif kind == "STATE":
                    self.states.append((rest[0], int(rest[1])))
                    self.events.setdefault(rest[0], int(rest[1]))
                elif kind == "PEEKED":
                    self.peeked = int(rest[0])
                self._changed.notify_all()
        with self._changed:
            self.events["EXIT"] = time.monotonic_ns()
            self._changed.notify_all()

    def wait(self, event: str, timeout: float) -> int:
        """The time of `event` (first seen), once it comes; fails if the app exits first."""
        with self._changed:
            ok = self._changed.wait_for(
                lambda: event in self.events or "EXIT" in self.events, timeout
            )
            if event in self.events:
                return self.events[event]
        tail = self.log.with_suffix(".stderr").read_text()[-3000:]
        raise RuntimeError(
            f"no {event} after {timeout} s" if not ok else f"app exited before {event}:\n{tail}"
        )

    def stop(self) -> None:
        """SIGTERM: the app closes its client, leaving the group, and prints PEEKED."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.wait("EXIT", 10)


def app_command(bootstrap: str, source: str, sink: str, words: int, props: list[str],
                workdir: Path) -> tuple[str, list[str]]:  # fmt: skip
    """A new app's application.id and command (its state directory and log file under
    `workdir`), counting `words` words of `source` into `sink`. Full JIT and a 512 MB heap, as
    an app in production would run (the tests' C1-only JVM starts sooner, then runs slower)."""
    app_id = f"wordcount-bench-{uuid.uuid4().hex[:8]}"
    state = workdir / app_id
    state.mkdir()
    config = workdir / f"{app_id}.log4j2.properties"
    config.write_text(LOG4J2.format(path=workdir / f"{app_id}.log"))
    return app_id, [
        "java", "-Xmx512M", f"-Dlog4j2.configurationFile={config}",
        "-cp", kafka_dist.streams_classpath(), str(APP),
        bootstrap, app_id, source, sink, str(state), str(words),
        "num.stream.threads=2", *props,
    ]  # fmt: skip
