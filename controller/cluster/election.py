"""Partition leadership decisions: pure functions (state in, decision out), no I/O.

The controller applies what these return; the same functions serve the single-node and the
cluster controller."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from ferrolog.controller.store.base import PartitionState

NO_LEADER = -1


def initial_state(
    replicas: Sequence[int], live_brokers: Collection[int], controller_epoch: int = 0
) -> PartitionState:
    """A new partition: the first live replica leads at epoch 0 and every replica starts in
    the ISR (an empty log is trivially in sync)."""
    leader = next((b for b in replicas if b in live_brokers), NO_LEADER)
    return PartitionState(
        leader=leader, leader_epoch=0, isr=list(replicas), controller_epoch=controller_epoch
    )


def elect_leader(
    replicas: Sequence[int],
    isr: Collection[int],
    live_brokers: Collection[int],
    unclean_allowed: bool = False,
) -> int:
    """Kafka's offline-partition election: the first replica (assignment order, so the
    preferred leader wins ties) that is alive and in the ISR; failing that, with unclean
    election allowed, the first live replica; else NO_LEADER."""
    for broker in replicas:
        if broker in live_brokers and broker in isr:
            return broker
    if unclean_allowed:
        for broker in replicas:
            if broker in live_brokers:
                return broker
    return NO_LEADER


def with_leader(
    state: PartitionState,
    leader: int,
    replicas: Sequence[int],
    controller_epoch: int | None = None,
) -> PartitionState:
    """The state after `leader` takes over: a new epoch; an unclean leader (outside the ISR)
    resets the ISR to itself. Returns `state` unchanged when nothing changes."""
    if leader == state.leader:
        return state
    isr = list(state.isr)
    if leader != NO_LEADER and leader not in isr:
        isr = [leader]
    return replace(
        state,
        leader=leader,
        leader_epoch=state.leader_epoch + 1,
        isr=[b for b in replicas if b in isr] if leader != NO_LEADER else isr,
        controller_epoch=state.controller_epoch if controller_epoch is None else controller_epoch,
    )


def restart_term(
    state: PartitionState, node_id: int, replicas: Sequence[int]
) -> PartitionState | None:
    """At startup a broker that leads a partition begins a new leadership term: the epoch is
    bumped so anything written under the previous process's term is fenced. A partition this
    broker does not lead but could (no leader at all, and it is an in-sync replica) is taken
    over. Returns None when this broker does not lead."""
    if state.leader == node_id:
        return replace(state, leader_epoch=state.leader_epoch + 1)
    if state.leader == NO_LEADER and node_id in replicas and node_id in state.isr:
        return with_leader(state, node_id, replicas)
    return None
