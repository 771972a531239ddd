"""Fault-test harness: a real ZooKeeper (Debian's package) and real broker processes
(`python -m ferrolog broker --override ...`) on loopback, which tests kill -9, pause, resume,
stop and restart.

Every broker keeps its port and data directory across restarts, so clients' bootstrap lists
stay valid. Each cluster lives under its own ZooKeeper chroot, so one ZooKeeper serves a whole
test session."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.embedded import READY_PREFIX
from ferrolog.ports import free_port
from kazoo.client import KazooClient

from bench.harness import brokers, kafka_dist
from tests.waiting import wait_until

ZK_JARS = "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar"
ZK_SESSION_MS = 4000
LAG_MS = 2000

# Short timeouts keep each failure scenario within seconds.
BROKER_DEFAULTS = {
    "zookeeper.session.timeout.ms": str(ZK_SESSION_MS),
    "replica.lag.time.max.ms": str(LAG_MS),
    "default.replication.factor": "3",
    "min.insync.replicas": "2",
    "offsets.topic.num.partitions": "3",
    "offsets.topic.replication.factor": "3",
    "group.initial.rebalance.delay.ms": "0",
    "controlled.shutdown.timeout.ms": "10000",
    "auto.create.topics.enable": "false",
    "replica.fetch.wait.max.ms": "200",
    "replica.fetch.backoff.ms": "200",
    "replica.socket.timeout.ms": "3000",
}


# Tests that run Kafka's own Java clients or tools against the cluster.
needs_kafka_jars = pytest.mark.skipif(
    not brokers.jars_available()
    or not (kafka_dist.libs_dir(kafka_dist.KAFKA4) / ".complete").exists(),
    reason="needs java and Kafka's jars (make kafka-jars fetches them)",
)


def java_command(main: str, *args: str) -> list[str]:
    """Runs the Java class `main` of Kafka 4.1's jars. The tests' Java tools and clients are
    short-lived and move little data: the C1 compiler alone and the serial collector halve
    the JVM's share of a run on two cores (measured on the SASL console-tool cases, 35 s to
    20 s for six)."""
    return [
        "java", "-Xmx256M", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-cp", kafka_dist.classpath(kafka_dist.KAFKA4), main, *args,
    ]  # fmt: skip


class ZooKeeper:
    """A standalone ZooKeeper server in a temporary directory (tickTime 500 ms, so sessions
    as short as 1 s are allowed)."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def connect(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "zoo.cfg").write_text(
            f"tickTime=500\ndataDir={self.dir / 'data'}\nclientPort={self.port}\n"
            "clientPortAddress=127.0.0.1\nadmin.enableServer=false\nmaxSessionTimeout=20000\n"
        )
        log = open(self.dir / "zk.log", "wb")  # noqa: SIM115 - handed to the child
        self.proc = subprocess.Popen(
            [
                "java",
                "-Xmx256m",
                "-cp",
                ZK_JARS,
                "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                str(self.dir / "zoo.cfg"),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.dir,
        )
        log.close()
        proc = self.proc

        def listening() -> bool:
            # Plain sockets: kazoo leaks a socket per refused connect.
            if proc.poll() is not None:
                raise RuntimeError(f"ZooKeeper did not start: {self.dir / 'zk.log'}")
            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", self.port)) == 0

        wait_until(listening, 30, what=f"ZooKeeper to listen (log: {self.dir / 'zk.log'})")
        client = KazooClient(self.connect)
        client.start(timeout=20)
        client.stop()
        client.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def client(self, chroot: str = "") -> KazooClient:
        client = KazooClient(self.connect + chroot)
        client.start(timeout=10)
        return client


_METRICS_LOGGED = re.compile(r'msg="metrics listening url=(\S+)"')


class BrokerProcess:
    def __init__(
        self, node_id: int, port: int, data: Path, zk_connect: str, overrides: dict[str, str]
    ) -> None:
        self.node_id = node_id
        self.port = port
        self.data = data
        self.zk_connect = zk_connect
        self.overrides = overrides
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = data.parent / f"broker-{node_id}.log"
        self.paused = False
        self.starts = 0
        # Where the log stood when the process last started.
        self._log_offset = 0

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def metrics_url(self) -> str:
        """`http://host:port` of its /metrics, /healthz and /readyz, as the running process
        logged it (waiting for that line). Each start picks a free port itself: a port chosen
        here ahead could be taken meanwhile, and several brokers cannot share the default."""

        def logged() -> list[str]:
            return _METRICS_LOGGED.findall(self.log_path.read_text(errors="replace"))

        wait_until(lambda: len(logged()) >= self.starts, what=f"broker {self.node_id}'s metrics")
        return logged()[-1]

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        settings = {
            **BROKER_DEFAULTS,
            "broker.id": str(self.node_id),
            "zookeeper.connect": self.zk_connect,
            "listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
            "log.dirs": str(self.data),
            "metrics.listener": "http://127.0.0.1:0",
            **self.overrides,
        }
        args = [sys.executable, "-m", "ferrolog", "broker"]
        for key, value in settings.items():
            args += ["--override", f"{key}={value}"]
        self.data.parent.mkdir(parents=True, exist_ok=True)
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.starts += 1
        self.paused = False

    def wait_ready(self, timeout: float = 30.0) -> None:
        def ready() -> bool:
            if not self.running:
                raise RuntimeError(f"broker {self.node_id} exited: {self.log_tail()}")
            # Its own line, since this start: something else may listen on the port.
            with open(self.log_path, "rb") as log:
                log.seek(self._log_offset)
                if READY_PREFIX.encode() not in log.read():
                    return False
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", self.port)) == 0

        wait_until(ready, timeout, what=f"broker {self.node_id} to listen")

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill(self) -> None:
        if self.proc is not None:
            # SIGKILL ends a stopped process too; a SIGCONT first would let it run a moment.
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None
        self.paused = False

    def pause(self) -> None:
        self.signal(signal.SIGSTOP)
        self.paused = True

    def resume(self) -> None:
        self.signal(signal.SIGCONT)
        self.paused = False

    def terminate(self, timeout: float = 30.0) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout)
        self.proc = None
        return code

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


