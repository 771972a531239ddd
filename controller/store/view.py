"""`ClusterView`: one consistent-enough read of the whole cluster metadata from the store.

Brokers keep the newest view in memory (Metadata answers, roles of local replicas) and the
active controller decides from it. Every decision is level-triggered: it compares the view
with what should be, so a missed or coalesced watch only delays a decision, never loses it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .base import BrokerRegistration, FinalizedFeatures, PartitionState, TopicRecord

TopicPartition = tuple[str, int]


@dataclass(frozen=True)
class ClusterView:
    brokers: dict[int, BrokerRegistration] = field(default_factory=dict)
    # ZooKeeper zxid that created each broker's registration: a broker that restarted has a
    # newer one, which tells a leadership of its previous incarnation from one of this one.
    broker_epochs: dict[int, int] = field(default_factory=dict)
    topics: dict[str, TopicRecord] = field(default_factory=dict)
    states: dict[str, dict[int, PartitionState]] = field(default_factory=dict)
    # zxid of the last write of each partition state (same purpose as broker_epochs).
    state_zxids: dict[TopicPartition, int] = field(default_factory=dict)
    controller_id: int = -1
    controller_epoch: int = 0
    shutting_down: frozenset[int] = frozenset()
    reassignments: dict[TopicPartition, list[int]] = field(default_factory=dict)
    preferred_elections: frozenset[TopicPartition] = frozenset()
    unclean_elections: frozenset[TopicPartition] = frozenset()
    # Epoch -1 while `/feature` is absent or disabled (the controller then enables it).
    features: FinalizedFeatures = field(default_factory=FinalizedFeatures)
    # Replicas on offline log directories, by broker, as its current process published them:
    # they may neither lead nor stay in the ISR until the broker restarts (as Kafka).
    offline_replicas: dict[int, frozenset[TopicPartition]] = field(default_factory=dict)
    # Log directory event notifications (znode names) the controller has not handled yet.
    log_dir_events: tuple[str, ...] = ()

    def online(self, topic: str, partition: int, live: set[int]) -> set[int]:
        """The brokers of `live` whose replica of the partition is not on an offline log
        directory: for that partition, the others count as dead."""
        key = (topic, partition)
        return {b for b in live if key not in self.offline_replicas.get(b, ())}

    def state(self, topic: str, partition: int) -> PartitionState | None:
        return self.states.get(topic, {}).get(partition)

    def partitions(self) -> list[tuple[TopicRecord, int, list[int], PartitionState]]:
        """(topic, partition, replicas, state) of every partition that has a state."""
        out = []
        for name, topic in sorted(self.topics.items()):
            states = self.states.get(name, {})
            for partition, replicas in sorted(topic.assignment.items()):
                state = states.get(partition)
                if state is not None:
                    out.append((topic, partition, replicas, state))
        return out
