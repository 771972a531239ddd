"""The faults of a cycle. Each is a start and a heal; the runner holds the fault for a while
between the two, then waits for the cluster to recover before the next cycle.

Processes are killed, stopped or paused by signals; network partitions (`PARTITIONS`) are
nft rules between the nodes' own addresses and uids (`network`); the disk faults (`DISKS`) fill
the small tmpfs a broker has as its second log directory, or make writes there fail (`disk`)."""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ferrolog.chaos import disk
from ferrolog.chaos.network import CLIENT, Endpoint, Network
from ferrolog.chaos.nodes import Node


@dataclass
class Target:
    """What a fault acts on: the nodes, the run's network, and a way to ask the cluster which
    broker leads a partition of the workload's topic (-1: none known)."""

    rng: random.Random
    brokers: list[Node]
    zookeeper: Node
    network: Network | None = None
    client_uid: int = 0
    leader_of: Callable[[int], int] = lambda partition: -1
    partitions: int = 1


@dataclass
class Fault:
    kind: str
    target: str
    heal: Callable[[], None]


# How long a node that exits while starting is started again. Kafka in ZooKeeper mode exits
# if its registration znode of before a crash still exists (ZooKeeper, itself restarted, has
# not expired that session yet): started again a few seconds later, it comes up.
RESTART_S = 90.0


def _restart(node: Node) -> Callable[[], None]:
    def heal() -> None:
        deadline = time.monotonic() + RESTART_S
        while not node.running:
            try:
                node.start()
            except RuntimeError:
                if node.running or time.monotonic() > deadline:
                    raise
                time.sleep(2.0)

    return heal


def kill_broker(t: Target) -> Fault:
    node = t.rng.choice(t.brokers)
    node.kill()
    return Fault("kill-broker", node.name, _restart(node))


def stop_broker(t: Target) -> Fault:
    """SIGTERM: a controlled shutdown, then a restart."""
    node = t.rng.choice(t.brokers)
    node.stop()
    return Fault("stop-broker", node.name, _restart(node))


def pause_broker(t: Target) -> Fault:
    """SIGSTOP: the broker keeps its sockets but answers nothing, as under a long GC pause or
    a frozen VM; it loses its ZooKeeper session if paused long enough."""
    node = t.rng.choice(t.brokers)
    node.pause()
    return Fault("pause-broker", node.name, node.resume)


def kill_zookeeper(t: Target) -> Fault:
    t.zookeeper.kill()
    return Fault("kill-zookeeper", t.zookeeper.name, _restart(t.zookeeper))


def pause_zookeeper(t: Target) -> Fault:
    t.zookeeper.pause()
    return Fault("pause-zookeeper", t.zookeeper.name, t.zookeeper.resume)


def kill_two_brokers(t: Target) -> Fault:
    """Below min.insync.replicas: acks=all writes must be refused, not acknowledged."""
    victims = t.rng.sample(t.brokers, 2)
    for node in victims:
        node.signal(signal.SIGKILL)
    for node in victims:
        if node.proc is not None:
            node.proc.wait()

    def heal() -> None:
        for node in victims:
            _restart(node)()

    return Fault("kill-two-brokers", "+".join(n.name for n in victims), heal)


def _endpoint(node: Node) -> Endpoint:
    if node.spec.uid is None:
        raise RuntimeError(f"{node.name} runs as the checker's uid: it cannot be partitioned")
    return Endpoint(node.name, node.spec.uid, node.spec.host, node.spec.port)


def _partition(t: Target, kind: str, target: str, cuts: list[tuple[Node | str, Node]]) -> Fault:
    if t.network is None:
        raise RuntimeError(f"{kind}: no network to partition")
    client = Endpoint(CLIENT, t.client_uid)
    t.network.cut([(client if isinstance(a, str) else _endpoint(a), _endpoint(b)) for a, b in cuts])
    return Fault(kind, target, t.network.heal)


def partition_broker(t: Target) -> Fault:
    """A broker cut from the other brokers; it keeps ZooKeeper and the clients. Its followers
    stop fetching and drop out of its partitions' ISRs; as a follower it drops out of theirs."""
    node = t.rng.choice(t.brokers)
    others = [b for b in t.brokers if b is not node]
    return _partition(t, "partition-broker", node.name, [(node, b) for b in others])


