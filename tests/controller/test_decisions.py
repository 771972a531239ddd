"""The cluster's decisions as pure functions: failover election, elections asked for
(preferred and unclean), reassignment checks and steps, and the ISR policy, table-driven."""

from __future__ import annotations

import pytest
from ferrolog.controller.cluster import election, reassignment
from ferrolog.controller.cluster.isr import FollowerProgress, next_isr
from ferrolog.controller.store.base import PartitionState, TopicRecord
from ferrolog.errors import (
    ElectionNotNeededError,
    EligibleLeadersNotAvailableError,
    InvalidReplicaAssignmentError,
    InvalidReplicationFactorError,
    KafkaError,
    NoReassignmentInProgressError,
    PreferredLeaderNotAvailableError,
    UnknownTopicOrPartitionError,
)

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
        # a restarted follower leaves the ISR until it has caught up; leader and epoch stay
        (st(1, 4, R), {1, 2, 3}, {"bounced": {2}}, (1, 4, [1, 3])),
        # ...also when the leader, shutting down, has nowhere else to go
        (st(1, 4, [1, 2]), {1, 2, 3}, {"bounced": {2}, "avoid": {1}}, (1, 4, [1])),
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


def elr_st(
    leader: int, epoch: int, isr: list[int], elr: list[int], last: list[int] | None = None
) -> PartitionState:
    return PartitionState(leader, epoch, isr, version=7, elr=elr, last_known_elr=last or [])


MIN2 = election.Eligibility(min_isr=2)


@pytest.mark.parametrize(
    ("state", "live", "elr", "expected"),
    [
        # the ISR at the minimum: no eligible replicas
        (elr_st(1, 4, R, []), {1, 2}, MIN2, (1, 4, [1, 2], [], [])),
        # below it: the follower that left holds every committed record (the leader's high
        # watermark stays), so it is eligible
        (elr_st(1, 4, [1, 2], []), {1}, MIN2, (1, 4, [1], [2], [])),
        # the last in-sync replica dies: the ISR empties, both are eligible, and the partition
        # remembers its last leader
        (elr_st(1, 4, [1], [2]), set(), MIN2, (-1, 5, [], [1, 2], [1])),
        # ...already so: no churn
        (elr_st(-1, 5, [], [1, 2], [1]), {3}, MIN2, None),
        # an eligible replica returns: it leads, with an ISR of itself (where Kafka's rule
        # before KIP-966 waits for broker 1)
        (elr_st(-1, 5, [], [1, 2], [1]), {2, 3}, MIN2, (2, 6, [2], [1], [])),
        # a dead leader with an eligible replica alive: elected at once
        (elr_st(1, 4, [1], [2]), {2}, MIN2, (2, 5, [2], [1], [])),
        # one that restarted after an unclean shutdown is no longer eligible, nor leader
        (
            elr_st(-1, 5, [], [1, 2], [1]),
            {2, 3},
            election.Eligibility(2, frozenset({2})),
            (-1, 5, [], [1], [1]),
        ),
        # nothing eligible is left: the last known leader recovers the partition
        (elr_st(-1, 5, [], [], [1]), {1}, MIN2, (1, 6, [1], [], [])),
        # ...not while an eligible replica may still return
        (elr_st(-1, 5, [], [2], [1]), {1}, MIN2, None),
        # the ISR at the minimum clears the eligible replicas
        (elr_st(2, 6, [2, 3], [1]), {1, 2, 3}, MIN2, (2, 6, [2, 3], [], [])),
        (elr_st(2, 6, [2, 3, 1], [1]), {2, 3}, MIN2, (2, 6, [2, 3], [], [])),
        # a minimum of one: only the last member, once it is gone, is eligible
        (elr_st(1, 4, [1, 2], []), {1}, election.Eligibility(1), (1, 4, [1], [], [])),
        (elr_st(1, 4, [1], []), set(), election.Eligibility(1), (-1, 5, [], [1], [1])),
    ],
)
def test_failover_with_eligible_leader_replicas(
    state: PartitionState,
    live: set[int],
    elr: election.Eligibility,
    expected: tuple[int, int, list[int], list[int], list[int]] | None,
) -> None:
    decided = election.failover(state, R, live, controller_epoch=9, elr=elr)
    if expected is None:
        assert decided is None
    else:
        assert decided is not None
        got = (decided.leader, decided.leader_epoch, decided.isr, decided.elr)
        assert (*got, decided.last_known_elr) == expected


