"""The server-side assignors of KIP-848 consumer groups (`group.consumer.assignors`):
Kafka's built-in `uniform` and `range`.

An assignor maps members (id -> subscribed topic names) and topics (name -> partition count)
to a target assignment (member id -> topic -> partitions). It sees the current target too, so
that it can be sticky: a partition stays with its member as long as balance allows, which
keeps the revocations a rebalance causes few."""

from __future__ import annotations

from collections.abc import Callable, Mapping

Assignment = dict[str, dict[str, set[int]]]  # member id -> topic -> partitions
Assignor = Callable[[Mapping[str, frozenset[str]], Mapping[str, int], Assignment], Assignment]


def uniform(
    members: Mapping[str, frozenset[str]], topics: Mapping[str, int], current: Assignment
) -> Assignment:
    """Kafka's UniformAssignor: every member gets as even a share of the partitions it can
    take as possible, and keeps what it has while that stays even.

    Each partition goes to one of the members subscribed to its topic. Members keep their
    current partitions up to their quota (the fair share among the members subscribed to
    the same topics, rounded up for as many members as the remainder allows); what is left
    goes to the least loaded eligible member, ties broken by member id."""
    result: Assignment = {m: {} for m in members}
    counts = dict.fromkeys(members, 0)
    # Members with the same subscription share its partitions: each such set is balanced on
    # its own, which makes the common case (everyone subscribes to the same topics) exact.
    by_subscription: dict[frozenset[str], list[str]] = {}
    for member_id, subscribed in members.items():
        by_subscription.setdefault(subscribed & frozenset(topics), []).append(member_id)
    owner: dict[tuple[str, int], str] = {}
    for subscription, group in sorted(by_subscription.items(), key=lambda kv: sorted(kv[0])):
        group.sort()
        partitions = [(t, p) for t in sorted(subscription) for p in range(topics[t])]
        if not partitions:
            continue
        quota, extra = divmod(len(partitions), len(group))
        wanted = set(partitions)
        # Sticky first: those with more than the quota keep quota (+1 while extras remain).
        unassigned = set(partitions)
        for member_id in sorted(group, key=lambda m: -_size(current.get(m, {}))):
            kept = sorted(
                (t, p)
                for t, ps in current.get(member_id, {}).items()
                for p in ps
                if (t, p) in wanted and (t, p) in unassigned
            )
            limit = quota + (1 if extra > 0 else 0)
            kept = kept[:limit]
            if len(kept) > quota:
                extra -= 1
            for tp in kept:
                owner[tp] = member_id
                unassigned.discard(tp)
            counts[member_id] += len(kept)
        for tp in sorted(unassigned):
            target = min(group, key=lambda m: (counts[m], m))
            owner[tp] = target
            counts[target] += 1
    for (topic, partition), member_id in owner.items():
        result[member_id].setdefault(topic, set()).add(partition)
    return result


def range_(
    members: Mapping[str, frozenset[str]], topics: Mapping[str, int], current: Assignment
) -> Assignment:
    """Kafka's RangeAssignor: per topic, the subscribed members in member-id order take
    contiguous ranges of its partitions, the first `partitions % members` one more. Topics
    with the same partition count are thereby co-partitioned (partition i of each goes to
    the same member)."""
    result: Assignment = {m: {} for m in members}
    for topic, count in sorted(topics.items()):
        subscribed = sorted(m for m, names in members.items() if topic in names)
        if not subscribed or count <= 0:
            continue
        quota, extra = divmod(count, len(subscribed))
        start = 0
        for i, member_id in enumerate(subscribed):
            size = quota + (1 if i < extra else 0)
            if size:
                result[member_id][topic] = set(range(start, start + size))
            start += size
    return result


ASSIGNORS: dict[str, Assignor] = {"uniform": uniform, "range": range_}


def _size(assignment: Mapping[str, set[int]]) -> int:
    return sum(len(ps) for ps in assignment.values())
