"""Three-broker clusters for the replicated workloads: three Kafka 3.9 brokers in ZooKeeper
mode against three ferrolog brokers in cluster mode, each set with one fresh ZooKeeper of its
own (Debian's package) on loopback, under a chroot; and three Kafka 4 nodes in KRaft mode
(each broker and controller), which the scale mode compares with.

Equivalence, on top of the single-node settings of `brokers.COMMON` (1 GiB segments, no
per-message fsync, explicit partition counts): replication factor 3 for new topics and for
the internal topics, `min.insync.replicas=2`, replica fetcher settings left at their
defaults (the same values in both: 500 ms fetch wait, 1 MiB per partition). Every Kafka
broker gets its start script's heap and JVM flags (-Xmx1G -Xms1G, G1)."""

from __future__ import annotations

import logging
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness import brokers, kafka_dist

SIZE = 3
REPLICATED = {
    **brokers.COMMON,
    "default.replication.factor": "3",
    "min.insync.replicas": "2",
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
}
# A broker that has not finished its controlled shutdown by then is killed: the data is
# thrown away with the cluster.
STOP_TIMEOUT = 20.0


class _FerrologNode(brokers.Broker):
    settings: dict[str, str]

    def command(self) -> list[str]:
        props = {**self.settings, "listeners": f"PLAINTEXT://{self.bootstrap}",
                 "log.dirs": str(self.data_dir)}
        cmd = [sys.executable, "-m", "ferrolog", "broker"]
        for k, v in props.items():
            cmd += ["--override", f"{k}={v}"]
        return cmd


class _KafkaNode(brokers._Kafka):
    def write_config(self, settings: dict[str, str]) -> None:
        brokers._props(self.workdir / "server.properties", {
            **settings, "listeners": f"PLAINTEXT://{self.bootstrap}",
            "log.dirs": str(self.data_dir)})


@dataclass
class Cluster(brokers.Broker):
    """ZooKeeper and three brokers of one kind, seen by the runner as one broker: bootstrap
    lists the three, `pids` are the three broker processes (ZooKeeper is auxiliary)."""

    nodes: list[brokers.Broker] = field(default_factory=list)

    @property
    def bootstrap(self) -> str:
        return ",".join(n.bootstrap for n in self.nodes)

    @property
    def pid(self) -> int:
        return self.nodes[0].pid

    @property
    def pids(self) -> list[int]:
        return [n.pid for n in self.nodes]

    def _node(self, broker_id: int, zk_connect: str) -> brokers.Broker:
        raise NotImplementedError

    def _chroot(self, zk_port: int) -> str:
        return "/"

    def prepare(self) -> None:
        start = time.monotonic()
        zk, zk_port = brokers.start_zookeeper(self.workdir / "zookeeper")
        self._aux.append(zk)
        connect = f"127.0.0.1:{zk_port}{self._chroot(zk_port)}"
        self.nodes = [self._node(i, connect) for i in range(1, SIZE + 1)]
        self.prepare_s = time.monotonic() - start

    def spawn(self) -> None:
        for n in self.nodes:
            n.spawn()

    def stop(self) -> None:
        # All at once: a controlled shutdown of one broker after the other would wait on
        # leaderships that have nowhere left to go.
        live = [n.proc for n in self.nodes if n.proc is not None and n.proc.poll() is None]
        for proc in live:
            proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for proc in live:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except Exception:
                proc.kill()
                proc.wait()
        for n in self.nodes:
            n.proc = None
        super().stop()  # then ZooKeeper

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def topic_bytes(self, topic: str) -> list[int]:
        return [b for n in self.nodes for b in n.topic_bytes(topic)]

    def exit_report(self) -> str:
        return "".join(f"\nbroker {i} of 3:{n.exit_report()}" for i, n in enumerate(self.nodes, 1)
                       if n.exit_report())

    def log_tail(self, lines: int = 15) -> str:
        return "\n".join(f"--- broker {i} of 3:\n{n.log_tail(lines)}"
                         for i, n in enumerate(self.nodes, 1))

    def _workdir(self, broker_id: int) -> Path:
        path = self.workdir / f"broker-{broker_id}"
        path.mkdir()
        return path


@dataclass
class FerrologCluster(Cluster):
    def _chroot(self, zk_port: int) -> str:
        from kazoo.client import KazooClient  # a test extra; only the replicated bench needs it

        logging.getLogger("kazoo").setLevel(logging.ERROR)  # its reconnect chatter
        client = KazooClient(f"127.0.0.1:{zk_port}")
        client.start(timeout=30)
        try:
            client.ensure_path("/ferrolog")
        finally:
            client.stop()
            client.close()
        return "/ferrolog"

    def _node(self, broker_id: int, zk_connect: str) -> brokers.Broker:
        node = _FerrologNode(f"ferrolog-{broker_id}", "ferrolog", "native",
                             workdir=self._workdir(broker_id))
        node.settings = {**REPLICATED, "broker.id": str(broker_id),
                         "zookeeper.connect": zk_connect}
        return node


@dataclass
class KafkaZkCluster(Cluster):
    def _chroot(self, zk_port: int) -> str:
        return "/kafka"  # Kafka creates its chroot itself

    def _node(self, broker_id: int, zk_connect: str) -> brokers.Broker:
        node = _KafkaNode(f"kafka-{broker_id}", "kafka-zookeeper", self.version,
                          workdir=self._workdir(broker_id))
        node.write_config({**REPLICATED, "broker.id": str(broker_id),
                           "zookeeper.connect": zk_connect})
        return node


@dataclass
class KafkaKRaftCluster(Cluster):
    """Three Kafka 4 nodes in KRaft mode, each broker and controller (a static quorum of the
    three), formatted with one cluster id; no ZooKeeper."""

    def prepare(self) -> None:
        start = time.monotonic()
        ports = [(brokers.free_port(), brokers.free_port()) for _ in range(SIZE)]
        voters = ",".join(f"{i}@127.0.0.1:{c}" for i, (_, c) in enumerate(ports, 1))
        cluster_id = brokers.new_cluster_id()
        self.nodes = []
        for i, (port, controller_port) in enumerate(ports, 1):
            node = _KafkaNode(f"kafka-{i}", "kafka-kraft", self.version,
                              workdir=self._workdir(i), port=port)
            brokers._props(node.workdir / "server.properties", {
                **REPLICATED, **brokers.kraft_settings(i, voters, node.bootstrap,
                                                     controller_port, node.data_dir)})
            self.nodes.append(node)
        formats = [subprocess.Popen(
            n._java("kafka.tools.StorageTool", "format", "-t", cluster_id, "-c",
                    str(n.workdir / "server.properties")),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for n in self.nodes]
        for f in formats:
            _, err = f.communicate(timeout=120)
            if f.returncode != 0:
                raise RuntimeError(f"StorageTool format exited {f.returncode}: {err[-300:]!r}")
        self.prepare_s = time.monotonic() - start


def make(name: str) -> brokers.Broker:
    if name == "ferrolog":
        return FerrologCluster(name, "ferrolog-cluster", "native")
    if name == "kafka3zk":
        return KafkaZkCluster(name, "kafka-zookeeper-cluster", kafka_dist.KAFKA3)
    if name == "kafka4":
        return KafkaKRaftCluster(name, "kafka-kraft-cluster", kafka_dist.KAFKA4)
    raise ValueError(f"unknown cluster {name!r} (ferrolog, kafka3zk, kafka4)")
