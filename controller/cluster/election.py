"""Partition leadership decisions: pure functions (state in, decision out), no I/O.

The controller applies what these return; the same functions serve the single-node and the
cluster controller."""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from ferrolog.controller.store.base import PartitionState
from ferrolog.errors import (
    ElectionNotNeededError,
    EligibleLeadersNotAvailableError,
    KafkaError,
    PreferredLeaderNotAvailableError,
)
from ferrolog.features import ELR_FEATURE

NO_LEADER = -1


@dataclass(frozen=True)
class Eligibility:
    """What KIP-966's eligible leader replicas need to decide for one partition; callers pass
    None while `eligible.leader.replicas.version` is not finalized (Kafka's rules before it).

    `min_isr` is the topic's `min.insync.replicas`, at most its replica count (as leaders
    count it: `eligibility`); below it the leader's high watermark stays, so the replicas that
    left the ISR last hold every committed record. `unclean_restarts`: replicas whose broker
    restarted after an unclean shutdown since the state was written; they may have lost what
    they acknowledged, so they leave the ISR and the ELR, and lead nothing in that pass."""

    min_isr: int
    unclean_restarts: frozenset[int] = frozenset()


def eligibility(
    features: Mapping[str, int],
    topic_config: Mapping[str, str],
    replicas: Sequence[int],
    unclean_restarts: Collection[int] = (),
) -> Eligibility | None:
    """The partition's `Eligibility` under the finalized `features` and its topic's effective
    config, None while `eligible.leader.replicas.version` is 0."""
    if features.get(ELR_FEATURE, 0) < 1:
        return None
    min_isr = int(topic_config["min.insync.replicas"])
    return Eligibility(min(min_isr, len(replicas)), frozenset(unclean_restarts))


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
    elr: Eligibility | None = None,
) -> PartitionState | None:
    """The cluster controller's decision for one partition, or None to leave it alone.

    The leader must change when it is not alive, when it asks to shut down (`avoid`: moved
    only if another in-sync replica can take over), or when it restarted since the state was
    written (`bounced`: its new process must not inherit the old term, so the partition gets a
    new epoch even if it keeps the same leader). The new leader is the first live in-sync
    replica in assignment order, preferring ones not in `avoid`/`bounced`; the ISR keeps only
    live members (a dead replica must catch up again before it counts).

    With no live in-sync replica, Kafka's rules before KIP-966 (`elr` None) take the partition
    offline (leader -1, ISR untouched so that its last members can lead again when they
    return). With eligible leader replicas the ISR empties, and the first live replica of the
    ELR (`with_isr`) leads with an ISR of itself; with no ELR left, the last leader does (KIP-966's
    "last known leader", when it alone is left to recover from). Failing both, unclean election,
    if allowed, makes the first live replica leader with an ISR of itself: whatever it lacks is
    lost.

    A leader that stays loses its dead followers from the ISR at once, as Kafka's controller
    takes an offline replica out of the ISR: acks=all need not stall until the leader's own lag
    rule (`replica.lag.time.max.ms`) notices a broker that is gone. A restarted (`bounced`)
    follower leaves it too, as Kafka's controller handles a bounced broker as failed, then
    started: its new process may lack what the old one had (an unclean stop), so it counts
    again only once it has caught up. The leader epoch stays, as with KRaft's ISR changes; the
    leader picks the smaller ISR up at its current epoch."""
    if elr is not None and elr.unclean_restarts:
        # Out of the ISR and ELR in this pass, and no leader in it (Kafka handles an unclean
        # shutdown as its broker registers, before unfencing it); one that is in neither
        # has nothing to lose and counts as any live replica.
        held = set(state.isr) | set(state.elr)
        live = [b for b in live if b not in elr.unclean_restarts or b not in held]
    leader = state.leader
    must_move = leader == NO_LEADER or leader not in live
    is_bounced = leader in bounced and not must_move
    moving_off = leader in avoid and not must_move
    followers_in_sync = [b for b in live if b == leader or b not in bounced]
    kept = [b for b in state.isr if b in followers_in_sync]
    stays = not (must_move or is_bounced or moving_off)
    settled = (
        not state.elr and not state.last_known_elr and (elr is None or len(kept) >= elr.min_isr)
    )
    if stays and kept == state.isr and settled:
        # The common case, decided without building a state: a pass looks at every partition.
        return None
    unchanged = replace(state, controller_epoch=controller_epoch)
    if stays:
        return _changed(state, with_isr(state, kept, elr, unchanged))
    live_isr = [b for b in replicas if b in state.isr and b in live]
    good = [b for b in live_isr if b not in avoid and b not in bounced]
    if good:
        new_leader = good[0]
    elif moving_off and not is_bounced:
        # Nowhere better to go: keep leading rather than go offline.
        return _changed(state, with_isr(state, kept, elr, unchanged))
    elif live_isr:
        new_leader = live_isr[0]
    else:
        return _without_live_isr(state, replicas, live, unclean_allowed, controller_epoch, elr)
    isr = [b for b in live_isr if b == new_leader or b not in bounced]
    elected = replace(
        state,
        leader=new_leader,
        leader_epoch=state.leader_epoch + 1,
        controller_epoch=controller_epoch,
    )
    return with_isr(state, isr, elr, elected)