def test_eligibility_follows_the_feature_and_the_replica_count() -> None:
    config = {"min.insync.replicas": "2"}
    assert election.eligibility({}, config, R) is None
    on = {"eligible.leader.replicas.version": 1}
    assert election.eligibility(on, config, R) == election.Eligibility(2)
    assert election.eligibility(on, config, [1]) == election.Eligibility(1)
    # A replica that restarted uncleanly but is in neither list has nothing to lose: unclean
    # election may pick it at once.
    unclean = election.Eligibility(1, frozenset({2}))
    offline = elr_st(-1, 5, [], [1], [1])
    decided = election.failover(offline, R, {2}, unclean_allowed=True, elr=unclean)
    assert decided is not None
    assert (decided.leader, decided.isr, decided.elr) == (2, [2], [])
    without = election.with_isr(elr_st(1, 4, [1], [2], [3]), [1], None)
    assert (without.elr, without.last_known_elr) == ([], [])


PREFERRED, UNCLEAN = election.ElectionType.PREFERRED, election.ElectionType.UNCLEAN


@pytest.mark.parametrize(
    ("kind", "state", "live", "avoid", "expected"),
    [
        # preferred: the first replica takes over, at a new epoch, ISR unchanged
        (PREFERRED, st(2, 3, R), {1, 2, 3}, set(), (1, 4, R)),
        # ...already leads
        (PREFERRED, st(1, 3, R), {1, 2, 3}, set(), ElectionNotNeededError),
        # ...not in sync
        (PREFERRED, st(2, 3, [2, 3]), {1, 2, 3}, set(), PreferredLeaderNotAvailableError),
        # ...not alive
        (PREFERRED, st(2, 3, R), {2, 3}, set(), PreferredLeaderNotAvailableError),
        # ...shutting down
        (PREFERRED, st(2, 3, R), {1, 2, 3}, {1}, PreferredLeaderNotAvailableError),
        # ...offline partition whose preferred replica is back and in sync
        (PREFERRED, st(-1, 3, [1]), {1, 2, 3}, set(), (1, 4, [1])),
        # unclean: a live leader needs no election
        (UNCLEAN, st(2, 3, R), {2, 3}, set(), ElectionNotNeededError),
        # ...a dead leader with a live in-sync replica: that one, cleanly
        (UNCLEAN, st(1, 3, R), {2, 3}, set(), (2, 4, [2, 3])),
        # ...no live in-sync replica: the first live one, with an ISR of itself
        (UNCLEAN, st(-1, 3, [1]), {2, 3}, set(), (2, 4, [2])),
        # ...a live in-sync replica that is shutting down still beats an out-of-sync one
        (UNCLEAN, st(1, 3, [1, 3]), {2, 3}, {3}, (3, 4, [3])),
        # ...no replica alive
        (UNCLEAN, st(-1, 3, [1]), {4}, set(), EligibleLeadersNotAvailableError),
        (UNCLEAN, st(1, 3, [1]), set(), set(), EligibleLeadersNotAvailableError),
    ],
)
def test_requested_election(
    kind: election.ElectionType,
    state: PartitionState,
    live: set[int],
    avoid: set[int],
    expected: tuple[int, int, list[int]] | type[KafkaError],
) -> None:
    decided = election.requested(kind, state, R, live, avoid=avoid, controller_epoch=9)
    if isinstance(expected, tuple):
        assert isinstance(decided, PartitionState)
        assert (decided.leader, decided.leader_epoch, decided.isr) == expected
        assert (decided.controller_epoch, decided.version) == (9, state.version)
    else:
        assert type(decided) is expected