class Cluster:
    def __init__(self, zk: ZooKeeper, workdir: Path, size: int = 3, **overrides: str) -> None:
        self.zk = zk
        self.chroot = f"/ferrolog-{uuid.uuid4().hex[:8]}"
        self.workdir = workdir
        self.brokers: dict[int, BrokerProcess] = {}
        # Settings the harness's own clients add (a secured cluster's security.protocol, its
        # certificates, SASL login).
        self.client_config: dict[str, Any] = {}
        # The same as Kafka's tools take them (`--command-config`), None for plaintext.
        self.command_config: Path | None = None
        for node_id in range(1, size + 1):
            self.brokers[node_id] = BrokerProcess(
                node_id,
                free_port(),
                workdir / f"data-{node_id}",
                zk.connect + self.chroot,
                dict(overrides),
            )

    @property
    def bootstrap(self) -> str:
        return ",".join(b.bootstrap for b in self.brokers.values())

    def start(self) -> Cluster:
        client = self.zk.client()
        client.ensure_path(self.chroot)
        client.stop()
        client.close()
        for broker in self.brokers.values():
            broker.start()
        for broker in self.brokers.values():
            try:
                broker.wait_ready()
            except RuntimeError:
                # Its port, free when chosen, was bound meanwhile (once by another broker's
                # metrics listener, on a port the kernel picked): a first start takes another.
                if "Address already in use" not in broker.log_tail():
                    raise
                broker.port = free_port()
                broker.start()
                broker.wait_ready()
        self.wait_for_brokers(set(self.brokers))
        return self

    def stop(self) -> None:
        for broker in self.brokers.values():
            broker.kill()

    def zk_client(self) -> KazooClient:
        return self.zk.client(self.chroot)

    def admin(self, bootstrap: str | None = None) -> AdminClient:
        return AdminClient(
            {"bootstrap.servers": bootstrap or self.live_bootstrap(), **self.client_config}
        )

    def live_bootstrap(self) -> str:
        return ",".join(b.bootstrap for b in self.brokers.values() if b.running and not b.paused)

    def metadata(self, bootstrap: str | None = None) -> Any:
        return self.admin(bootstrap).list_topics(timeout=10)

    def wait_for_brokers(self, ids: set[int], timeout: float = 30.0) -> None:
        # What each broker last answered, for the failure message: which one lags, and how.
        seen: dict[int, str] = {}

        def registered() -> bool:
            for node_id in ids:
                md = self.metadata(self.brokers[node_id].bootstrap)
                seen[node_id] = f"brokers {sorted(md.brokers)} controller {md.controller_id}"
                if set(md.brokers) != ids or md.controller_id not in ids:
                    return False
            return True

        try:
            wait_until(registered, timeout, what=f"brokers {ids} registered with a controller")
        except AssertionError as e:
            raise AssertionError(f"{e}; last seen: {seen}") from None

    def create_topic(
        self, name: str, partitions: int = 1, replication: int = 3, **configs: str
    ) -> None:
        admin = self.admin()  # must outlive the futures
        futures = admin.create_topics([NewTopic(name, partitions, replication, config=configs)])
        futures[name].result(20)
        self.wait_for_leaders(name, partitions)

    def partition(self, topic: str, partition: int = 0, bootstrap: str | None = None) -> Any:
        md = self.metadata(bootstrap)
        t = md.topics.get(topic)
        if t is None or t.error is not None or partition not in t.partitions:
            return None
        return t.partitions[partition]

    def leader(self, topic: str, partition: int = 0) -> int:
        p = self.partition(topic, partition)
        return -1 if p is None else int(p.leader)

    def isr(self, topic: str, partition: int = 0) -> list[int]:
        p = self.partition(topic, partition)
        return [] if p is None else sorted(p.isrs)

    def controller(self) -> int:
        return int(self.metadata().controller_id)

    def wait_for_leaders(self, topic: str, partitions: int, timeout: float = 30.0) -> None:
        def led() -> bool:
            live = [b for b in self.brokers.values() if b.running and not b.paused]
            ids = {b.node_id for b in live}
            # Every broker's view, not just one: Metadata may come from any of them.
            for broker in live:
                for p in range(partitions):
                    info = self.partition(topic, p, broker.bootstrap)
                    if info is None or info.leader not in ids:
                        return False
            return True

        wait_until(led, timeout, what=f"leaders of {topic}")

    def wait_for_isr(
        self, topic: str, partition: int, isr: list[int], timeout: float = 30.0
    ) -> None:
        wait_until(
            lambda: self.isr(topic, partition) == sorted(isr),
            timeout,
            what=f"ISR of {topic}-{partition} to be {isr}",
        )

    def state(self, topic: str, partition: int = 0) -> dict[str, Any]:
        """The partition state znode as ZooKeeper holds it."""
        import json

        client = self.zk_client()
        try:
            data, stat = client.get(f"/brokers/topics/{topic}/partitions/{partition}/state")
        finally:
            client.stop()
            client.close()
        return dict(json.loads(data), zk_version=stat.version)

    def verify_replicas(self, topic: str | None = None) -> subprocess.CompletedProcess[str]:
        args = [
            sys.executable,
            "-m",
            "ferrolog",
            "verify-replicas",
            "--bootstrap-server",
            self.live_bootstrap(),
        ]
        if topic is not None:
            args += ["--topic", topic]
        if self.command_config is not None:
            args += ["--command-config", str(self.command_config)]
        return subprocess.run(
            args, capture_output=True, text=True, timeout=60, env=os.environ.copy()
        )

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)