def with_isr(
    state: PartitionState,
    isr: list[int],
    elr: Eligibility | None,
    decided: PartitionState | None = None,
) -> PartitionState:
    """`decided` (by default `state`) with ISR `isr` and KIP-966's lists as they follow from
    the change (Kafka's PartitionChangeBuilder): while the ISR is below the minimum, the
    eligible leader replicas gather every replica that was in the ISR or eligible and is not in
    it now (nor restarted uncleanly); at the minimum they are cleared. The last known leader is
    kept only while the partition has no leader. Without `elr` both lists are cleared."""
    base = state if decided is None else decided
    if elr is None:
        return replace(base, isr=isr, elr=[], last_known_elr=[])
    if len(isr) >= elr.min_isr:
        eligible: list[int] = []
    else:
        held = set(state.elr) | set(state.isr)
        eligible = sorted(b for b in held if b not in isr and b not in elr.unclean_restarts)
    last_known = [] if base.leader != NO_LEADER else list(base.last_known_elr)
    return replace(base, isr=isr, elr=eligible, last_known_elr=last_known)


def _without_live_isr(
    state: PartitionState,
    replicas: Sequence[int],
    live: Collection[int],
    unclean_allowed: bool,
    controller_epoch: int,
    elr: Eligibility | None,
) -> PartitionState | None:
    """`failover` for a partition none of whose in-sync replicas is alive."""
    leader = state.leader
    term = replace(state, leader_epoch=state.leader_epoch + 1, controller_epoch=controller_epoch)
    if elr is not None:
        offline = with_isr(state, [], elr, replace(term, leader=NO_LEADER))
        eligible = offline.elr
        chosen = next((b for b in replicas if b in eligible and b in live), None)
        if chosen is not None:
            # It left the ISR last (or with the last ones) and so holds every committed record.
            rest = [b for b in eligible if b != chosen]
            return replace(term, leader=chosen, isr=[chosen], elr=rest, last_known_elr=[])
        last = state.last_known_elr
        if not eligible and len(last) == 1 and last[0] in live:
            return replace(term, leader=last[0], isr=[last[0]], elr=[], last_known_elr=[])
    if unclean_allowed and any(b in live for b in replicas):
        first = next(b for b in replicas if b in live)
        return replace(term, leader=first, isr=[first], elr=[], last_known_elr=[])
    if elr is None:
        if leader == NO_LEADER:
            return None
        return replace(term, leader=NO_LEADER)
    if leader != NO_LEADER:
        # The partition loses its leader now: remember it, to recover from if no eligible
        # replica ever returns.
        return replace(offline, last_known_elr=[leader])
    return _changed(state, replace(offline, leader_epoch=state.leader_epoch))


def _changed(state: PartitionState, decided: PartitionState) -> PartitionState | None:
    """`decided`, or None when it changes nothing that is stored."""
    same = (
        decided.leader == state.leader
        and decided.leader_epoch == state.leader_epoch
        and list(decided.isr) == list(state.isr)
        and decided.elr == state.elr
        and decided.last_known_elr == state.last_known_elr
    )
    return None if same else decided


def requested(
    kind: ElectionType,
    state: PartitionState,
    replicas: Sequence[int],
    live: Collection[int],
    *,
    avoid: Collection[int] = (),
    controller_epoch: int = 0,
    elr: Eligibility | None = None,
) -> PartitionState | KafkaError:
    """An election an admin asked for (ElectLeaders), for one partition: the new state, or the
    error that answers the request (as Kafka's controller decides it).

    Preferred: the first assigned replica takes over if it is alive, in sync and not shutting
    down (`avoid`); ELECTION_NOT_NEEDED if it already leads, else PREFERRED_LEADER_NOT_AVAILABLE.
    Unclean: a partition without a live leader gets the first live in-sync replica or eligible
    leader replica or, failing that, the first live replica with an ISR of itself (whatever
    only the old ISR had is lost), whatever the topic's `unclean.leader.election.enable`;
    ELECTION_NOT_NEEDED if its leader is alive, else ELIGIBLE_LEADERS_NOT_AVAILABLE."""
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
        elr=elr,
    )
    if decided is None or decided.leader == NO_LEADER:
        return EligibleLeadersNotAvailableError("no replica is alive")
    return decided
