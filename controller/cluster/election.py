"""Partition leadership decisions: pure functions (state in, decision out), no I/O.

The controller applies what these return; the same functions serve the single-node and the
cluster controller."""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from ferrolog.controller.store.base import PartitionState
from ferrolog.errors import (
    ElectionNotNeededError,
    EligibleLeadersNotAvailableError,
    KafkaError,
    PreferredLeaderNotAvailableError,
)

NO_LEADER = -1


class ElectionType(enum.IntEnum):
    """ElectLeaders' `election_type` (KIP-460), by its wire value."""

    PREFERRED = 0
    UNCLEAN = 1


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


def restart_terms(
    assignments: Mapping[str, Mapping[int, Sequence[int]]],
    states: Mapping[str, Mapping[int, PartitionState]],
    node_id: int,
) -> list[tuple[str, int, PartitionState, PartitionState]]:
    """`restart_term` of every partition (replicas by topic and partition): (topic, partition,
    state, new state) of each whose term this broker begins."""
    return [
        (name, partition, state, bumped)
        for name, replicas in assignments.items()
        for partition, state in states[name].items()
        if (bumped := restart_term(state, node_id, replicas[partition])) is not None
    ]


def failover(
    state: PartitionState,
    replicas: Sequence[int],
    live: Collection[int],
    *,
    avoid: Collection[int] = (),
    bounced: Collection[int] = (),
    unclean_allowed: bool = False,
    controller_epoch: int = 0,
) -> PartitionState | None:
    """The cluster controller's decision for one partition, or None to leave it alone.

    The leader must change when it is not alive, when it asks to shut down (`avoid`: moved
    only if another in-sync replica can take over), or when it restarted since the state was
    written (`bounced`: its new process must not inherit the old term, so the partition gets a
    new epoch even if it keeps the same leader). The new leader is the first live in-sync
    replica in assignment order, preferring ones not in `avoid`/`bounced`; the ISR keeps only
    live members (a dead replica must catch up again before it counts). With no live in-sync
    replica the partition goes offline (leader -1, ISR untouched so that its last members can
    lead again when they return) unless unclean election is allowed, in which case the first
    live replica leads with an ISR of itself and whatever it lacks is lost.

    A leader that stays loses its dead followers from the ISR at once, as Kafka's controller
    takes an offline replica out of the ISR: acks=all need not stall until the leader's own lag
    rule (`replica.lag.time.max.ms`) notices a broker that is gone. A restarted (`bounced`)
    follower leaves it too, as Kafka's controller handles a bounced broker as failed, then
    started: its new process may lack what the old one had (an unclean stop), so it counts
    again only once it has caught up. The leader epoch stays, as with KRaft's ISR changes; the
    leader picks the smaller ISR up at its current epoch."""
    leader = state.leader
    must_move = leader == NO_LEADER or leader not in live
    is_bounced = leader in bounced and not must_move
    moving_off = leader in avoid and not must_move
    followers_in_sync = [b for b in live if b == leader or b not in bounced]
    if not (must_move or is_bounced or moving_off):
        return _without_offline_followers(state, followers_in_sync, controller_epoch)
    live_isr = [b for b in replicas if b in state.isr and b in live]
    good = [b for b in live_isr if b not in avoid and b not in bounced]
    if good:
        new_leader = good[0]
    elif moving_off and not is_bounced:
        # Nowhere better to go: keep leading rather than go offline.
        return _without_offline_followers(state, followers_in_sync, controller_epoch)
    elif live_isr:
        new_leader = live_isr[0]
    elif unclean_allowed and any(b in live for b in replicas):
        first = next(b for b in replicas if b in live)
        return replace(
            state,
            leader=first,
            leader_epoch=state.leader_epoch + 1,
            isr=[first],
            controller_epoch=controller_epoch,
        )
    else:
        if leader == NO_LEADER:
            return None
        return replace(
            state,
            leader=NO_LEADER,
            leader_epoch=state.leader_epoch + 1,
            controller_epoch=controller_epoch,
        )
    isr = [b for b in live_isr if b == new_leader or b not in bounced]
    return replace(
        state,
        leader=new_leader,
        leader_epoch=state.leader_epoch + 1,
        isr=isr,
        controller_epoch=controller_epoch,
    )


def _without_offline_followers(
    state: PartitionState, live: Collection[int], controller_epoch: int
) -> PartitionState | None:
    isr = [b for b in state.isr if b in live]
    if isr == list(state.isr):
        return None
    return replace(state, isr=isr, controller_epoch=controller_epoch)


def requested(
    kind: ElectionType,
    state: PartitionState,
    replicas: Sequence[int],
    live: Collection[int],
    *,
    avoid: Collection[int] = (),
    controller_epoch: int = 0,
) -> PartitionState | KafkaError:
    """An election an admin asked for (ElectLeaders), for one partition: the new state, or the
    error that answers the request (as Kafka's controller decides it).

    Preferred: the first assigned replica takes over if it is alive, in sync and not shutting
    down (`avoid`); ELECTION_NOT_NEEDED if it already leads, else PREFERRED_LEADER_NOT_AVAILABLE.
    Unclean: a partition without a live leader gets the first live in-sync replica or, failing
    that, the first live replica with an ISR of itself (whatever only the old ISR had is lost),
    whatever the topic's `unclean.leader.election.enable`; ELECTION_NOT_NEEDED if its leader is
    alive, else ELIGIBLE_LEADERS_NOT_AVAILABLE."""
    if kind == ElectionType.PREFERRED:
        first = replicas[0] if replicas else NO_LEADER
        if first != NO_LEADER and state.leader == first:
            return ElectionNotNeededError(f"broker {first} already leads, as preferred")
        if first not in live or first not in state.isr or first in avoid:
            return PreferredLeaderNotAvailableError(
                f"preferred replica {first} is not alive and in sync"
            )
        return replace(
            state,
            leader=first,
            leader_epoch=state.leader_epoch + 1,
            controller_epoch=controller_epoch,
        )
    if state.leader != NO_LEADER and state.leader in live:
        return ElectionNotNeededError(f"broker {state.leader} leads and is alive")
    decided = failover(
        state,
        replicas,
        live,
        avoid=avoid,
        unclean_allowed=True,
        controller_epoch=controller_epoch,
    )
    if decided is None or decided.leader == NO_LEADER:
        return EligibleLeadersNotAvailableError("no replica is alive")
    return decided