def test_reassignment_steps() -> None:
    # 1: grow to target + old replicas under a new epoch (same leader and ISR)
    grown, moved, done = reassignment.step([1, 2, 3], [2, 3, 4], st(1, 0, R), {1, 2, 3, 4}, 1)
    assert (grown, done) == ([2, 3, 4, 1], False)
    assert moved is not None
    assert (moved.leader, moved.leader_epoch, moved.isr) == (1, 1, R)
    # 2: waiting for replica 4 to join the ISR
    assert reassignment.step([2, 3, 4, 1], [2, 3, 4], st(1, 0, R), {1, 2, 3, 4}, 1) == (
        None,
        None,
        False,
    )
    # 3: in sync: leadership moves into the target, the ISR and assignment shrink to it
    grown, moved, done = reassignment.step(
        [2, 3, 4, 1], [2, 3, 4], st(1, 0, [1, 2, 3, 4]), {1, 2, 3, 4}, 1
    )
    assert grown == [2, 3, 4]
    assert moved is not None
    assert (moved.leader, moved.leader_epoch, moved.isr) == (2, 1, [2, 3, 4])
    assert done


TOPICS = {"t": TopicRecord("t", b"\x01" * 16, {0: [1, 2, 3], 1: [2, 3, 4]})}


@pytest.mark.parametrize(
    ("tp", "target", "expected"),
    [
        (("t", 0), [4, 2, 3], [4, 2, 3]),
        (("t", 0), [4, 2], [4, 2]),  # fewer replicas: allowed unless the request says not
        (("t", 0), [1, 2, 3], [1, 2, 3]),  # the replicas it has: accepted, nothing to move
        (("t", 1), None, None),  # cancels the pending move
        (("t", 0), None, NoReassignmentInProgressError),
        (("t", 0), [], InvalidReplicaAssignmentError),
        (("t", 0), [1, 1, 2], InvalidReplicaAssignmentError),
        (("t", 0), [1, 2, 9], InvalidReplicaAssignmentError),  # 9 is not registered
        (("t", 5), [1, 2, 3], UnknownTopicOrPartitionError),
        (("nope", 0), [1, 2, 3], UnknownTopicOrPartitionError),
    ],
)
def test_reassignment_check(
    tp: tuple[str, int],
    target: list[int] | None,
    expected: list[int] | type[KafkaError] | None,
) -> None:
    checked = reassignment.check({tp: target}, TOPICS, PENDING, {1, 2, 3, 4})
    if isinstance(expected, type):
        assert type(checked[tp]) is expected
    else:
        assert checked == {tp: expected}


PENDING = {("t", 1): [1, 2]}  # t-1 (replicas 2, 3, 4) is being moved to two replicas


@pytest.mark.parametrize(
    ("tp", "target", "kept"),
    [
        (("t", 0), [4, 2, 3], True),
        (("t", 0), [4, 2], False),
        (("t", 0), [4, 2, 3, 1], False),
        (("t", 1), [3, 4], True),  # as many as the pending move's target
        (("t", 1), [2, 3, 4], False),
    ],
)
def test_reassignment_that_must_keep_the_replication_factor(
    tp: tuple[str, int], target: list[int], kept: bool
) -> None:
    checked = reassignment.check({tp: target}, TOPICS, PENDING, {1, 2, 3, 4}, False)
    if kept:
        assert checked == {tp: target}
    else:
        error = checked[tp]
        assert isinstance(error, InvalidReplicationFactorError)
        current = len(PENDING.get(tp, TOPICS["t"].assignment[tp[1]]))
        assert error.message == (
            f"The replication factor is changed from {current} to {len(target)}"
        )


def test_reassignment_progress() -> None:
    # Growing: 4 assigned but not yet in sync is still being added; 1 is being removed.
    assert reassignment.progress([4, 2, 3, 1], [4, 2, 3], [1, 2, 3]) == ([4], [1])
    # Not yet grown: 4 is not assigned at all.
    assert reassignment.progress([1, 2, 3], [4, 2, 3], [1, 2, 3]) == ([4], [1])
    # Caught up, not yet cut over.
    assert reassignment.progress([4, 2, 3, 1], [4, 2, 3], [1, 2, 3, 4]) == ([], [1])


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
