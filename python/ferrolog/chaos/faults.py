"""The faults of a cycle. Each is a start and a heal; the runner holds the fault for a while
between the two, then waits for the cluster to recover before the next cycle.

Network partitions and disk faults (issue 16) need packet-filter rules between per-process
loopback addresses and a full or failing log directory; they are not part of this set yet."""

from __future__ import annotations

import random
import signal
from collections.abc import Callable
from dataclasses import dataclass

from ferrolog.chaos.nodes import Node


@dataclass
class Fault:
    kind: str
    target: str
    heal: Callable[[], None]


def _restart(node: Node) -> Callable[[], None]:
    def heal() -> None:
        if not node.running:
            node.start()

    return heal


def kill_broker(rng: random.Random, brokers: list[Node], zookeeper: Node) -> Fault:
    node = rng.choice(brokers)
    node.kill()
    return Fault("kill-broker", node.name, _restart(node))


def stop_broker(rng: random.Random, brokers: list[Node], zookeeper: Node) -> Fault:
    """SIGTERM: a controlled shutdown, then a restart."""
    node = rng.choice(brokers)
    node.stop()
    return Fault("stop-broker", node.name, _restart(node))


def pause_broker(rng: random.Random, brokers: list[Node], zookeeper: Node) -> Fault:
    """SIGSTOP: the broker keeps its sockets but answers nothing, as under a long GC pause or
    a frozen VM; it loses its ZooKeeper session if paused long enough."""
    node = rng.choice(brokers)
    node.pause()
    return Fault("pause-broker", node.name, node.resume)


def kill_zookeeper(rng: random.Random, brokers: list[Node], zookeeper: Node) -> Fault:
    zookeeper.kill()
    return Fault("kill-zookeeper", zookeeper.name, _restart(zookeeper))


def pause_zookeeper(rng: random.Random, brokers: list[Node], zookeeper: Node) -> Fault:
    zookeeper.pause()
    return Fault("pause-zookeeper", zookeeper.name, zookeeper.resume)


def kill_two_brokers(rng: random.Random, brokers: list[Node], zookeeper: Node) -> Fault:
    """Below min.insync.replicas: acks=all writes must be refused, not acknowledged."""
    victims = rng.sample(brokers, 2)
    for node in victims:
        node.signal(signal.SIGKILL)
    for node in victims:
        if node.proc is not None:
            node.proc.wait()

    def heal() -> None:
        for node in victims:
            _restart(node)()

    return Fault("kill-two-brokers", "+".join(n.name for n in victims), heal)


# A fault of the workload rather than of a node: a group member crashes and a new one joins
# later (`run` holds the consumers).
CRASH_CONSUMER = "crash-consumer"

FAULTS: dict[str, Callable[[random.Random, list[Node], Node], Fault]] = {
    "kill-broker": kill_broker,
    "stop-broker": stop_broker,
    "pause-broker": pause_broker,
    "kill-zookeeper": kill_zookeeper,
    "pause-zookeeper": pause_zookeeper,
    "kill-two-brokers": kill_two_brokers,
}
