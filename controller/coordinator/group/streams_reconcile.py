"""How a streams group member's current assignment follows its target (Kafka 4.4's streams
CurrentAssignmentBuilder): tasks it must give up first (it stays at its epoch, UNREVOKED_TASKS,
until a heartbeat lists what it owns without them), then new tasks at the target's epoch, held
back while another member still holds them (UNRELEASED_TASKS): a task runs in one place at a
time, and one process never holds a task twice.

Role changes on one member need no one else: an active task demoted to standby keeps its
standby at once (the active one is still revoked first), standby and warm-up swap in place, and
a standby or warm-up promoted to active is kept until the active task is granted."""

from __future__ import annotations

import functools
from collections.abc import Callable

from ferrolog import errors
from ferrolog.controller.coordinator.group.streams_state import (
    EpochTasks,
    MemberState,
    StreamsGroup,
    StreamsMember,
    Tasks,
    TaskSet,
)

# (subtopology, partition) -> whether it is held back for this member.
Unreleased = Callable[[str, int], bool]


class Holders:
    """Who holds each task now (pending revocation included), by process: what decides
    whether a task may be granted (Kafka's currentActiveTaskProcessId and the standby and
    warm-up process sets). Built on first use, over every member: a heartbeat of a member
    already at its target (most of them) does not need it."""

    def __init__(self, sg: StreamsGroup) -> None:
        self._sg = sg

    @functools.cached_property
    def _index(
        self,
    ) -> tuple[
        dict[tuple[str, int], str], dict[tuple[str, int], set[str]], dict[tuple[str, int], set[str]]
    ]:
        active: dict[tuple[str, int], str] = {}
        standby: dict[tuple[str, int], set[str]] = {}
        warmup: dict[tuple[str, int], set[str]] = {}
        for m in self._sg.members.values():
            held = m.holds()
            for s, ps in held.active.items():
                for p in ps:
                    active[(s, p)] = m.process_id
            for index, tasks in ((standby, held.standby), (warmup, held.warmup)):
                for s, ps in tasks.items():
                    for p in ps:
                        index.setdefault((s, p), set()).add(m.process_id)
        return active, standby, warmup

    @property
    def active(self) -> dict[tuple[str, int], str]:
        return self._index[0]

    @property
    def standby(self) -> dict[tuple[str, int], set[str]]:
        return self._index[1]

    @property
    def warmup(self) -> dict[tuple[str, int], set[str]]:
        return self._index[2]


def reconcile(
    member: StreamsMember,
    target: TaskSet,
    target_epoch: int,
    owned: TaskSet | None,
    holders: Holders,
) -> None:
    """Moves `member` toward `target` (computed at `target_epoch`); `owned` is what its
    heartbeat says it owns (None: it did not say)."""
    state = member.state
    if state == MemberState.STABLE:
        if member.member_epoch != target_epoch:
            _next(member, member.member_epoch, target, target_epoch, owned, holders)
    elif state == MemberState.UNREVOKED_TASKS:
        pending = TaskSet(
            _plain(member.pending_active), member.pending_standby, member.pending_warmup
        )
        if not _still_held(owned, pending):
            _next(member, member.member_epoch + 1, target, target_epoch, owned, holders)
    elif state == MemberState.UNRELEASED_TASKS:
        _next(member, member.member_epoch, target, target_epoch, owned, holders)
    else:
        if owned is None or not owned.is_empty():
            raise errors.FencedMemberEpochError(
                "The streams group member is in a unknown state. The member must abandon all "
                "its tasks and rejoin."
            )
        _next(member, target_epoch, target, target_epoch, owned, holders)


