"""Kafka's `simple` share group assignor (`group.share.assignors`), the only built-in one.

A share group's partitions may go to several members at once. With P partitions and M
members each partition is shared by ceil(M / P) members, and each member's count is its
fair part of the ceil(M / P) * P slots, the first members getting the rounding: so with more
members than partitions members share, and with fewer each gets its slice of the partitions.
It starts from the current target (sticky): members keep what they hold, within their count
and the sharing, and what is missing goes round-robin to the members below their count.

When every member subscribes to the same topics (homogeneous) their partitions make one pool;
otherwise each topic is spread over its own subscribers. Kafka orders members and partitions
by Java hash iteration; here members are in id order and partitions in (topic, partition)
order, so the same inputs give the same target."""

from __future__ import annotations

from collections.abc import Mapping

from ferrolog.controller.coordinator.group.consumer_state import Partitions

Assignment = dict[str, Partitions]  # member id -> topic -> partitions
TopicPartition = tuple[str, int]


def simple(
    members: Mapping[str, frozenset[str]],
    assignable: Mapping[str, list[int]],
    current: Assignment,
) -> Assignment:
    """`members`: member id -> subscribed topic names; `assignable`: topic -> the partitions
    that may be assigned (those whose share state is initialized); `current`: the last
    target. Returns the new target, every member present (with {} when it gets nothing)."""
    result: Assignment = {m: {} for m in members}
    if not members:
        return result
    subscriptions = set(members.values())
    if len(subscriptions) == 1:
        (common,) = subscriptions
        groups = [(sorted(members), sorted(t for t in common if t in assignable))]
    else:
        every = sorted({t for names in subscriptions for t in names if t in assignable})
        groups = [(sorted(m for m, names in members.items() if t in names), [t]) for t in every]
    for member_ids, topics in groups:
        pool = [(t, p) for t in topics for p in sorted(assignable[t])]
        held = {
            m: [tp for tp in pool if tp[1] in current.get(m, {}).get(tp[0], set())]
            for m in member_ids
        }
        for member_id, tps in _spread(member_ids, pool, held).items():
            for topic, p in tps:
                result[member_id].setdefault(topic, set()).add(p)
    return result


def _spread(
    member_ids: list[str], pool: list[TopicPartition], held: dict[str, list[TopicPartition]]
) -> dict[str, list[TopicPartition]]:
    count, size = len(member_ids), len(pool)
    if not size or not count:
        return {m: [] for m in member_ids}
    sharing = -(-count // size)
    slots = sharing * size

    def ceil_share(i: int) -> int:
        return -(-(slots * i) // count)

    desired = {m: ceil_share(i + 1) - ceil_share(i) for i, m in enumerate(member_ids)}
    # Members keep what they hold, up to their count.
    assigned = {m: held.get(m, [])[: desired[m]] for m in member_ids}
    # A partition held by more members than the sharing loses the later ones.
    holders: dict[TopicPartition, list[str]] = {tp: [] for tp in pool}
    for m in member_ids:
        for tp in assigned[m]:
            holders[tp].append(m)
    for tp, ms in holders.items():
        for m in ms[sharing:]:
            assigned[m].remove(tp)
        del ms[sharing:]
    unfilled = [m for m in member_ids if len(assigned[m]) < desired[m]]
    turn = 0
    for tp in pool:
        while len(holders[tp]) < sharing and unfilled:
            candidates = [m for m in unfilled if m not in holders[tp]]
            if not candidates:
                break
            # Round-robin over the unfilled members, from where the last partition stopped.
            member = min(candidates, key=lambda m: (unfilled.index(m) - turn) % len(unfilled))
            turn = unfilled.index(member) + 1
            assigned[member].append(tp)
            holders[tp].append(member)
            if len(assigned[member]) >= desired[member]:
                unfilled.remove(member)
                turn -= 1
    return assigned
