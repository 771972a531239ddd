"""A real Prometheus server (Debian's `prometheus` package) for the tests: it scrapes the
brokers' metrics listeners every second on loopback, with its storage in a temporary
directory, and answers PromQL through its HTTP API, as an operator's would."""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from ferrolog.ports import free_port

from tests.waiting import wait_until

BINARY = "prometheus"
SCRAPE_INTERVAL = "1s"


def available() -> bool:
    return shutil.which(BINARY) is not None


class Prometheus:
    def __init__(self, workdir: Path, targets: dict[int, str]) -> None:
        """`targets`: broker id -> its `http://host:port` metrics listener."""
        self.dir = workdir
        self.targets = targets
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Prometheus:
        self.dir.mkdir(parents=True, exist_ok=True)
        # Each broker its own target group, labelled with its id, so queries can name it.
        groups = [
            {"targets": [url.removeprefix("http://")], "labels": {"broker": str(node)}}
            for node, url in sorted(self.targets.items())
        ]
        config = {
            "global": {"scrape_interval": SCRAPE_INTERVAL, "scrape_timeout": SCRAPE_INTERVAL},
            "scrape_configs": [{"job_name": "ferrolog", "static_configs": groups}],
        }
        # JSON is YAML: no YAML writer needed.
        (self.dir / "prometheus.yml").write_text(json.dumps(config))
        log = open(self.dir / "prometheus.log", "wb")  # noqa: SIM115 - handed to the child
        self.proc = subprocess.Popen(
            [
                BINARY,
                f"--config.file={self.dir / 'prometheus.yml'}",
                f"--storage.tsdb.path={self.dir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.dir,
        )
        log.close()
        wait_until(self._ready, 60, step=0.25, what=f"Prometheus ready ({self.log_path})")
        return self

    @property
    def log_path(self) -> Path:
        return self.dir / "prometheus.log"

    def _ready(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise RuntimeError(f"Prometheus exited: {self.log_path.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{self.url}/-/ready", timeout=5) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    def query(self, expr: str) -> list[tuple[dict[str, str], float]]:
        """An instant query's result vector: each series' labels and value."""
        url = f"{self.url}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        with urllib.request.urlopen(url, timeout=10) as response:
            body: dict[str, Any] = json.load(response)
        assert body["status"] == "success", body
        assert body["data"]["resultType"] == "vector", body
        return [(r["metric"], float(r["value"][1])) for r in body["data"]["result"]]

    def scalar(self, expr: str) -> float | None:
        """The value of a query that gives at most one series (an aggregate, say)."""
        result = self.query(expr)
        assert len(result) <= 1, result
        return result[0][1] if result else None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None