def partition_leader(t: Target) -> Fault:
    """The leader of a partition cut from everything but the clients: the other brokers and
    ZooKeeper. Jepsen (2013) lost acknowledged writes in Kafka this way: the leader shrank the
    ISR to itself and acknowledged alone, then a new leader was elected elsewhere. With acks=all
    and min.insync.replicas=2 it must acknowledge nothing it cannot replicate."""
    partition = t.rng.randrange(t.partitions)
    leader = t.leader_of(partition)
    node = next((b for b in t.brokers if b.spec.broker_id == leader), None)
    target = f"{node.name} (leader of partition {partition})" if node else ""
    if node is None:
        node = t.rng.choice(t.brokers)
        target = f"{node.name} (no leader known for partition {partition})"
    cuts: list[tuple[Node | str, Node]] = [(node, b) for b in t.brokers if b is not node]
    return _partition(t, "partition-leader", target, [*cuts, (node, t.zookeeper)])


def partition_broker_zookeeper(t: Target) -> Fault:
    """A broker cut from ZooKeeper only: its session expires, it is no longer registered
    (nor controller), and its leaderships move, while it still reaches brokers and clients."""
    node = t.rng.choice(t.brokers)
    return _partition(t, "partition-broker-zookeeper", node.name, [(node, t.zookeeper)])


def partition_client(t: Target) -> Fault:
    """The workload's clients cut from one broker (new and established connections). The
    brokers still see it, so its leaderships stay: writes to its partitions wait (or fail,
    unacknowledged) until the heal, while the other partitions carry on."""
    node = t.rng.choice(t.brokers)
    return _partition(t, "partition-client", node.name, [(CLIENT, node)])


def disk_full(t: Target) -> Fault:
    """One broker's small log directory fills up. Its next write there fails (ENOSPC): the
    broker takes the directory offline (Kafka's LogDirFailureChannel), the controller moves
    the leadership of the partitions there, and the broker keeps serving its other directory.
    Healing frees the space and restarts the broker."""
    node = t.rng.choice([b for b in t.brokers if b.spec.small_dir])
    small = Path(node.spec.small_dir or "")
    disk.fill(disk.space(small))
    return _disk_fault("disk-full", node, small, lambda: disk.free(disk.space(small)))


def disk_eio(t: Target) -> Fault:
    """One broker's small log directory starts failing every write and fsync with EIO (a FUSE
    layer over its tmpfs, `failing_disk`), while reads still work. As with a full disk, the
    broker must take the directory offline, acknowledge nothing it could not store, and the
    leadership of the partitions there moves. Healing makes the writes work again and restarts
    the broker."""
    node = t.rng.choice([b for b in t.brokers if b.spec.small_dir])
    small = Path(node.spec.small_dir or "")
    disk.fail_writes(small, True)
    return _disk_fault("disk-eio", node, small, lambda: disk.fail_writes(small, False))


def _disk_fault(kind: str, node: Node, small: Path, repair: Callable[[], None]) -> Fault:
    """A disk fault on `node`'s `small` directory, healed by `repair`, then a restart of the
    broker, as Kafka brings an offline directory back only at a restart. The target says
    whether the broker reported the directory offline before the heal (a broker that wrote
    nothing there in the meantime has not noticed)."""
    fault = Fault(kind, node.name, lambda: None)

    def heal() -> None:
        offline = disk.offline_log_dirs(node.spec.host, node.spec.port)
        state = "not asked" if offline is None else "offline" if offline else "still online"
        fault.target = f"{node.name} (log dir {small.name} {state})"
        repair()
        node.stop()
        _restart(node)()

    fault.heal = heal
    return fault


# A fault of the workload rather than of a node: a group member crashes and a new one joins
# later (`run` holds the consumers).
CRASH_CONSUMER = "crash-consumer"

FAULTS: dict[str, Callable[[Target], Fault]] = {
    "kill-broker": kill_broker,
    "stop-broker": stop_broker,
    "pause-broker": pause_broker,
    "kill-zookeeper": kill_zookeeper,
    "pause-zookeeper": pause_zookeeper,
    "kill-two-brokers": kill_two_brokers,
    "partition-broker": partition_broker,
    "partition-leader": partition_leader,
    "partition-broker-zookeeper": partition_broker_zookeeper,
    "partition-client": partition_client,
    "disk-full": disk_full,
    "disk-eio": disk_eio,
}

# The faults that need the network (nft, and nodes of their own uids).
PARTITIONS = frozenset(k for k in FAULTS if k.startswith("partition-"))
# The faults that need a small file system of their own under each broker (a tmpfs: root).
DISKS = frozenset({"disk-full", "disk-eio"})
# Those that also need a FUSE layer over it (fusepy, libfuse2, /dev/fuse, root).
FAILING_DISKS = frozenset({"disk-eio"})
