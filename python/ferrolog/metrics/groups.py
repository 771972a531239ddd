"""The group coordinator at /metrics: the groups this broker coordinates by state, their
committed offsets, and the rebalances they went through.

Group counts keep the names the JMX exporter gives Kafka's classic `GroupMetadataManager`
gauges (`kafka_coordinator_group_groupmetadatamanager_numgroupsstable`, ...), the ones the
published Kafka dashboards graph; Kafka 4's `group-coordinator-metrics` carries the same
counts as `classic-group-count{state}`. Rebalances are that group's
`group-rebalance-count` and `group-completed-rebalance-count`, as counters."""

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
STATE_GAUGES = {
    GroupState.PREPARING_REBALANCE: "numgroupspreparingrebalance",
    GroupState.COMPLETING_REBALANCE: "numgroupscompletingrebalance",
    GroupState.STABLE: "numgroupsstable",
    GroupState.EMPTY: "numgroupsempty",
    GroupState.DEAD: "numgroupsdead",
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
        yield GaugeMetricFamily(
            f"{GROUPS}numgroups",
            "Groups this broker coordinates (of its loaded __consumer_offsets partitions).",
            value=sum(snap.states.values()),
        )
        for state, name in STATE_GAUGES.items():
            yield GaugeMetricFamily(
                f"{GROUPS}{name}",
                f"Groups this broker coordinates in state {state.value}.",
                value=snap.states[state],
            )
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