def _next(
    member: StreamsMember,
    epoch: int,
    target: TaskSet,
    target_epoch: int,
    owned: TaskSet | None,
    holders: Holders,
) -> None:
    process = member.process_id
    own_standby, own_warmup = member.standby, member.warmup

    def other_here(index: dict[tuple[str, int], set[str]], mine: Tasks, s: str, p: int) -> bool:
        return process in index.get((s, p), ()) and p not in mine.get(s, ())

    def active_unreleased(s: str, p: int) -> bool:
        return (
            (s, p) in holders.active
            or other_here(holders.standby, own_standby, s, p)
            or other_here(holders.warmup, own_warmup, s, p)
        )

    def standby_unreleased(s: str, p: int) -> bool:
        run_here = holders.active.get((s, p)) == process and p not in member.active.get(s, {})
        return (
            run_here
            or process in holders.standby.get((s, p), ())
            or other_here(holders.warmup, own_warmup, s, p)
        )

    def warmup_unreleased(s: str, p: int) -> bool:
        return (
            holders.active.get((s, p)) == process
            or other_here(holders.standby, own_standby, s, p)
            or process in holders.warmup.get((s, p), ())
        )

    keep_a, revoke_a, add_a, held_a = _diff_epochs(
        member.active, target.active, target_epoch, active_unreleased
    )
    keep_s, revoke_s, add_s, held_s = _diff(own_standby, target.standby, standby_unreleased)
    keep_w, revoke_w, add_w, held_w = _diff(own_warmup, target.warmup, warmup_unreleased)
    # Demoted active -> standby: granted now (the active task is still revoked first).
    for s, epochs in member.active.items():
        for p in list(epochs):
            if p in add_s.get(s, ()):
                _move(add_s, keep_s, s, p)
    # Standby <-> warm-up: converted in place, nothing to revoke.
    for outgoing, revoking, adding, keeping in (
        (own_standby, revoke_s, add_w, keep_w),
        (own_warmup, revoke_w, add_s, keep_s),
    ):
        for s, ps in outgoing.items():
            for p in ps:
                if p in adding.get(s, ()):
                    _move(adding, keeping, s, p)
                    _discard(revoking, s, p)
    # Promoted to active: never revoked; kept until the active task is granted.
    for mine, revoking in ((own_standby, revoke_s), (own_warmup, revoke_w)):
        for s, ps in mine.items():
            for p in ps:
                if p in target.active.get(s, ()):
                    _discard(revoking, s, p)
    pending = TaskSet(_plain(revoke_a), revoke_s, revoke_w)
    revoking_now = not pending.is_empty() and _still_held(owned, pending)
    for mine, keeping in ((own_standby, keep_s), (own_warmup, keep_w)):
        for s, ps in mine.items():
            for p in ps:
                granted = not revoking_now and p in add_a.get(s, {})
                if p in target.active.get(s, ()) and not granted:
                    keeping.setdefault(s, set()).add(p)
    unreleased = held_a or held_s or held_w
    if revoking_now:
        _set(member, MemberState.UNREVOKED_TASKS, epoch, keep_a, keep_s, keep_w)
        member.pending_active, member.pending_standby, member.pending_warmup = (
            revoke_a,
            revoke_s,
            revoke_w,
        )
        return
    if add_a or add_s or add_w:
        for s, added in add_a.items():
            keep_a.setdefault(s, {}).update(added)
        for adds, keeps in ((add_s, keep_s), (add_w, keep_w)):
            for s, qs in adds.items():
                keeps.setdefault(s, set()).update(qs)
    state = MemberState.UNRELEASED_TASKS if unreleased else MemberState.STABLE
    _set(member, state, target_epoch, keep_a, keep_s, keep_w)
    member.pending_active, member.pending_standby, member.pending_warmup = {}, {}, {}


def _set(
    member: StreamsMember,
    state: MemberState,
    epoch: int,
    active: EpochTasks,
    standby: Tasks,
    warmup: Tasks,
) -> None:
    if epoch != member.member_epoch:
        member.previous_member_epoch = member.member_epoch
        member.member_epoch = epoch
    member.state = state
    member.active = {s: ps for s, ps in active.items() if ps}
    member.standby = {s: ps for s, ps in standby.items() if ps}
    member.warmup = {s: ps for s, ps in warmup.items() if ps}


def _diff(
    current: Tasks, target: Tasks, unreleased: Unreleased
) -> tuple[Tasks, Tasks, Tasks, bool]:
    """(kept, to revoke, to add now, whether some were held back) for one task type."""
    keep: Tasks = {}
    revoke: Tasks = {}
    add: Tasks = {}
    held = False
    for s in set(current) | set(target):
        have, want = current.get(s, set()), target.get(s, set())
        if have & want:
            keep[s] = have & want
        if have - want:
            revoke[s] = have - want
        new = {p for p in want - have if not unreleased(s, p)}
        held |= len(new) < len(want - have)
        if new:
            add[s] = new
    return keep, revoke, add, held


def _diff_epochs(
    current: EpochTasks, target: Tasks, epoch: int, unreleased: Unreleased
) -> tuple[EpochTasks, EpochTasks, EpochTasks, bool]:
    """`_diff` for active tasks, which keep the epoch they were assigned at; new ones get
    `epoch`."""
    keep: EpochTasks = {}
    revoke: EpochTasks = {}
    add: EpochTasks = {}
    held = False
    for s in set(current) | set(target):
        have, want = current.get(s, {}), target.get(s, set())
        kept = {p: e for p, e in have.items() if p in want}
        gone = {p: e for p, e in have.items() if p not in want}
        missing = [p for p in want if p not in have]
        new = {p: epoch for p in missing if not unreleased(s, p)}
        held |= len(new) < len(missing)
        if kept:
            keep[s] = kept
        if gone:
            revoke[s] = gone
        if new:
            add[s] = new
    return keep, revoke, add, held


def _still_held(owned: TaskSet | None, pending: TaskSet) -> bool:
    """Whether the member may still hold some of `pending`: it did not say what it owns, or
    what it owns includes some."""
    if owned is None:
        return True
    for mine, theirs in (
        (owned.active, pending.active),
        (owned.standby, pending.standby),
        (owned.warmup, pending.warmup),
    ):
        for s, ps in theirs.items():
            if ps & mine.get(s, set()):
                return True
    return False


def _move(source: Tasks, dest: Tasks, s: str, p: int) -> None:
    _discard(source, s, p)
    dest.setdefault(s, set()).add(p)


def _discard(tasks: Tasks, s: str, p: int) -> None:
    ps = tasks.get(s)
    if ps is not None:
        ps.discard(p)
        if not ps:
            del tasks[s]


def _plain(tasks: EpochTasks) -> Tasks:
    return {s: set(ps) for s, ps in tasks.items() if ps}
