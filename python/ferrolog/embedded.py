"""`EmbeddedBroker`: a real ferrolog broker for tests and notebooks, on a free port with a
temporary (or given) data directory.

By default the broker is a child process (`python -m ferrolog broker ...`), so it can be
killed with SIGKILL and restarted on the same data like a production broker; with
`in_process=True` it runs on a background thread of this process instead.

    with EmbeddedBroker() as broker:
        producer = Producer({"bootstrap.servers": broker.bootstrap_servers})
"""

from __future__ import annotations

import asyncio
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

READY_PREFIX = "ferrolog broker ready: bootstrap.servers="
# The broker's log line naming its metrics listener (stdout keeps its one ready line).
_METRICS_LOGGED = re.compile(r'msg="metrics listening url=(\S+)"')


class BrokerStartError(RuntimeError):
    """The broker did not come up; the message has the end of its log."""


class EmbeddedBroker:
    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        in_process: bool = False,
        overrides: Mapping[str, str] | None = None,
        startup_timeout: float = 30.0,
    ) -> None:
        self.in_process = in_process
        self.startup_timeout = startup_timeout
        self._workdir = Path(tempfile.mkdtemp(prefix="ferrolog-"))
        self.data_dir = Path(data_dir) if data_dir is not None else self._workdir / "data"
        self.log_path = self._workdir / "broker.log"
        self._overrides = dict(overrides or {})
        self._bootstrap: str | None = None
        # `http://host:port` of /metrics, /healthz and /readyz (None: not listening).
        self.metrics_url: str | None = None
        self._port = 0  # kept across restarts so clients' bootstrap addresses stay valid
        self._process: subprocess.Popen[str] | None = None
        self._log_file: IO[str] | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        # At interpreter exit (or garbage collection) a forgotten child broker is terminated
        # and the temporary files removed, so test runs do not leave brokers behind.
        self._children: list[subprocess.Popen[str]] = []
        self._finalizer = weakref.finalize(self, _cleanup, self._children, self._workdir)

    # Public surface

    @property
    def bootstrap_servers(self) -> str:
        if self._bootstrap is None:
            raise RuntimeError("the broker is not running")
        return self._bootstrap

    @property
    def running(self) -> bool:
        return self._bootstrap is not None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def settings(self) -> dict[str, str]:
        """The broker properties the broker is started with."""
        return {
            "listeners": f"PLAINTEXT://127.0.0.1:{self._port}",
            "log.dirs": str(self.data_dir),
            # A free port, like the listener's: tests run many brokers on one machine.
            "metrics.listener": "http://127.0.0.1:0",
            **self._overrides,
        }

    def start(self) -> EmbeddedBroker:
        if self.running:
            raise RuntimeError("the broker is already running")
        try:
            self._start_once()
        except BrokerStartError:
            if not self._port or "listeners" in self._overrides:
                raise
            self._port = 0  # the old port was taken meanwhile: any port will do
            self._start_once()
        self._port = int(self.bootstrap_servers.rpartition(":")[2])
        return self

    def stop(self) -> None:
        """Controlled shutdown (SIGTERM for a child process). Idempotent."""
        if self._process is not None:
            if self._process.poll() is None:
                self._process.send_signal(signal.SIGTERM)
                try:
                    self._process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
            self._reap()
        elif self._thread is not None:
            loop, event = self._loop, self._stop_event
            if loop is not None and event is not None and not loop.is_closed():
                loop.call_soon_threadsafe(event.set)
            self._thread.join(timeout=30)
            self._thread = None
        self._bootstrap = None
        self.metrics_url = None

    def kill(self) -> None:
        """SIGKILL: the broker dies without flushing or checkpointing (child process only)."""
        if self._process is None:
            raise RuntimeError("kill() needs a child-process broker (in_process=False)")
        self._process.kill()
        self._process.wait()
        self._reap()
        self._bootstrap = None
        self.metrics_url = None

    def restart(self) -> EmbeddedBroker:
        """Stops the broker if it runs, then starts it again on the same data (and, if free,
        the same port)."""
        self.stop()
        return self.start()

    def close(self) -> None:
        """Stops the broker and removes temporary files (the data too, unless it was given)."""
        self.stop()
        # A given data directory lives outside the work directory and is kept.
        self._finalizer()

    def __enter__(self) -> EmbeddedBroker:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> EmbeddedBroker:
        return await asyncio.to_thread(self.start)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)

    def __repr__(self) -> str:
        mode = "in-process" if self.in_process else "child"
        return f"EmbeddedBroker({mode}, bootstrap={self._bootstrap}, data={self.data_dir})"

    # Starting

    def _start_once(self) -> None:
        if self.in_process:
            self._start_thread()
        else:
            self._start_child()

    def _start_child(self) -> None:
        command = [sys.executable, "-m", "ferrolog", "broker"]
        for key, value in self.settings().items():
            command += ["--override", f"{key}={value}"]
        self._log_file = open(self.log_path, "a", encoding="utf-8")  # noqa: SIM115
        logged_from = self._log_file.tell()
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._log_file,
            text=True,
        )
        self._children[:] = [self._process]
        assert self._process.stdout is not None
        deadline = time.monotonic() + self.startup_timeout
        with selectors.DefaultSelector() as selector:
            selector.register(self._process.stdout, selectors.EVENT_READ)
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._process.kill()
                    self._process.wait()
                    self._reap()
                    raise BrokerStartError(
                        f"no ready line within {self.startup_timeout}s" + self._log_tail()
                    )
                if not selector.select(timeout=remaining):
                    continue
                line = self._process.stdout.readline()
                if line.startswith(READY_PREFIX):
                    self._bootstrap = line[len(READY_PREFIX) :].strip()
                    self.metrics_url = self._logged_metrics_url(logged_from)
                    return
                if not line:  # EOF: the child exited
                    code = self._process.wait()
                    self._reap()
                    raise BrokerStartError(f"the broker exited with {code}" + self._log_tail())

    def _logged_metrics_url(self, offset: int) -> str | None:
        """The metrics listener this start logged (before its ready line) from `offset` of
        the log on, if any."""
        with open(self.log_path, "rb") as log:
            log.seek(offset)
            found = _METRICS_LOGGED.findall(log.read().decode(errors="replace"))
        return found[-1] if found else None

    def _reap(self) -> None:
        if self._process is not None and self._process.stdout is not None:
            self._process.stdout.close()
        self._process = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def _log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n" + "\n".join(text.splitlines()[-lines:])

    def _start_thread(self) -> None:
        from ferrolog.broker import Broker, new_event_loop, serve
        from ferrolog.config import BrokerConfig

        config = BrokerConfig(self.settings())
        ready = threading.Event()
        outcome: dict[str, Any] = {}

        def on_ready(broker: Broker) -> None:
            outcome["bootstrap"] = broker.bootstrap
            outcome["metrics"] = broker.metrics.url if broker.metrics is not None else None
            ready.set()

        def run() -> None:
            loop = new_event_loop()
            self._loop = loop
            try:
                self._stop_event = asyncio.Event()
                loop.run_until_complete(serve(config, on_ready, self._stop_event))
            except BaseException as exc:
                outcome["error"] = exc
            finally:
                ready.set()
                loop.close()

        self._thread = threading.Thread(target=run, name="ferrolog-embedded", daemon=True)
        self._thread.start()
        if not ready.wait(self.startup_timeout):
            raise BrokerStartError(f"no start within {self.startup_timeout}s")
        if "error" in outcome:
            self._thread.join()
            self._thread = None
            raise BrokerStartError(f"the broker failed to start: {outcome['error']!r}")
        self._bootstrap = str(outcome["bootstrap"])
        self.metrics_url = outcome["metrics"]


def _cleanup(children: list[subprocess.Popen[str]], workdir: Path) -> None:
    for child in children:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
    shutil.rmtree(workdir, ignore_errors=True)
