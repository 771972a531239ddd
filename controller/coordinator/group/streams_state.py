"""The in-memory model of KIP-1071 streams groups (Kafka's `StreamsGroup` and
`StreamsGroupMember`).

A streams group is a Kafka Streams application (its `application.id`): each member is one
stream thread's consumer, several members share a process (a Kafka Streams instance), and the
broker assigns *tasks* (a subtopology and a partition number) instead of partitions. The
topology (subtopologies with their source, repartition and changelog topics) comes with the
first member's join and is kept as it came; what it means for the cluster's topics as they are
now (partition counts, the internal topics to create, whether it is ready) is computed in
memory (`streams_topology`).

As in a consumer group, a task moves only once its old owner says it gave it up: a member's
current assignment follows its target through revocation (`streams.reconcile`). Active tasks
carry the member epoch they were assigned at, which offset commits are checked against."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from ferrolog.controller.coordinator.group.streams_topology import ConfiguredTopology

# Subtopology id -> task (partition) numbers.
Tasks = dict[str, set[int]]
# Subtopology id -> task -> the member epoch the task was assigned at.
EpochTasks = dict[str, dict[int, int]]


class StreamsGroupState(enum.Enum):
    EMPTY = "Empty"
    NOT_READY = "NotReady"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"


class MemberState(enum.IntEnum):
    """Kafka's codes, as the CurrentMemberAssignment record stores them."""

    STABLE = 1
    UNREVOKED_TASKS = 2
    UNRELEASED_TASKS = 3
    UNKNOWN = 127


@dataclass
class TaskSet:
    """Active, standby and warm-up tasks (a target, or what a member holds)."""

    active: Tasks = field(default_factory=dict)
    standby: Tasks = field(default_factory=dict)
    warmup: Tasks = field(default_factory=dict)

    def is_empty(self) -> bool:
        return not any(self.active.values()) and not self.standby and not self.warmup


@dataclass
class StreamsMember:
    member_id: str
    member_epoch: int = 0
    previous_member_epoch: int = -1
    state: MemberState = MemberState.STABLE
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    rebalance_timeout_ms: int = -1
    topology_epoch: int = 0
    process_id: str = ""
    user_endpoint: tuple[str, int] | None = None
    client_tags: dict[str, str] = field(default_factory=dict)
    # What it holds now, and what it must give up before the next tasks come.
    active: EpochTasks = field(default_factory=dict)
    standby: Tasks = field(default_factory=dict)
    warmup: Tasks = field(default_factory=dict)
    pending_active: EpochTasks = field(default_factory=dict)
    pending_standby: Tasks = field(default_factory=dict)
    pending_warmup: Tasks = field(default_factory=dict)
    # The changelog offset sums it last reported, by (subtopology, partition): in memory only.
    task_offsets: dict[tuple[str, int], int] = field(default_factory=dict)
    task_end_offsets: dict[tuple[str, int], int] = field(default_factory=dict)
    session_deadline: int = 0
    # While it holds tasks to revoke: until when, and at which member epoch it was armed.
    rebalance_deadline: tuple[int, int] | None = None

    def holds(self) -> TaskSet:
        """What it holds, pending revocation included (a process must not run a task twice)."""
        return TaskSet(
            active=_union(_plain(self.active), _plain(self.pending_active)),
            standby=_union(self.standby, self.pending_standby),
            warmup=_union(self.warmup, self.pending_warmup),
        )

    def assigned(self) -> TaskSet:
        return TaskSet(_plain(self.active), _copy(self.standby), _copy(self.warmup))

    def has_pending(self) -> bool:
        return bool(self.pending_active or self.pending_standby or self.pending_warmup)


@dataclass
class StreamsGroup:
    # As Kafka 4.4 (KAFKA-20268): a new group is at group epoch 1, its first join makes it 2.
    group_epoch: int = 1
    assignment_epoch: int = 1
    # When the target was last computed (0: never, or since the group emptied).
    assignment_timestamp: int = 0
    members: dict[str, StreamsMember] = field(default_factory=dict)
    static_members: dict[str, str] = field(default_factory=dict)  # instance id -> member id
    # The topology as the first member sent it (the StreamsGroupTopology record's value).
    topology: dict[str, Any] | None = None
    # What the topology means for the cluster's topics now; recomputed when they change.
    configured: ConfiguredTopology | None = None
    metadata_hash: int = 0
    validated_topology_epoch: int = -1
    last_assignment_configs: dict[str, str] = field(default_factory=dict)
    target: dict[str, TaskSet] = field(default_factory=dict)
    # The member that asked the whole application to shut down (until the group empties).
    shutdown_requested_by: str | None = None
    # Counts changes of the members' endpoints and what they serve (interactive queries).
    endpoint_epoch: int = 0
    # The first assignment of an emptied group waits for this deadline (initial delay).
    initial_delay_until: int | None = None
    # What the log holds for this group (see `streams_records`).
    persisted: dict[tuple[int, str | None], dict[str, Any]] = field(default_factory=dict)

    def topology_epoch(self) -> int:
        return self.topology["epoch"] if self.topology is not None else -1

    def state(self) -> StreamsGroupState:
        if not self.members:
            return StreamsGroupState.EMPTY
        if self.topology is None or self.validated_topology_epoch != self.topology_epoch():
            return StreamsGroupState.NOT_READY
        if self.group_epoch > self.assignment_epoch:
            return StreamsGroupState.ASSIGNING
        for m in self.members.values():
            if m.state != MemberState.STABLE or m.member_epoch != self.assignment_epoch:
                return StreamsGroupState.RECONCILING
        return StreamsGroupState.STABLE

    def remove(self, member_id: str) -> StreamsMember | None:
        member = self.members.pop(member_id, None)
        if member is None:
            return None
        self.target.pop(member_id, None)
        if member.instance_id is not None and self.static_members.get(member.instance_id) == (
            member_id
        ):
            del self.static_members[member.instance_id]
        if self.shutdown_requested_by is not None and not self.members:
            self.shutdown_requested_by = None
        return member


def _plain(tasks: EpochTasks) -> Tasks:
    return {s: set(ps) for s, ps in tasks.items() if ps}


def _copy(tasks: Tasks) -> Tasks:
    return {s: set(ps) for s, ps in tasks.items() if ps}


def _union(a: Tasks, b: Tasks) -> Tasks:
    out = _copy(a)
    for s, ps in b.items():
        if ps:
            out.setdefault(s, set()).update(ps)
    return out
