"""Units of share groups too small for a broker: the `simple` assignor's spread (Kafka's
examples) and stickiness, and how the share coordinator merges state batches."""

from __future__ import annotations

from ferrolog.controller.coordinator.group.share_assignor import simple
from ferrolog.controller.coordinator.share.state import StateBatch, combine


def counts(members: int, partitions: int) -> list[int]:
    ids = {f"m{i}": frozenset({"t"}) for i in range(members)}
    target = simple(ids, {"t": list(range(partitions))}, {})
    return [len(target[f"m{i}"].get("t", set())) for i in range(members)]


def test_each_partition_is_shared_by_ceil_members_over_partitions() -> None:
    # Kafka's examples: 2 members on 5 partitions; 3 on 1 (all share it); 5 on 2.
    assert counts(2, 5) == [3, 2]
    assert counts(3, 1) == [1, 1, 1]
    assert counts(5, 2) == [2, 1, 1, 1, 1]
    assert counts(4, 0) == [0, 0, 0, 0]
    ids = {f"m{i}": frozenset({"t"}) for i in range(5)}
    target = simple(ids, {"t": [0, 1]}, {})
    holders = [sum(p in t.get("t", set()) for t in target.values()) for p in (0, 1)]
    assert holders == [3, 3]  # ceil(5 / 2) members each


def test_members_keep_their_partitions_while_the_spread_allows() -> None:
    two = {"a": frozenset({"t"}), "b": frozenset({"t"})}
    first = simple(two, {"t": list(range(6))}, {})
    three = {**two, "c": frozenset({"t"})}
    second = simple(three, {"t": list(range(6))}, first)
    assert [len(second[m]["t"]) for m in "abc"] == [2, 2, 2]
    # a and b each kept two of what they had; c got the rest.
    assert second["a"]["t"] <= first["a"]["t"]
    assert second["b"]["t"] <= first["b"]["t"]


def test_topics_are_spread_over_their_own_subscribers() -> None:
    members = {"a": frozenset({"x", "y"}), "b": frozenset({"y"})}
    target = simple(members, {"x": [0, 1], "y": [0, 1]}, {})
    assert target["a"]["x"] == {0, 1}  # a alone reads x
    assert "x" not in target["b"]
    assert sorted(len(target[m]["y"]) for m in "ab") == [1, 1]


def test_only_assignable_partitions_are_assigned() -> None:
    target = simple({"a": frozenset({"t", "u"})}, {"t": [1]}, {})
    assert target == {"a": {"t": {1}}}


def b(first: int, last: int, state: int, count: int) -> StateBatch:
    return StateBatch(first, last, state, count)


def test_batches_merge_by_the_most_deliveries() -> None:
    current = [b(0, 9, 0, 1)]
    # Offsets 3-5 delivered again and acknowledged; an older delivery of 8 is ignored.
    merged = combine(current, [b(3, 5, 2, 2), b(8, 8, 2, 1)], 0)
    assert merged == [b(0, 2, 0, 1), b(3, 5, 2, 2), b(6, 7, 0, 1), b(8, 8, 2, 1), b(9, 9, 0, 1)]
    # Same count: the higher state wins.
    assert combine([b(0, 4, 0, 1)], [b(0, 4, 4, 1)], 0) == [b(0, 4, 4, 1)]


def test_batches_below_the_start_are_dropped_or_clipped() -> None:
    merged = combine([b(0, 4, 2, 1), b(5, 9, 0, 1)], [b(10, 12, 4, 1)], 7)
    assert merged == [b(7, 9, 0, 1), b(10, 12, 4, 1)]
    assert combine([b(0, 4, 2, 1)], [], -1) == [b(0, 4, 2, 1)]
    # Adjacent equal ranges are one.
    assert combine([b(0, 4, 0, 1)], [b(5, 9, 0, 1)], 0) == [b(0, 9, 0, 1)]
