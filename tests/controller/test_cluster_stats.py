"""What one ISR change counts (Kafka's IsrShrinksPerSec / IsrExpandsPerSec): a follower
leaving is a shrink, one joining an expand, a change that does both counts both, and a
reordering counts nothing."""

from __future__ import annotations

import pytest
from ferrolog.controller.cluster.stats import ClusterStats


@pytest.mark.parametrize(
    ("old", "new", "shrinks", "expands"),
    [
        ([1, 2, 3], [1, 2], 1, 0),
        ([1, 2, 3], [1], 1, 0),
        ([1], [1, 3], 0, 1),
        ([1, 2], [1, 3], 1, 1),
        ([1, 2, 3], [3, 2, 1], 0, 0),
    ],
)
def test_isr_change(old: list[int], new: list[int], shrinks: int, expands: int) -> None:
    stats = ClusterStats()
    stats.count_isr_change(old, new)
    assert (stats.isr_shrinks, stats.isr_expands) == (shrinks, expands)


def test_elections_add_up() -> None:
    stats = ClusterStats()
    stats.count_elections(2.5)
    stats.count_elections(1.5)
    assert (stats.leader_elections, stats.leader_election_ms) == (2, 4.0)
