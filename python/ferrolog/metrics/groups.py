"""The group coordinator at /metrics: the groups this broker coordinates by state, their
committed offsets, and the rebalances they went through.

Groups by state are one gauge with a `state` label,
`kafka_coordinator_group_groupmetadatamanager_numgroups{state="stable"}`, rather than the
classic `GroupMetadataManager` gauge per state (`...numgroupsstable`, deprecated by KIP-1301):
Kafka 4's replacement, `group-coordinator-metrics` `classic-group-count`, has that shape and
those state names, a dashboard splits by the label or sums it for the total (ours does), and
one name stays one name. Rebalances are that group's `group-rebalance-count` and
`group-completed-rebalance-count`, as counters."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ferrolog.controller.coordinator.group.state import GroupState
from ferrolog.metrics.loop import ask_loop

if TYPE_CHECKING:
    from ferrolog.broker import Broker

GROUPS = "kafka_coordinator_group_groupmetadatamanager_"
# Kafka 4's `classic-group-count` state names.
STATE_LABELS = {
    GroupState.PREPARING_REBALANCE: "preparingrebalance",
    GroupState.COMPLETING_REBALANCE: "completingrebalance",
    GroupState.STABLE: "stable",
    GroupState.EMPTY: "empty",
    GroupState.DEAD: "dead",
}
REBALANCES = "kafka_server_groupcoordinatormetrics_grouprebalance"
COMPLETED_REBALANCES = "kafka_server_groupcoordinatormetrics_groupcompletedrebalance"


@dataclass
class GroupsSnapshot:
    states: Counter[GroupState] = field(default_factory=Counter)
    offsets: int = 0
    rebalances: int = 0
    completed_rebalances: int = 0


def take_snapshot(broker: Broker) -> GroupsSnapshot:
    """On the broker's loop: one pass over the loaded groups (no offsets are copied)."""
    snap = GroupsSnapshot()
    coordinator = broker.group_coordinator
    if coordinator is None:
        return snap
    for shard in coordinator.shards():
        for group in shard.groups.values():
            snap.states[group.state] += 1
            snap.offsets += len(group.offsets)
    snap.rebalances = coordinator.rebalances.begun
    snap.completed_rebalances = coordinator.rebalances.completed
    return snap


class GroupCollector(Collector):
    def __init__(self, loop: asyncio.AbstractEventLoop, broker: Broker) -> None:
        self._loop = loop
        self._broker = broker

    def collect(self) -> Iterator[Metric]:
        async def take() -> GroupsSnapshot:
            return take_snapshot(self._broker)

        snap = ask_loop(self._loop, take)
        if snap is None:
            return
        groups = GaugeMetricFamily(
            f"{GROUPS}numgroups",
            "Groups this broker coordinates (of its loaded __consumer_offsets partitions), "
            "by state.",
            labels=["state"],
        )
        for state, label in STATE_LABELS.items():
            groups.add_metric([label], snap.states[state])
        yield groups
        yield GaugeMetricFamily(
            f"{GROUPS}numoffsets",
            "Committed offsets of the groups this broker coordinates.",
            value=snap.offsets,
        )
        yield CounterMetricFamily(
            REBALANCES,
            "Rebalances begun (a group went to PreparingRebalance) by this coordinator.",
            value=snap.rebalances,
        )
        yield CounterMetricFamily(
            COMPLETED_REBALANCES,
            "Rebalances whose join phase completed with members (a new generation).",
            value=snap.completed_rebalances,
        )
