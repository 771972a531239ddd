"""Kafka's `sticky` task assignor for KIP-1071 streams groups (`group.streams.assignors`), the
only built-in one: Kafka 4.4's StickyTaskAssignor.

A streams group assigns tasks, not partitions: task (subtopology, p) reads partition p of each
input topic of the subtopology. Members are stream threads, and the threads of one Kafka
Streams instance share a process id and a state directory. So the process is the unit of
placement: its load is its task count over its member count, and it never holds one task
twice, as active or as standby. Two copies of one state store in one directory cannot work,
and a standby next to its active protects nothing.

Actives go back to their current owner, then to a member that holds their state (a standby,
or a restarted member that reports changelog offsets for it), then to the least loaded process.
Standbys (`num_standby` copies of each task of a stateful subtopology) go to the previous
owners, then to the least loaded process that lacks the task. A copy that no process can take
is left out with a warning. Keeping a previous task is capped by a per-member quota, which is
what makes room for new members.

The steps, sort orders and quotas are Kafka's, so the same input gives Kafka's target. Kafka
breaks some ties by hash-map iteration or heap layout, which is effectively arbitrary; those
ties are broken here by member id or process id, so the result is deterministic. Like Kafka
4.4, the assignor produces no warm-up tasks and ignores the current ones."""

from __future__ import annotations

import heapq
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

log = logging.getLogger(__name__)

Tasks = dict[str, set[int]]  # subtopology id -> task (partition) numbers
TaskId = tuple[str, int]  # (subtopology id, partition)


@dataclass(frozen=True)
class MemberSpec:
    """A member as the assignor sees it: where it runs and what it holds now."""

    member_id: str
    process_id: str
    active: Tasks  # current active tasks, without those pending revocation
    standby: Tasks
    warmup: Tasks  # unused: Kafka 4.4's sticky assignor ignores warm-ups
    # (subtopology, partition) -> the changelog offset sum the member reported. This is state
    # on its disk, and it lets a member that restarted under a new id get its tasks back.
    task_offsets: dict[tuple[str, int], int]


@dataclass(frozen=True)
class SubtopologySpec:
    subtopology_id: str
    tasks: int  # tasks 0..tasks-1: the largest partition count of its input topics
    stateful: bool  # has changelog topics: only these get standby tasks


@dataclass(frozen=True)
class MemberAssignment:
    active: Tasks
    standby: Tasks


class TaskAssignorError(Exception):
    """No member can take a task because the group has tasks but no members (Kafka's
    TaskAssignorException, which the coordinator reports as UNKNOWN_SERVER_ERROR)."""


def sticky(
    members: Sequence[MemberSpec], subtopologies: Sequence[SubtopologySpec], num_standby: int
) -> dict[str, MemberAssignment]:
    """Every member gets an entry, possibly empty. Member ids are unique. Raises
    TaskAssignorError when there are tasks but no members. No members and no tasks give {}."""
    run = _Run(members, subtopologies, num_standby)
    run.assign_active([(s.subtopology_id, p) for s in subtopologies for p in range(s.tasks)])
    if num_standby > 0:
        stateful = [
            (s.subtopology_id, p) for s in subtopologies if s.stateful for p in range(s.tasks)
        ]
        run.assign_standby(stateful)
    return run.result


class _Quota:
    """How many tasks a member may hold and still get one back from before: ceil(tasks /
    members), over the members that have not reached it yet. A member that reaches the quota
    leaves the pool with its tasks, and the quota is computed again over the rest. With 7 tasks
    and 3 members, the first member to reach 3 leaves 4 tasks for 2 members, so the quota drops
    to 2. Tasks handed to the least loaded process ignore the quota, but still count."""

    def __init__(self, tasks: int, members: int) -> None:
        self.tasks, self.members = tasks, members
        self.per_member = _ceil(tasks, members)

    def reached(self, count: int) -> None:
        """Report a member's task count after it got a task."""
        if count == self.per_member:
            self.members -= 1
            self.tasks -= count
            self.per_member = _ceil(self.tasks, self.members)


