"""`MetadataCache`: what a broker's controller knows of the cluster metadata, in memory, and
the reads request handlers make of it (Metadata, admin checks) without touching the store.

The single-node controller keeps it current with its own writes; in cluster mode it is
replaced by every view read from ZooKeeper (`ZkController.replace_view`)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Protocol

from ferrolog.controller.api import ReassignmentStatus, TopicPartition
from ferrolog.controller.cluster import election, reassignment
from ferrolog.controller.cluster.election import ElectionType
from ferrolog.controller.store.base import BrokerRegistration, PartitionState, TopicRecord
from ferrolog.errors import KafkaError, UnknownTopicOrPartitionError


class LeadershipListener(Protocol):
    """A coordinator told which partitions of its internal topic this broker leads."""

    def on_become_leader(self, partition: int, leader_epoch: int, partition_count: int) -> None: ...

    def on_resign(self, partition: int) -> None: ...


# Told the live brokers whenever they change (the native core's leader hints, KIP-951).
BrokersSink = Callable[[dict[int, BrokerRegistration]], None]

# What `ferrolog_native.Server.set_live_brokers` takes: (node id, rack, [(listener, host, port)]).
LiveBrokerRow = tuple[int, str | None, list[tuple[str, str, int]]]


def live_broker_rows(brokers: dict[int, BrokerRegistration]) -> list[LiveBrokerRow]:
    """Each broker's advertised listeners, for the native core."""
    rows = []
    for b in brokers.values():
        endpoints = b.endpoints or tuple(e for e in (b.endpoint("PLAINTEXT"),) if e is not None)
        rows.append((b.node_id, b.rack, [(e.listener_name, e.host, e.port) for e in endpoints]))
    return rows


class MetadataCache:
    def __init__(self, node_id: int) -> None:
        self.node_id = node_id
        self._topics: dict[str, TopicRecord] = {}
        self._states: dict[str, dict[int, PartitionState]] = {}
        self._brokers: dict[int, BrokerRegistration] = {}
        self._brokers_sinks: list[BrokersSink] = []
        self._listeners: dict[str, list[LeadershipListener]] = {}

    @property
    def controller_id(self) -> int:
        """The active controller's broker id: on a single node, this broker."""
        return self.node_id

    def topics(self) -> dict[str, TopicRecord]:
        return dict(self._topics)

    def topic(self, name: str) -> TopicRecord | None:
        return self._topics.get(name)

    def topic_by_id(self, topic_id: bytes) -> TopicRecord | None:
        return next((t for t in self._topics.values() if t.topic_id == topic_id), None)

    def partition_states(self, name: str) -> dict[int, PartitionState]:
        return dict(self._states.get(name, {}))

    def brokers(self) -> dict[int, BrokerRegistration]:
        return dict(self._brokers)

    def subscribe_brokers(self, sink: BrokersSink) -> None:
        """`sink` hears the live brokers on every change from the next one on."""
        self._brokers_sinks.append(sink)

    def _set_brokers(self, brokers: dict[int, BrokerRegistration]) -> None:
        changed = brokers != self._brokers
        self._brokers = brokers
        if changed:
            for sink in self._brokers_sinks:
                sink(dict(brokers))

    def reassignments(self) -> dict[TopicPartition, list[int]]:
        """Pending partition reassignments: partition -> target replicas. A single node has
        none: its only possible move (onto itself) is complete once accepted."""
        return {}

    def shutting_down(self) -> Collection[int]:
        """Brokers that asked to lose their leaderships (controlled shutdown)."""
        return ()

    def offline_replicas(self, tp: TopicPartition) -> Collection[int]:
        """Brokers whose replica of `tp` is on an offline log directory (a single node has
        no other replica to move to, so it reports none)."""
        return ()

    def requested_election(
        self, kind: ElectionType, tp: TopicPartition
    ) -> PartitionState | KafkaError:
        """`election.requested` for one partition, over the cached metadata."""
        name, partition = tp
        topic = self._topics.get(name)
        state = self._states.get(name, {}).get(partition)
        if topic is None or state is None or partition not in topic.assignment:
            return UnknownTopicOrPartitionError(f"{name}-{partition} does not exist")
        return election.requested(
            kind,
            state,
            topic.assignment[partition],
            self._brokers,
            avoid=self.shutting_down(),
            controller_epoch=state.controller_epoch,
        )

    def list_partition_reassignments(
        self, partitions: Collection[TopicPartition] | None
    ) -> list[ReassignmentStatus]:
        wanted = None if partitions is None else set(partitions)
        out = []
        for (name, partition), target in sorted(self.reassignments().items()):
            topic = self._topics.get(name)
            if topic is None or partition not in topic.assignment:
                continue
            if wanted is not None and (name, partition) not in wanted:
                continue
            current = topic.assignment[partition]
            state = self._states.get(name, {}).get(partition)
            adding, removing = reassignment.progress(current, target, state.isr if state else [])
            out.append(ReassignmentStatus(name, partition, list(current), adding, removing))
        return out

    def add_leadership_listener(self, topic: str, listener: LeadershipListener) -> None:
        """`listener` hears about leadership of `topic`'s partitions on this broker from the
        next change on (register before `start`)."""
        self._listeners.setdefault(topic, []).append(listener)

    def notify_leadership(self, topic: str, partition: int, leader_epoch: int, leads: bool) -> None:
        """Tells the listeners of `topic` (coordinators) that this broker now leads
        `partition` or no longer does."""
        record = self._topics.get(topic)
        count = len(record.assignment) if record is not None else 0
        for listener in self._listeners.get(topic, []):
            if leads:
                listener.on_become_leader(partition, leader_epoch, count)
            else:
                listener.on_resign(partition)
