"""The `sticky` task assignor of streams groups (KIP-1071), through `sticky()` only: balance,
stickiness, where standbys go, and cases from Kafka's StickyTaskAssignorTest."""

from __future__ import annotations

from dataclasses import replace

import pytest
from ferrolog.controller.coordinator.group.streams_assignor import (
    MemberAssignment,
    MemberSpec,
    SubtopologySpec,
    TaskAssignorError,
    Tasks,
    sticky,
)

TaskId = tuple[str, int]


def member(
    member_id: str,
    process_id: str | None = None,
    active: Tasks | None = None,
    standby: Tasks | None = None,
    offsets: dict[TaskId, int] | None = None,
) -> MemberSpec:
    """A member on its own process (named after it) unless `process_id` says otherwise."""
    return MemberSpec(
        member_id, process_id or f"p-{member_id}", active or {}, standby or {}, {}, offsets or {}
    )


def topology(*ids: str, tasks: int, stateful: bool = True) -> list[SubtopologySpec]:
    return [SubtopologySpec(i, tasks, stateful) for i in ids]


def tasks_of(target: Tasks) -> set[TaskId]:
    return {(s, p) for s, ps in target.items() for p in ps}


def actives(result: dict[str, MemberAssignment], member_id: str) -> set[TaskId]:
    return tasks_of(result[member_id].active)


def standbys(result: dict[str, MemberAssignment], member_id: str) -> set[TaskId]:
    return tasks_of(result[member_id].standby)


def as_current(result: dict[str, MemberAssignment], members: list[MemberSpec]) -> list[MemberSpec]:
    """The members again, now holding what `result` gave them."""
    return [
        replace(m, active=result[m.member_id].active, standby=result[m.member_id].standby)
        for m in members
    ]


def check_invariants(
    result: dict[str, MemberAssignment], members: list[MemberSpec], subs: list[SubtopologySpec]
) -> None:
    """Each task is active exactly once, active counts are within one of each other, and no
    process holds a task twice in any role."""
    every = sorted((s.subtopology_id, p) for s in subs for p in range(s.tasks))
    assert sorted(t for m in members for t in actives(result, m.member_id)) == every
    counts = [len(actives(result, m.member_id)) for m in members]
    assert max(counts) - min(counts) <= 1
    held: dict[str, list[TaskId]] = {}
    for m in members:
        both = list(actives(result, m.member_id)) + list(standbys(result, m.member_id))
        held.setdefault(m.process_id, []).extend(both)
    for tasks in held.values():
        assert len(tasks) == len(set(tasks))


# Balance and stickiness


def test_tasks_spread_evenly_over_members() -> None:
    members = [member(f"m{i}", f"p{i % 2}") for i in range(4)]
    subs = topology("0", "1", "2", tasks=7)
    result = sticky(members, subs, 0)
    check_invariants(result, members, subs)
    assert sorted(len(actives(result, m.member_id)) for m in members) == [5, 5, 5, 6]


def test_fresh_group_gets_partition_ranges_across_subtopologies() -> None:
    # Partition p of every subtopology lands on one member (Kafka's range-style preference).
    result = sticky([member("a"), member("b")], topology("0", "1", tasks=2), 1)
    assert actives(result, "a") == {("0", 0), ("1", 0)}
    assert actives(result, "b") == {("0", 1), ("1", 1)}
    assert standbys(result, "a") == {("0", 1), ("1", 1)}
    assert standbys(result, "b") == {("0", 0), ("1", 0)}


def test_actives_stay_put_when_a_member_joins() -> None:
    subs = topology("0", tasks=6, stateful=False)
    first = sticky([member("a"), member("b")], subs, 0)
    joined = [*as_current(first, [member("a"), member("b")]), member("c")]
    second = sticky(joined, subs, 0)
    check_invariants(second, joined, subs)
    assert actives(second, "a") < actives(first, "a")
    assert actives(second, "b") < actives(first, "b")
    assert len(actives(second, "c")) == 2


