"""The brokers under test, each started fresh on loopback with equivalent settings:
ferrolog (`python -m ferrolog broker`), Apache Kafka 4.x in KRaft mode (combined
broker+controller) and Apache Kafka 3.9 in ZooKeeper mode (with Debian's ZooKeeper).

Equivalence: the same log directory disk (a temporary directory under the same /tmp), no
per-message fsync (every broker's default: flush left to the OS), 1 GiB segments,
auto-created topics with one partition (workload topics are created explicitly), internal
topics with replication factor 1 and no initial rebalance delay. Kafka gets the heap and
JVM flags its start script ships with (`kafka-server-start.sh`: -Xmx1G -Xms1G, G1)."""

from __future__ import annotations

import base64
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from ferrolog.ports import free_port

from bench.harness import kafka_dist

COMMON = {
    "num.partitions": "1",
    "auto.create.topics.enable": "true",
    "log.segment.bytes": str(1 << 30),
    "offsets.topic.replication.factor": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "group.initial.rebalance.delay.ms": "0",
}

KAFKA_JVM = ["-Xmx1G", "-Xms1G", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
             "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
             "-XX:MaxInlineLevel=15", "-Djava.awt.headless=true"]

ZK_CLASSPATH = "/usr/share/java/zookeeper.jar:/usr/share/java/zookeeper-jute.jar"


def wait_port(port: int, timeout: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


def new_cluster_id() -> str:
    """A KRaft cluster id as Kafka's `Uuid.randomUuid()` makes one: URL-safe base64 of 16
    random bytes, never starting with '-' (StorageTool would read it as an option)."""
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not cid.startswith("-"):
            return cid


def _props(path: Path, props: dict[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


@dataclass
class Broker:
    """One broker process of one kind, with its scratch directory."""

    name: str
    kind: str
    version: str
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="flbench-")))
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    prepare_s: float = 0.0  # work before the broker process can start (KRaft format, ZK)
    # Settings over COMMON (tests shorten group timeouts; benchmarks pass none).
    overrides: dict[str, str] = field(default_factory=dict)
    _aux: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def pids(self) -> list[int]:
        """The broker processes (one here; three for a cluster), each measured as a tree."""
        return [self.pid]

    @property
    def aux_pids(self) -> list[int]:
        return [p.pid for p in self._aux if p.poll() is None]

    @property
    def data_dir(self) -> Path:
        return self.workdir / "data"

    def prepare(self) -> None:
        """Everything before the broker's own process: not part of start-to-first-produce."""

    def command(self) -> list[str]:
        raise NotImplementedError

    def spawn(self) -> None:
        log = open(self.workdir / "broker.out", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log,
                                     stderr=subprocess.STDOUT, cwd=self.workdir)
        log.close()

    def stop(self) -> None:
        for proc in [p for p in [self.proc] if p is not None] + self._aux[::-1]:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.proc = None
        self._aux.clear()

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def topic_bytes(self, topic: str) -> list[int]:
        """Bytes of the topic's log segments (`<topic>-<partition>/*.log`) in each broker's
        log directory (one broker here): with replication, what each replica holds."""
        return [sum(f.stat().st_size for f in self.data_dir.glob(f"{topic}-*/*.log"))]

    def exit_report(self) -> str:
        """If the broker process has exited: its exit code and its log's tail."""
        if self.proc is not None and self.proc.poll() is not None:
            return f"\nbroker exited {self.proc.returncode}:\n{self.log_tail()}"
        return ""

    def log_tail(self, lines: int = 15) -> str:
        try:
            text = (self.workdir / "broker.out").read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


class Ferrolog(Broker):
    def prepare(self) -> None:
        """Byte-compiles the package, as `pip install` of the wheel does: an editable install
        leaves that to the first import, which writes nothing where PYTHONDONTWRITEBYTECODE
        is set (this machine sets it), and then every start compiles ~200 modules again
        (0.9 s to the first acknowledged produce instead of about 0.25)."""
        import ferrolog

        subprocess.run([sys.executable, "-m", "compileall", "-q", *_package_sources(ferrolog)],
                       check=True, stdout=subprocess.DEVNULL)

    def command(self) -> list[str]:
        props = {**COMMON, **self.overrides, "listeners": f"PLAINTEXT://{self.bootstrap}",
                 "log.dirs": str(self.data_dir)}
        cmd = [sys.executable, "-m", "ferrolog", "broker"]
        for k, v in props.items():
            cmd += ["--override", f"{k}={v}"]
        return cmd


def _package_sources(package: ModuleType) -> list[str]:
    """The folders the package's modules come from (an editable install maps subpackages,
    `ferrolog.controller` and `ferrolog.spark`, to folders of their own)."""
    folders = {str(Path(p)) for p in package.__path__}
    for name in ("controller", "spark"):
        sub = importlib.util.find_spec(f"{package.__name__}.{name}")
        if sub is not None and sub.submodule_search_locations:
            folders.update(sub.submodule_search_locations)
    return sorted(folders)


