"""The group coordinator at /metrics: the groups this broker coordinates by state, their
committed offsets, and the rebalances they went through.

Classic groups by state are one gauge with a `state` label,
`kafka_coordinator_group_groupmetadatamanager_numgroups{state="stable"}`, rather than the
classic `GroupMetadataManager` gauge per state (`...numgroupsstable`, deprecated by KIP-1301):
Kafka 4's replacement, `group-coordinator-metrics` `classic-group-count`, has that shape and
those state names, a dashboard splits by the label or sums it for the total (ours does), and
one name stays one name. The groups of the other protocols are that group's `group-count` by
`protocol` and `consumer-group-count`, `share-group-count` and `streams-group-count` by `state`
(Kafka's lower-case state names). Rebalances are its `group-rebalance-count` and
`group-completed-rebalance-count`, as counters."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ferrolog.controller.coordinator.group.state import Group, GroupState
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
COORDINATOR = "kafka_server_groupcoordinatormetrics_"
REBALANCES = f"{COORDINATOR}grouprebalance"
COMPLETED_REBALANCES = f"{COORDINATOR}groupcompletedrebalance"
PROTOCOLS = ("classic", "consumer", "share", "streams")
# Each protocol's states, as Kafka's `<protocol>-group-count` names them.
TYPED_STATES = {
    "consumer": ("empty", "assigning", "reconciling", "stable", "dead"),
    "share": ("empty", "stable", "dead"),
    "streams": ("empty", "not_ready", "assigning", "reconciling", "stable", "dead"),
}


@dataclass
class GroupsSnapshot:
    states: Counter[GroupState] = field(default_factory=Counter)
    protocols: Counter[str] = field(default_factory=Counter)
    # (protocol, state) of the groups of the new protocols.
    typed: Counter[tuple[str, str]] = field(default_factory=Counter)
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
            kind = group.group_type
            snap.protocols[kind] += 1
            if kind == "classic":
                snap.states[group.state] += 1
            else:
                snap.typed[(kind, _typed_state(group))] += 1
            snap.offsets += len(group.offsets)
    snap.rebalances = coordinator.rebalances.begun
    snap.completed_rebalances = coordinator.rebalances.completed
    return snap


def _typed_state(group: Group) -> str:
    """A consumer, share or streams group's state in Kafka's metric's words."""
    typed = group.consumer or group.share or group.streams
    if group.state == GroupState.DEAD or typed is None:
        return "dead"
    return "not_ready" if typed.state().value == "NotReady" else typed.state().value.lower()


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
            "Classic groups this broker coordinates (of its loaded __consumer_offsets "
            "partitions), by state.",
            labels=["state"],
        )
        for state, label in STATE_LABELS.items():
            groups.add_metric([label], snap.states[state])
        yield groups
        by_protocol = GaugeMetricFamily(
            f"{COORDINATOR}groupcount",
            "Groups this broker coordinates, by protocol.",
            labels=["protocol"],
        )
        for protocol in PROTOCOLS:
            by_protocol.add_metric([protocol], snap.protocols[protocol])
        yield by_protocol
        for protocol, states in TYPED_STATES.items():
            typed = GaugeMetricFamily(
                f"{COORDINATOR}{protocol}groupcount",
                f"{protocol.capitalize()} groups this broker coordinates, by state.",
                labels=["state"],
            )
            for name in states:
                typed.add_metric([name], snap.typed[(protocol, name)])
            yield typed
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