def test_actives_stay_put_when_a_member_leaves() -> None:
    subs = topology("0", tasks=6, stateful=False)
    three = [member("a"), member("b"), member("c")]
    first = sticky(three, subs, 0)
    remaining = as_current(first, three)[:2]
    second = sticky(remaining, subs, 0)
    check_invariants(second, remaining, subs)
    assert actives(second, "a") > actives(first, "a")
    assert actives(second, "b") > actives(first, "b")
    assert "c" not in second


def test_a_task_goes_back_to_its_previous_owner() -> None:
    # Without history, "a" would get task 0; "b" owned it, so "b" keeps it.
    members = [member("a"), member("b", active={"0": {0}})]
    result = sticky(members, topology("0", tasks=2, stateful=False), 0)
    assert actives(result, "b") == {("0", 0)}
    assert actives(result, "a") == {("0", 1)}


def test_rerunning_on_its_own_result_moves_nothing() -> None:
    members = [member(f"m{i}", f"p{i % 3}") for i in range(7)]
    subs = [*topology("0", "1", tasks=10), *topology("2", tasks=5, stateful=False)]
    first = sticky(members, subs, 1)
    assert sticky(as_current(first, members), subs, 1) == first


def test_result_does_not_depend_on_member_order() -> None:
    members = [member(f"m{i}", f"p{i % 3}", offsets={("0", i): 10 * i}) for i in range(6)]
    subs = topology("0", "1", tasks=8)
    assert sticky(members, subs, 1) == sticky(list(reversed(members)), subs, 1)


# Previous state holders


def test_most_caught_up_standby_gets_the_active_when_the_owner_left() -> None:
    members = [
        member("a", standby={"0": {0}}, offsets={("0", 0): 50}),
        member("b", standby={"0": {0}}, offsets={("0", 0): 100}),
        # Reports more, but only holds the state on disk, not as a current standby.
        member("c", offsets={("0", 0): 1_000}),
    ]
    result = sticky(members, topology("0", tasks=1), 0)
    assert actives(result, "b") == {("0", 0)}


def test_restarted_members_get_the_tasks_whose_state_they_report() -> None:
    # Kafka's shouldAssignTasksToMembersReportingTaskOffsetsOnColdStart: fresh member ids, no
    # current assignment, but offsets for the state on disk.
    members = [
        member("m1", offsets={("0", 0): 100, ("0", 1): 100}),
        member("m2", offsets={("0", 2): 100, ("0", 3): 100}),
    ]
    result = sticky(members, topology("0", tasks=4), 0)
    assert actives(result, "m1") == {("0", 0), ("0", 1)}
    assert actives(result, "m2") == {("0", 2), ("0", 3)}


# Standbys


def test_standby_goes_to_another_process_than_its_active() -> None:
    members = [member("a1", "p1"), member("a2", "p1"), member("b1", "p2"), member("b2", "p2")]
    subs = topology("0", tasks=8)
    result = sticky(members, subs, 1)
    check_invariants(result, members, subs)
    for task in [("0", p) for p in range(8)]:
        (owner,) = [m for m in members if task in actives(result, m.member_id)]
        (copy,) = [m for m in members if task in standbys(result, m.member_id)]
        assert owner.process_id != copy.process_id


def test_only_stateful_subtopologies_get_standbys() -> None:
    subs = [*topology("stateful", tasks=3), *topology("stateless", tasks=3, stateful=False)]
    result = sticky([member("a"), member("b"), member("c")], subs, 1)
    copies = set().union(*(standbys(result, m) for m in "abc"))
    assert copies == {("stateful", p) for p in range(3)}


def test_no_standbys_unless_configured() -> None:
    result = sticky([member("a"), member("b")], topology("0", tasks=4), 0)
    assert all(not a.standby for a in result.values())


