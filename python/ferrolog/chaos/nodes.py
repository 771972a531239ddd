"""The processes of a cluster under test, from a spec: a name, a start command and the address
it serves on. A node is started, killed (SIGKILL), stopped (SIGTERM), paused (SIGSTOP) and
resumed (SIGCONT) by signals only, so any broker with a start command can be tested.

For network partitions (`network`) each node listens on its own loopback address and, when
the checker runs as root, runs as its own uid (any number: it needs no /etc/passwd entry),
owning its home folder; rules then tell the nodes apart by their sockets' owner.

Each broker has two log directories: `data`, and `small` (`NodeSpec.small_dir`), where the run
mounts a small tmpfs for the disk faults (`disk`). Brokers spread their partitions over both,
so a full `small` takes some of a broker's partitions offline while it keeps serving the
rest, as a failed disk of a JBOD broker does."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ferrolog.ports import free_port

# Debian's ZooKeeper package (the jars and its log4j configuration).
ZOOKEEPER_CLASSPATH = "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar"


@dataclass
class NodeSpec:
    name: str
    command: list[str]
    address: str  # host:port it listens on once up
    log: str
    broker_id: int = -1  # -1: not a broker (ZooKeeper)
    cwd: str | None = None
    uid: int | None = None  # run as this uid (and gid), owning `home`; None: as the checker
    home: str | None = None  # the node's folder (data, configuration), chowned to `uid`
    # A broker's second log directory, for the disk faults: the run mounts a small tmpfs there
    # when it may (root), else it is a plain folder and those faults are left out.
    small_dir: str | None = None

    @property
    def host(self) -> str:
        return self.address.rpartition(":")[0]

    @property
    def port(self) -> int:
        return int(self.address.rpartition(":")[2])


@dataclass
class ClusterSpec:
    zookeeper: NodeSpec
    brokers: list[NodeSpec]
    # Broker properties the workload's topic relies on, for the report.
    settings: dict[str, str] = field(default_factory=dict)
    # The ZooKeeper chroot of the brokers' `zookeeper.connect`, created before they start.
    chroot: str = ""

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=1))

    @staticmethod
    def load(path: Path) -> ClusterSpec:
        data = json.loads(path.read_text())
        return ClusterSpec(
            NodeSpec(**data["zookeeper"]),
            [NodeSpec(**b) for b in data["brokers"]],
            data.get("settings", {}),
            data.get("chroot", ""),
        )

    @property
    def bootstrap(self) -> str:
        return ",".join(b.address for b in self.brokers)


class Node:
    def __init__(self, spec: NodeSpec) -> None:
        self.spec = spec
        self.proc: subprocess.Popen[bytes] | None = None
        self.paused = False

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, timeout: float = 60.0) -> None:
        uid = self.spec.uid
        env = None
        if uid is not None:
            if self.spec.home:
                _chown_tree(Path(self.spec.home), uid)
            # A uid with no passwd entry has no home of its own: the JVM and Python look here.
            env = {**os.environ, "HOME": self.spec.home or "/tmp"}
        command = self.spec.command
        if uid is not None:
            # setpriv (util-linux) keeps one capability: reading and searching any folder, as
            # the interpreter, its packages or the jars may sit in one only root may read
            # (/root here). Writing stays limited to the uid's own files.
            command = [
                "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", *command,
            ]  # fmt: skip
        with open(self.spec.log, "ab") as log:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.spec.cwd or self.spec.home,
                env=env,
                start_new_session=True,  # a signal to the test runner's group spares it
            )
        self.paused = False
        self.wait_listening(timeout)

    def wait_listening(self, timeout: float) -> None:
        host, _, port = self.spec.address.rpartition(":")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}")
            with socket.socket() as probe:
                if probe.connect_ex((host, int(port))) == 0:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not listen on {self.spec.address} in {timeout}s")

    def signal(self, sig: int) -> None:
        if self.running and self.proc is not None:
            os.kill(self.proc.pid, sig)

    def kill(self) -> None:
        if self.proc is None:
            return
        if self.paused:
            self.resume()
        self.signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self, timeout: float = 30.0) -> None:
        if self.proc is None:
            return
        if self.paused:
            self.resume()
        self.signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def pause(self) -> None:
        self.signal(signal.SIGSTOP)
        self.paused = True

    def resume(self) -> None:
        self.signal(signal.SIGCONT)
        self.paused = False


def _chown_tree(root: Path, uid: int) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for folder, dirs, files in os.walk(root):
        for name in (folder, *(os.path.join(folder, n) for n in (*dirs, *files))):
            os.lchown(name, uid, uid)


def reachable_by_all(folder: Path) -> bool:
    """Whether any uid may pass through every folder above `folder` (search permission for
    others on each)."""
    return all(os.stat(p).st_mode & stat.S_IXOTH for p in folder.resolve().parents)


# The first uid of a run's nodes: far above the ones a system hands out, and one block of
# NODE_UIDS per process id so that concurrent runs on a machine never share one.
FIRST_UID = 1_000_000_000
NODE_UIDS = 16


def node_identities(count: int) -> list[tuple[str, int | None]]:
    """A loopback address of its own (127.a.b.1, 127.a.b.2, ...: a and b from this process id,
    so concurrent runs differ) for each of `count` nodes, with a uid of its own when the
    checker runs as root (None otherwise: the nodes run as the checker, and partitions between
    them cannot be made)."""
    pid = os.getpid()
    prefix = f"127.{16 + (pid >> 8) % 224}.{pid & 0xFF}"
    root = os.geteuid() == 0
    return [
        (f"{prefix}.{i + 1}", FIRST_UID + pid * NODE_UIDS + i if root else None)
        for i in range(count)
    ]


def zookeeper_spec(workdir: Path, host: str = "127.0.0.1", uid: int | None = None) -> NodeSpec:
    """A standalone ZooKeeper (Debian's package) on a free port of `host`. Its tick of 500 ms
    lets brokers use session timeouts of a few seconds, so a fault is noticed within a cycle."""
    port = free_port(host)
    zk_dir = workdir / "zookeeper"
    zk_dir.mkdir(parents=True, exist_ok=True)
    cfg = zk_dir / "zoo.cfg"
    cfg.write_text(
        f"tickTime=500\ndataDir={zk_dir / 'data'}\nclientPort={port}\n"
        f"clientPortAddress={host}\nadmin.enableServer=false\nmaxClientCnxns=0\n"
        "maxSessionTimeout=30000\n"
    )
    command = [
        "java", "-Xmx256m", "-cp", ZOOKEEPER_CLASSPATH,
        "org.apache.zookeeper.server.quorum.QuorumPeerMain", str(cfg),
    ]  # fmt: skip
    log = str(workdir / "zookeeper.log")
    return NodeSpec("zookeeper", command, f"{host}:{port}", log, uid=uid, home=str(zk_dir))


# The cluster the issue asks for: RF 3 and min.insync.replicas=2 everywhere, with timeouts
# short enough that a fault and its recovery fit in a cycle of seconds.
CLUSTER_SETTINGS = {
    "default.replication.factor": "3",
    "min.insync.replicas": "2",
    "offsets.topic.replication.factor": "3",
    "offsets.topic.num.partitions": "6",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "unclean.leader.election.enable": "false",
    "auto.create.topics.enable": "false",
    "group.initial.rebalance.delay.ms": "0",
    "zookeeper.session.timeout.ms": "6000",
    "replica.lag.time.max.ms": "5000",
    "controlled.shutdown.enable": "true",
}


def ferrolog_spec(workdir: Path, size: int = 3) -> ClusterSpec:
    """ZooKeeper and `size` ferrolog brokers (this interpreter's `ferrolog broker`) under
    `workdir`, each on a loopback address of its own (`node_identities`), in the chroot
    `/ferrolog`."""
    (zk_host, zk_uid), *identities = node_identities(size + 1)
    zk = zookeeper_spec(workdir, zk_host, zk_uid)
    brokers = []
    for broker_id, (host, uid) in enumerate(identities, start=1):
        address = f"{host}:{free_port(host)}"
        home = workdir / f"broker-{broker_id}"
        props = {
            **CLUSTER_SETTINGS,
            "broker.id": str(broker_id),
            "zookeeper.connect": f"{zk.address}/ferrolog",
            "listeners": f"PLAINTEXT://{address}",
            "log.dirs": f"{home / 'data'},{home / 'small'}",
            "metrics.listener": "",
        }
        command = [sys.executable, "-m", "ferrolog", "broker"]
        for key, value in props.items():
            command += ["--override", f"{key}={value}"]
        log = workdir / f"broker-{broker_id}.log"
        brokers.append(
            NodeSpec(f"broker-{broker_id}", command, address, str(log), broker_id,
                     uid=uid, home=str(home), small_dir=str(home / "small"))
        )  # fmt: skip
    return ClusterSpec(zk, brokers, dict(CLUSTER_SETTINGS), "/ferrolog")


def kafka_zookeeper_spec(workdir: Path, libs: Path, size: int = 3) -> ClusterSpec:
    """ZooKeeper and `size` Apache Kafka 3.x brokers in ZooKeeper mode, started as Kafka's
    `kafka-server-start.sh` starts them (`kafka.Kafka server.properties`, 512 MiB heap) from
    the jars of a Kafka distribution's `libs/` folder; the same cluster settings as ferrolog's."""
    (zk_host, zk_uid), *identities = node_identities(size + 1)
    zk = zookeeper_spec(workdir, zk_host, zk_uid)
    # Absolute: a broker runs in its own folder.
    classpath = ":".join(str(jar) for jar in sorted(libs.resolve().glob("*.jar")))
    brokers = []
    for broker_id, (host, uid) in enumerate(identities, start=1):
        address = f"{host}:{free_port(host)}"
        home = workdir / f"broker-{broker_id}"
        home.mkdir(parents=True, exist_ok=True)
        props = {
            **CLUSTER_SETTINGS,
            "broker.id": str(broker_id),
            "zookeeper.connect": f"{zk.address}/kafka",
            "listeners": f"PLAINTEXT://{address}",
            "log.dirs": f"{home / 'data'},{home / 'small'}",
        }
        config = home / "server.properties"
        config.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        log4j = home / "log4j.properties"
        log4j.write_text(
            "log4j.rootLogger=INFO, F\nlog4j.appender.F=org.apache.log4j.FileAppender\n"
            f"log4j.appender.F.File={home / 'server.log'}\n"
            "log4j.appender.F.layout=org.apache.log4j.PatternLayout\n"
            "log4j.appender.F.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
        )
        command = [
            "java", "-Xmx512m", "-Xms512m", "-XX:+UseG1GC", "-Djava.awt.headless=true",
            f"-Dlog4j.configuration=file:{log4j}", "-cp", classpath, "kafka.Kafka", str(config),
        ]  # fmt: skip
        log = workdir / f"broker-{broker_id}.log"
        brokers.append(
            NodeSpec(f"broker-{broker_id}", command, address, str(log), broker_id,
                     uid=uid, home=str(home), small_dir=str(home / "small"))
        )  # fmt: skip
    return ClusterSpec(zk, brokers, dict(CLUSTER_SETTINGS), "/kafka")