class _Kafka(Broker):
    def _java(self, main: str, *args: str, jvm: list[str] | None = None) -> list[str]:
        log_opts = self._log_config()
        return ["java", *(jvm or []), *log_opts, "-cp", kafka_dist.classpath(self.version),
                main, *args]

    def _log_config(self) -> list[str]:
        # Kafka's own default: INFO to a file in the broker's log directory.
        logfile = self.workdir / "server.log"
        if self.version.startswith("3."):
            cfg = self.workdir / "log4j.properties"
            cfg.write_text("log4j.rootLogger=INFO, F\n"
                           "log4j.appender.F=org.apache.log4j.FileAppender\n"
                           f"log4j.appender.F.File={logfile}\n"
                           "log4j.appender.F.layout=org.apache.log4j.PatternLayout\n"
                           "log4j.appender.F.layout.ConversionPattern=[%d] %p %m (%c)%n\n")
            return [f"-Dlog4j.configuration=file:{cfg}"]
        cfg = self.workdir / "log4j2.properties"
        cfg.write_text("appender.f.type=File\nappender.f.name=F\n"
                       f"appender.f.fileName={logfile}\n"
                       "appender.f.layout.type=PatternLayout\n"
                       "appender.f.layout.pattern=[%d] %p %m (%c)%n\n"
                       "rootLogger.level=INFO\nrootLogger.appenderRef.f.ref=F\n")
        return [f"-Dlog4j2.configurationFile={cfg}"]

    def command(self) -> list[str]:
        return self._java("kafka.Kafka", str(self.workdir / "server.properties"), jvm=KAFKA_JVM)


def kraft_settings(node_id: int, voters: str, bootstrap: str, controller_port: int,
                   data_dir: Path) -> dict[str, str]:
    """A combined broker+controller node of a static KRaft quorum (`voters`:
    `id@host:port,...`), clients on `bootstrap`, controllers on `controller_port`."""
    return {
        "process.roles": "broker,controller",
        "node.id": str(node_id),
        "controller.quorum.voters": voters,
        "listeners": f"PLAINTEXT://{bootstrap},CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners": f"PLAINTEXT://{bootstrap}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "log.dirs": str(data_dir),
    }


# Kafka 4.4 has share groups on by default, and its share coordinator's state topic wants 3
# replicas and 2 in sync: a single node must say 1 or the share coordinator never loads.
SINGLE_NODE_SHARE_STATE = {
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
}


class KafkaKRaft(_Kafka):
    def prepare(self) -> None:
        start = time.monotonic()
        controller_port = free_port()
        _props(self.workdir / "server.properties", {
            **COMMON, **SINGLE_NODE_SHARE_STATE, **self.overrides,
            **kraft_settings(1, f"1@127.0.0.1:{controller_port}", self.bootstrap,
                             controller_port, self.data_dir)})
        cluster_id = new_cluster_id()
        subprocess.run(
            self._java("kafka.tools.StorageTool", "format", "-t", cluster_id, "-c",
                       str(self.workdir / "server.properties")),
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        self.prepare_s = time.monotonic() - start


def start_zookeeper(zk_dir: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Debian's ZooKeeper, standalone on a free loopback port, data under `zk_dir`; returns
    once it listens."""
    zk_port = free_port()
    zk_dir.mkdir()
    cfg = _props(zk_dir / "zoo.cfg", {
        "dataDir": str(zk_dir / "data"), "clientPort": str(zk_port),
        "clientPortAddress": "127.0.0.1", "tickTime": "2000",
        "admin.enableServer": "false", "maxClientCnxns": "0",
    })
    log = open(zk_dir / "zookeeper.out", "ab")  # noqa: SIM115
    zk = subprocess.Popen(
        ["java", "-Xmx512M", "-cp", ZK_CLASSPATH,
         "org.apache.zookeeper.server.quorum.QuorumPeerMain", str(cfg)],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=zk_dir)
    log.close()
    try:
        wait_port(zk_port, 60, zk)
    except RuntimeError:
        zk.kill()
        zk.wait()
        raise
    return zk, zk_port


class KafkaZooKeeper(_Kafka):
    def prepare(self) -> None:
        start = time.monotonic()
        zk, zk_port = start_zookeeper(self.workdir / "zookeeper")
        self._aux.append(zk)
        _props(self.workdir / "server.properties", {
            **COMMON,
            "broker.id": "0",
            "zookeeper.connect": f"127.0.0.1:{zk_port}",
            "listeners": f"PLAINTEXT://{self.bootstrap}",
            "log.dirs": str(self.data_dir),
        })
        self.prepare_s = time.monotonic() - start


def make(name: str) -> Broker:
    if name == "ferrolog":
        return Ferrolog(name, "ferrolog", "native")
    if name == "kafka4":
        return KafkaKRaft(name, "kafka-kraft", kafka_dist.KAFKA4)
    if name == "kafka3zk":
        return KafkaZooKeeper(name, "kafka-zookeeper", kafka_dist.KAFKA3)
    raise ValueError(f"unknown broker {name!r} (ferrolog, kafka4, kafka3zk)")


def jars_available() -> bool:
    return shutil.which("java") is not None and os.path.isdir(kafka_dist.CACHE)