def test_standbys_that_no_other_process_can_take_are_left_out() -> None:
    one_process = [member("a", "p"), member("b", "p"), member("c", "p")]
    result = sticky(one_process, topology("0", tasks=3), 1)
    assert sum(len(actives(result, m)) for m in "abc") == 3
    assert all(not a.standby for a in result.values())
    # Two processes and two copies asked: each task gets the one copy that fits.
    result = sticky([member("a"), member("b")], topology("0", tasks=4), 2)
    assert standbys(result, "a") | standbys(result, "b") == {("0", p) for p in range(4)}
    assert len(standbys(result, "a")) + len(standbys(result, "b")) == 4


def test_members_of_one_process_share_its_load() -> None:
    # A process's load is its tasks over its members: two threads take twice one thread's part.
    members = [member("a1", "a"), member("a2", "a"), member("b1", "b")]
    result = sticky(members, topology("0", tasks=6, stateful=False), 0)
    assert [len(actives(result, m)) for m in ("a1", "a2", "b1")] == [2, 2, 2]
    result = sticky(members, topology("0", tasks=6), 1)
    # 12 tasks in all; a process never holds both copies of a task, so "a" holds at most 6.
    assert len(actives(result, "b1") | standbys(result, "b1")) == 6
    assert all(len(actives(result, m) | standbys(result, m)) == 3 for m in ("a1", "a2"))


# No members


def test_tasks_without_members_is_an_error() -> None:
    with pytest.raises(TaskAssignorError):
        sticky([], topology("0", tasks=1), 0)


def test_no_members_and_no_tasks_is_empty() -> None:
    assert sticky([], [], 1) == {}
    assert sticky([], topology("0", tasks=0), 1) == {}


def test_every_member_gets_an_entry() -> None:
    result = sticky([member("a"), member("b"), member("c")], topology("0", tasks=1), 0)
    assert list(result) == ["a", "b", "c"]
    assert result["b"] == result["c"] == MemberAssignment({}, {})


# Cases from Kafka's StickyTaskAssignorTest


def test_kafka_tasks_not_previously_active_go_to_new_member() -> None:
    # shouldAssignTasksNotPreviouslyActiveToNewClient: existing owners keep their actives; the
    # newcomer, holding every task as standby, gets exactly the tasks nobody owned.
    members = [
        member("member1", active={"0": {1}, "1": {2, 3}},
               standby={"0": {0}, "1": {1}, "2": {0, 1, 3}}),
        member("member2", active={"0": {0}, "1": {1}, "2": {2}},
               standby={"0": {1, 2, 3}, "1": {0, 2, 3}, "2": {0, 1, 3}}),
        member("member3", active={"2": {0, 1, 3}}, standby={"0": {2}, "1": {2}}),
        member("newMember", standby={s: {0, 1, 2, 3} for s in ("0", "1", "2")}),
    ]  # fmt: skip
    result = sticky(members, topology("0", "1", "2", tasks=4, stateful=False), 0)
    assert result["member1"].active == {"0": {1}, "1": {2, 3}}
    assert result["member2"].active == {"0": {0}, "1": {1}, "2": {2}}
    assert result["member3"].active == {"2": {0, 1, 3}}
    assert result["newMember"].active == {"0": {2, 3}, "1": {0}}


def test_kafka_current_owners_rank_ahead_of_reported_offsets() -> None:
    # shouldRankCurrentOwnersAheadOfReportedTaskOffsetsAndMostCaughtUpFirst.
    members = [
        member("member1", active={"0": {0}}),
        member("member2", standby={"0": {0, 1}}),
        member("member3", offsets={("0", 0): 1_000_000, ("0", 1): 1_000_000, ("0", 2): 100}),
        member("member4", offsets={("0", 2): 50}),
    ]
    result = sticky(members, topology("0", tasks=4), 0)
    assert [actives(result, f"member{i}") for i in range(1, 5)] == [
        {("0", 0)},
        {("0", 1)},
        {("0", 2)},
        {("0", 3)},
    ]


