"""The cluster's decisions as pure functions: failover election, preferred leader,
reassignment steps and the ISR policy, table-driven."""

from __future__ import annotations

import pytest
from ferrolog.controller.cluster import election
from ferrolog.controller.cluster.isr import FollowerProgress, next_isr
from ferrolog.controller.store.base import PartitionState

R = [1, 2, 3]


def st(leader: int, epoch: int, isr: list[int]) -> PartitionState:
    return PartitionState(leader=leader, leader_epoch=epoch, isr=isr, version=7)


@pytest.mark.parametrize(
    ("state", "live", "kw", "expected"),
    [
        # healthy: nothing to do
        (st(1, 4, R), {1, 2, 3}, {}, None),
        # dead follower: out of the ISR at once, same leader and epoch
        (st(1, 4, R), {1, 2}, {}, (1, 4, [1, 2])),
        # ...already out: no churn
        (st(1, 4, [1, 2]), {1, 2}, {}, None),
        # dead leader: next live in-sync replica in assignment order, dead one leaves the ISR
        (st(1, 4, R), {2, 3}, {}, (2, 5, [2, 3])),
        # dead leader whose followers are out of sync: offline, ISR kept for its return
        (st(1, 4, [1]), {2, 3}, {}, (-1, 5, [1])),
        # ...already offline: no churn
        (st(-1, 5, [1]), {2, 3}, {}, None),
        # ...back: the last in-sync replica leads again
        (st(-1, 5, [1]), {1, 2, 3}, {}, (1, 6, [1])),
        # unclean allowed: an out-of-sync live replica leads with an ISR of itself
        (st(1, 4, [1]), {2, 3}, {"unclean_allowed": True}, (2, 5, [2])),
        # controlled shutdown moves leadership to another in-sync replica
        (st(1, 4, R), {1, 2, 3}, {"avoid": {1}}, (2, 5, [1, 2, 3])),
        # ...but keeps it when no other replica is in sync
        (st(1, 4, [1]), {1, 2, 3}, {"avoid": {1}}, None),
        # ...dropping a dead follower all the same
        (st(1, 4, [1, 3]), {1, 2}, {"avoid": {1}}, (1, 4, [1])),
        # a restarted leader: a new epoch; another in-sync replica is preferred
        (st(1, 4, R), {1, 2, 3}, {"bounced": {1}}, (2, 5, [2, 3])),
        # ...and if it is the only in-sync one it keeps leading under a new epoch
        (st(1, 4, [1]), {1, 2, 3}, {"bounced": {1}}, (1, 5, [1])),
    ],
)
def test_failover(
    state: PartitionState,
    live: set[int],
    kw: dict[str, object],
    expected: tuple[int, int, list[int]] | None,
) -> None:
    decided = election.failover(state, R, live, controller_epoch=9, **kw)  # type: ignore[arg-type]
    if expected is None:
        assert decided is None
    else:
        assert decided is not None
        assert (decided.leader, decided.leader_epoch, decided.isr) == expected
        assert decided.controller_epoch == 9
        assert decided.version == state.version  # the store sets the next version


def test_preferred_leader_election() -> None:
    assert election.preferred(st(2, 3, R), R, {1, 2, 3}, 1) == PartitionState(1, 4, R, 1, 7)
    assert election.preferred(st(1, 3, R), R, {1, 2, 3}, 1) is None  # already leads
    assert election.preferred(st(2, 3, [2, 3]), R, {1, 2, 3}, 1) is None  # not in sync
    assert election.preferred(st(2, 3, R), R, {2, 3}, 1) is None  # not alive


def test_reassignment_steps() -> None:
    # 1: grow to target + old replicas under a new epoch (same leader and ISR)
    grown, moved, done = election.reassignment_step(
        [1, 2, 3], [2, 3, 4], st(1, 0, R), {1, 2, 3, 4}, 1
    )
    assert (grown, done) == ([2, 3, 4, 1], False)
    assert moved is not None
    assert (moved.leader, moved.leader_epoch, moved.isr) == (1, 1, R)
    # 2: waiting for replica 4 to join the ISR
    assert election.reassignment_step([2, 3, 4, 1], [2, 3, 4], st(1, 0, R), {1, 2, 3, 4}, 1) == (
        None,
        None,
        False,
    )
    # 3: in sync: leadership moves into the target, the ISR and assignment shrink to it
    grown, moved, done = election.reassignment_step(
        [2, 3, 4, 1], [2, 3, 4], st(1, 0, [1, 2, 3, 4]), {1, 2, 3, 4}, 1
    )
    assert grown == [2, 3, 4]
    assert moved is not None
    assert (moved.leader, moved.leader_epoch, moved.isr) == (2, 1, [2, 3, 4])
    assert done


NOW = 100_000


@pytest.mark.parametrize(
    ("isr", "followers", "hw", "expected"),
    [
        # both followers fresh
        ([1, 2, 3], {2: (50, NOW - 100), 3: (50, NOW - 100)}, 50, [1, 2, 3]),
        # follower 3 last caught up 3 s ago (> 2 s): out
        ([1, 2, 3], {2: (50, NOW - 100), 3: (10, NOW - 3000)}, 50, [1, 2]),
        # follower 3 never fetched, leadership began 3 s ago: out
        ([1, 2, 3], {2: (50, NOW - 100)}, 50, [1, 2]),
        # follower 3 caught up to the high watermark during this leadership: back in
        ([1, 2], {2: (50, NOW - 100), 3: (50, NOW - 10)}, 50, [1, 2, 3]),
        # follower 3 fresh but below the high watermark: stays out
        ([1, 2], {2: (50, NOW - 100), 3: (40, NOW - 10)}, 50, [1, 2]),
    ],
)
def test_isr_policy(
    isr: list[int], followers: dict[int, tuple[int, int]], hw: int, expected: list[int]
) -> None:
    progress = {b: FollowerProgress(leo, caught) for b, (leo, caught) in followers.items()}
    assert next_isr(isr, R, 1, progress, hw, NOW, 2000, NOW - 3000) == expected


def test_new_leader_gives_followers_a_full_lag_period() -> None:
    # Leadership began 1 s ago; follower 3 has not fetched yet: it stays in the ISR.
    assert next_isr(R, R, 1, {}, 0, NOW, 2000, NOW - 1000) == R