def _ceil(tasks: int, members: int) -> int:
    return -(-tasks // members) if members else 0


class _Process:
    """One Kafka Streams instance: the task count of each of its members, and every task it
    holds in either role."""

    def __init__(self, process_id: str) -> None:
        self.process_id = process_id
        self.counts: dict[str, int] = {}  # member id -> active and standby tasks
        self.tasks: set[TaskId] = set()
        self.total = 0
        # A (count, member id) min-heap used to hand tasks to the least loaded member. It is
        # built on first use and dropped when a task goes to a chosen member, because that
        # would break its order. The phases alternate only twice (chosen members first, then
        # least loaded, once for actives and once for standbys), so it is built at most twice.
        self._by_count: list[tuple[int, str]] | None = None

    @property
    def load(self) -> float:
        # A float, like Kafka's double, so that equal loads compare equal as they do there.
        return self.total / len(self.counts)

    def add(self, member_id: str, task: TaskId) -> int:
        """Give `task` to `member_id`. Returns the member's new task count."""
        self._by_count = None
        return self._add(member_id, task)

    def add_to_least_loaded(self, task: TaskId) -> tuple[str, int]:
        """Give `task` to the member with the fewest tasks (ties: lowest id). Returns that
        member and its new task count."""
        if self._by_count is None:
            self._by_count = sorted((c, m) for m, c in self.counts.items())  # sorted: a heap
        member_id = self._by_count[0][1]
        count = self._add(member_id, task)
        heapq.heapreplace(self._by_count, (count, member_id))
        return member_id, count

    def _add(self, member_id: str, task: TaskId) -> int:
        self.tasks.add(task)
        self.total += 1
        self.counts[member_id] += 1
        return self.counts[member_id]


class _Run:
    """The state of one assignment: processes, previous owners, quotas and the result."""

    def __init__(
        self, members: Sequence[MemberSpec], subtopologies: Sequence[SubtopologySpec], standby: int
    ) -> None:
        self.num_standby = standby
        self.result = {m.member_id: MemberAssignment({}, {}) for m in members}
        actives = sum(s.tasks for s in subtopologies)
        standbys = standby * sum(s.tasks for s in subtopologies if s.stateful)
        self.active_quota = _Quota(actives, len(members))
        # Standby copies count in the total even when too few processes can hold them.
        self.total_quota = _Quota(actives + standbys, len(members))
        self.processes: dict[str, _Process] = {}
        self.process_of: dict[str, _Process] = {}
        self.prev_active: dict[TaskId, str] = {}
        # Each entry is (rank, minus the offset sum, member id); the lowest sorts first.
        ranked: dict[TaskId, list[tuple[int, int, str]]] = {}
        # Kafka visits members in hash order. Visiting them by id breaks its ties by id.
        for spec in sorted(members, key=lambda m: m.member_id):
            process = self.processes.setdefault(spec.process_id, _Process(spec.process_id))
            process.counts[spec.member_id] = 0
            self.process_of[spec.member_id] = process
            for task in _task_ids(spec.active):
                # Only one member should hold a task as active, because the coordinator grants
                # a task only once the previous holder released it. If two do anyway, Kafka
                # keeps the last one in hash order, and here the lowest id wins.
                self.prev_active.setdefault(task, spec.member_id)
            standby_tasks = set(_task_ids(spec.standby))
            for task in standby_tasks:
                offset = spec.task_offsets.get(task, 0)  # none reported: assume far behind
                ranked.setdefault(task, []).append((0, -offset, spec.member_id))
            for task, offset in spec.task_offsets.items():
                if task not in standby_tasks:  # includes its own actives, as in Kafka
                    ranked.setdefault(task, []).append((1, -offset, spec.member_id))
        # Current standbys first, then members that only report offsets. Within each group the
        # most caught-up member comes first, then the lowest id.
        self.prev_standby = {t: [c[2] for c in sorted(cs)] for t, cs in ranked.items()}

    def assign_active(self, tasks: list[TaskId]) -> None:
        # Range-shaped assignments put partition p of every subtopology on one member. Walking
        # the tasks partition by partition keeps those groups together when the quota stops a
        # member from keeping all it had.
        tasks.sort(key=_partition_major)
        rest = [t for t in tasks if not self._give_back(self.prev_active.get(t), t)]
        rest = [t for t in rest if not self._give_back(self._best_previous(t, False), t)]
        # New tasks in subtopology order, so a fresh group gets contiguous ranges per member.
        rest.sort()
        heap = self._process_heap()
        for task in rest:
            if not heap:
                raise TaskAssignorError(f"no process available to assign active task {task}")
            process = self.processes[heap[0][1]]
            member_id, count = process.add_to_least_loaded(task)
            self._record(member_id, task, count, active=True)
            heapq.heapreplace(heap, (process.load, process.process_id))

    def assign_standby(self, tasks: list[TaskId]) -> None:
        # Partition by partition like the actives, but descending, here and for the copies
        # left to the least loaded process. Kafka gives no reason for the descent; it is kept
        # because it decides which member gets which standby, and the result should be Kafka's.
        tasks.sort(key=_partition_major, reverse=True)
        missing: list[tuple[TaskId, int]] = []  # (task, copies still to place)
        for task in tasks:
            for placed in range(self.num_standby):
                member_id = self._previous_holder(task)
                if member_id is None:
                    missing.append((task, self.num_standby - placed))
                    break
                self._record(member_id, task, self.process_of[member_id].add(member_id, task))
        missing.sort(reverse=True)
        heap = self._process_heap()
        for task, copies in missing:
            for placed in range(copies):
                if not self._standby_to_least_loaded(heap, task):
                    log.warning(
                        "cannot assign %d of %d standby copies of task %s_%d: no other process "
                        "can take it; add instances to keep num.standby.replicas",
                        copies - placed,
                        self.num_standby,
                        *task,
                    )
                    break

    def _give_back(self, member_id: str | None, task: TaskId) -> bool:
        """Give the active `task` to its previous holder `member_id` if that member is under
        the active quota. Returns whether it did."""
        if member_id is None or not self._under(self.active_quota, member_id):
            return False
        count = self.process_of[member_id].add(member_id, task)
        self._record(member_id, task, count, active=True)
        return True

    def _previous_holder(self, task: TaskId) -> str | None:
        """The member to hold a standby of `task` because it held the task before, if any."""
        owner = self.prev_active.get(task)
        if (
            owner is not None
            and task not in self.process_of[owner].tasks
            and self._under(self.total_quota, owner)
        ):
            return owner
        candidate = self._best_previous(task, exclude=True)
        if candidate is not None and self._under(self.total_quota, candidate):
            return candidate
        return None

    def _best_previous(self, task: TaskId, exclude: bool) -> str | None:
        """The top-ranked state holder of `task`, replaced only by a later one whose process
        load and own task count are both strictly lower. When `exclude` is set, processes
        already holding the task are skipped."""
        best: str | None = None
        best_load, best_count = 0.0, 0
        for member_id in self.prev_standby.get(task, ()):
            process = self.process_of[member_id]
            if exclude and task in process.tasks:
                continue
            load, count = process.load, process.counts[member_id]
            if best is None or (load < best_load and count < best_count):
                best, best_load, best_count = member_id, load, count
        return best

    def _standby_to_least_loaded(self, heap: list[tuple[float, str]], task: TaskId) -> bool:
        """Give a standby of `task` to the least loaded process that does not hold the task.
        Returns False when every process holds it."""
        popped: list[_Process] = []
        placed = False
        while heap and not placed:
            process = self.processes[heapq.heappop(heap)[1]]
            popped.append(process)
            if task not in process.tasks:
                member_id, count = process.add_to_least_loaded(task)
                self._record(member_id, task, count)
                placed = True
        for process in popped:
            heapq.heappush(heap, (process.load, process.process_id))
        return placed

    def _process_heap(self) -> list[tuple[float, str]]:
        # Kafka's heap orders by load alone. Equal loads go in process id order here.
        heap = [(p.load, p.process_id) for p in self.processes.values()]
        heapq.heapify(heap)
        return heap

    def _under(self, quota: _Quota, member_id: str) -> bool:
        return self.process_of[member_id].counts[member_id] < quota.per_member

    def _record(self, member_id: str, task: TaskId, count: int, active: bool = False) -> None:
        assignment = self.result[member_id]
        role = assignment.active if active else assignment.standby
        role.setdefault(task[0], set()).add(task[1])
        if active:
            self.active_quota.reached(count)
        self.total_quota.reached(count)


def _partition_major(task: TaskId) -> tuple[int, str]:
    return task[1], task[0]


def _task_ids(tasks: Tasks) -> Iterator[TaskId]:
    return ((s, p) for s, ps in tasks.items() for p in ps)