def test_kafka_standby_stays_on_previous_standby_not_holding_the_active() -> None:
    # shouldAssignStandbyToPreviousStandbyThatDoesNotHoldTheActiveTask. Task 2 goes from
    # standby to active on idle member1, and member2 keeps its standby of 2. Kafka accepts three
    # layouts for the standbys of 0 and 1. With ties broken by process id, it is its third.
    members = [
        member("member1", standby={"0": {2}}),
        member("member2", active={"0": {0}}, standby={"0": {2}}),
        member("member3", active={"0": {1}}),
        member("member4"),
    ]
    result = sticky(members, topology("0", tasks=3), 1)
    assert [actives(result, f"member{i}") for i in range(1, 5)] == [
        {("0", 2)},
        {("0", 0)},
        {("0", 1)},
        set(),
    ]
    assert [standbys(result, f"member{i}") for i in range(1, 5)] == [
        {("0", 0)},
        {("0", 2)},
        set(),
        {("0", 1)},
    ]


def test_kafka_cold_start_keeps_state_on_its_process_across_its_members() -> None:
    # shouldAssignTasksToProcessesReportingTaskOffsetsOnColdStartWithMultipleMembersPerProcess.
    p1 = {("0", 0): 100, ("0", 1): 100}
    p2 = {("0", 2): 100, ("0", 3): 100}
    members = [
        member("member1_1", "process1", offsets=p1),
        member("member1_2", "process1", offsets=p1),
        member("member2_1", "process2", offsets=p2),
        member("member2_2", "process2", offsets=p2),
    ]
    result = sticky(members, topology("0", tasks=4), 0)
    assert actives(result, "member1_1") | actives(result, "member1_2") == {("0", 0), ("0", 1)}
    assert actives(result, "member2_1") | actives(result, "member2_2") == {("0", 2), ("0", 3)}


def test_kafka_previous_standby_on_an_idle_member_gets_the_active() -> None:
    # shouldAssignBasedOnCapacityWhenMultipleClientHaveStandbyTasks: task 1, a standby of
    # member1 and member2_1, goes to the idle member2_2, which is below quota.
    members = [
        member("member1", "process1", active={"0": {0}}, standby={"0": {1}}),
        member("member2_1", "process2", active={"0": {2}}, standby={"0": {1}}),
        member("member2_2", "process2"),
    ]
    result = sticky(members, topology("0", tasks=3, stateful=False), 0)
    assert actives(result, "member1") == {("0", 0)}
    assert actives(result, "member2_1") == {("0", 2)}
    assert actives(result, "member2_2") == {("0", 1)}


def test_kafka_multiple_standby_copies_go_to_every_other_process() -> None:
    # shouldAssignMultipleReplicasOfStandbyTask.
    members = [member(f"member{i}", active={"0": {i - 1}}) for i in range(1, 4)]
    result = sticky(members, topology("0", tasks=3), 2)
    assert standbys(result, "member1") == {("0", 1), ("0", 2)}
    assert standbys(result, "member2") == {("0", 0), ("0", 2)}
    assert standbys(result, "member3") == {("0", 0), ("0", 1)}


# Scale


def test_thousands_of_tasks_assign_quickly_and_stick() -> None:
    # 3 subtopologies of 2,000 tasks, 50 members on 10 processes, one standby each. One
    # assignment should be O(tasks log members); quadratic work would take many seconds.
    members = [member(f"m{i:02}", f"p{i % 10}") for i in range(50)]
    subs = topology("0", "1", "2", tasks=2_000)
    first = sticky(members, subs, 1)
    check_invariants(first, members, subs)
    assert sum(len(standbys(first, m.member_id)) for m in members) == 6_000
    second = sticky(as_current(first, members), subs, 1)
    assert second == first
