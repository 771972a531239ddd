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

    Each partition goes to a member subscribed to its topic. Members first keep their current
    partitions; the rest go, the partitions with the fewest candidates first, to the least
    loaded candidate; then partitions move, one at a time, from a member to a candidate with
    at least two fewer, until no such move is left (each move lowers the spread, so this
    ends). With one subscription for all, loads end within one of each other."""
    candidates: dict[tuple[str, int], list[str]] = {}
    for topic, count in topics.items():
        subscribed = sorted(m for m, names in members.items() if topic in names)
        if subscribed:
            for p in range(count):
                candidates[(topic, p)] = subscribed
    owned: dict[str, set[tuple[str, int]]] = {m: set() for m in members}
    owner: dict[tuple[str, int], str] = {}
    for member_id in sorted(current):
        if member_id not in members:
            continue
        for topic, ps in current[member_id].items():
            for p in ps:
                tp = (topic, p)
                if tp in candidates and member_id in candidates[tp] and tp not in owner:
                    owner[tp] = member_id
                    owned[member_id].add(tp)
    for tp in sorted(set(candidates) - set(owner), key=lambda tp: (len(candidates[tp]), tp)):
        target = min(candidates[tp], key=lambda m: (len(owned[m]), m))
        owner[tp] = target
        owned[target].add(tp)
    moved = True
    while moved:
        moved = False
        for source in sorted(members, key=lambda m: (-len(owned[m]), m)):
            for tp in sorted(owned[source], reverse=True):
                target = min(candidates[tp], key=lambda m: (len(owned[m]), m))
                if len(owned[target]) < len(owned[source]) - 1:
                    owned[source].discard(tp)
                    owned[target].add(tp)
                    moved = True
                    break
            if moved:
                break
    result: Assignment = {m: {} for m in members}
    for member_id, tps in owned.items():
        for topic, p in tps:
            result[member_id].setdefault(topic, set()).add(p)
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
