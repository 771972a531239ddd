"""KIP-1071 streams groups: StreamsGroupHeartbeat and the group's timers, following Kafka 4.4's
GroupMetadataManager.

A heartbeat (1) is validated as Kafka's service does (`validate`), (2) joins, updates or
removes the member, (3) keeps the topology the first member brought and configures it against
the cluster's topics whenever their partitions change (`streams_topology`): the internal topics
it lacks go back to the caller to be created, (4) bumps the group epoch on any change that
matters to the assignment, (5) computes the target assignment with the sticky assignor once
the initial delay and the assignment interval allow, and (6) reconciles the member toward its
target (`streams_reconcile`). Pure functions of the shard, as `share`: request and time in,
response out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ferrolog import errors
from ferrolog.controller.coordinator.group import streams_records
from ferrolog.controller.coordinator.group.consumer_state import Topics
from ferrolog.controller.coordinator.group.shard import GroupShard, Write
from ferrolog.controller.coordinator.group.share import metadata_hash
from ferrolog.controller.coordinator.group.state import Group
from ferrolog.controller.coordinator.group.streams_assignor import (
    MemberSpec,
    SubtopologySpec,
    TaskAssignorError,
    sticky,
)
from ferrolog.controller.coordinator.group.streams_messages import (
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    StreamsHeartbeatCall,
    error_response,
    owned_tasks,
    response,
    stored_topology,
    take_metadata,
    task_offsets,
)
from ferrolog.controller.coordinator.group.streams_reconcile import Holders, reconcile
from ferrolog.controller.coordinator.group.streams_state import (
    MemberState,
    StreamsGroup,
    StreamsGroupState,
    StreamsMember,
    TaskSet,
)
from ferrolog.controller.coordinator.group.streams_topology import (
    ASSIGNMENT_DELAYED,
    SHUTDOWN_APPLICATION,
    STALE_TOPOLOGY,
    ConfiguredTopology,
    InternalTopic,
    configure,
    required_topics,
)
from ferrolog.protocol.messages import (
    StreamsGroupHeartbeatRequest,
    StreamsGroupHeartbeatResponse,
    StreamsGroupHeartbeatResponseStatus,
)

LEAVE_GROUP_MEMBER_EPOCH = -1


@dataclass
class Outcome:
    response: StreamsGroupHeartbeatResponse
    # Internal topics the topology needs and the cluster lacks: the caller creates them.
    to_create: list[InternalTopic] = field(default_factory=list)


def streams_group(shard: GroupShard, group_id: str) -> StreamsGroup:
    """The streams group `group_id`; raises GROUP_ID_NOT_FOUND, with Kafka's message."""
    group = shard.group(group_id)
    if group is None:
        raise errors.GroupIdNotFoundError(f"Streams group {group_id} not found.")
    if group.streams is None:
        raise errors.GroupIdNotFoundError(f"Group {group_id} is not a streams group.")
    return group.streams


def heartbeat(
    shard: GroupShard, req: StreamsHeartbeatCall, now: int, topics: Topics, host: str
) -> Outcome:
    """A StreamsGroupHeartbeat that passed `validate`; raises the KafkaError it answers."""
    group_id, member_id, epoch = req["group_id"], req["member_id"], req["member_epoch"]
    if epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
        return Outcome(_leave(shard, req, now))
    joining = epoch == 0
    existing = shard.group(group_id)
    was_streams = existing is not None and existing.streams is not None
    group = _group(shard, group_id, joining, now)
    sg = group.streams
    assert sg is not None
    try:
        # Everything that may refuse the heartbeat comes before anything changes: a refused
        # join leaves no trace, as a Kafka write that throws appends nothing.
        topology = _topology(sg, req.get("topology"))
        hashed, configured = _configure(sg, topology, topics)
        if configured.ready and configured.subtopologies is not None:
            _check_tasks(configured.subtopologies, req)
        _check_size(shard, sg, req)
        owned = owned_tasks(req)
        member, bump, removed = _member(sg, req, owned)
    except errors.KafkaError:
        if existing is None:
            del shard.groups[group_id]
        elif not was_streams:
            group.streams = None  # the empty classic group it was
        raise
    settings = shard.settings
    was_empty = len(sg.members) == 1 and bump
    sg.topology = topology
    sg.configured = configured
    bump |= hashed != sg.metadata_hash
    sg.metadata_hash = hashed
    endpoint_before = member.user_endpoint
    bump |= take_metadata(member, req, host)
    statuses: list[StreamsGroupHeartbeatResponseStatus] = []
    if member.topology_epoch < sg.topology_epoch():
        detail = (
            f"The member's topology epoch {member.topology_epoch} is behind the group's "
            f"topology epoch {sg.topology_epoch()}."
        )
        statuses.append({"status_code": STALE_TOPOLOGY, "status_detail": detail})
    validated = sg.topology_epoch() if configured.ready else -1
    if req.get("task_offsets") is not None:
        member.task_offsets = task_offsets(req.get("task_offsets"))
    if req.get("task_end_offsets") is not None:
        member.task_end_offsets = task_offsets(req.get("task_end_offsets"))
    bump |= validated != sg.validated_topology_epoch
    configs = _assignment_configs(shard, group_id)
    bump |= configs != sg.last_assignment_configs
    if bump:
        sg.group_epoch += 1
        sg.validated_topology_epoch = validated
        sg.last_assignment_configs = configs
    if was_empty:
        delay = settings.streams(group_id, "initial.rebalance.delay.ms")
        if delay > 0 and sg.initial_delay_until is None:
            sg.initial_delay_until = now + delay
    target, target_epoch = _maybe_assign(shard, group_id, sg, now, statuses)
    before = member.assigned()
    reconcile(member, target.get(member_id, TaskSet()), target_epoch, owned, Holders(sg))
    _arm_rebalance_timeout(member, now)
    member.session_deadline = now + settings.streams(group_id, "session.timeout.ms")
    if req.get("shutdown_application"):
        sg.shutdown_requested_by = member_id
    changed = member.assigned() != before
    endpoint_changed = member.user_endpoint != endpoint_before
    if endpoint_changed or (changed and member.user_endpoint is not None):
        sg.endpoint_epoch += 1
    answer = response(shard.settings, group_id, sg, member, req, topics, joining or changed)
    if configured.status is not None:
        code, detail = configured.status
        statuses.append({"status_code": code, "status_detail": detail})
    if sg.shutdown_requested_by is not None:
        statuses.append(
            {
                "status_code": SHUTDOWN_APPLICATION,
                "status_detail": f"Streams group member {sg.shutdown_requested_by} encountered "
                "a fatal error and requested a shutdown for the entire application.",
            }
        )
    answer["status"] = statuses
    shard.write(write_changes(group, [member_id], removed))
    return Outcome(answer, list(configured.to_create))


def _check_size(shard: GroupShard, sg: StreamsGroup, req: StreamsGroupHeartbeatRequest) -> None:
    member_id, instance = req["member_id"], req.get("instance_id")
    if req["member_epoch"] != 0 or member_id in sg.members or instance in sg.static_members:
        return
    limit = shard.settings.streams(req["group_id"], "max.size")
    if len(sg.members) >= limit:
        raise errors.GroupMaxSizeReachedError(
            f"The streams group has reached its maximum capacity of {limit} members."
        )


def _topology(sg: StreamsGroup, topology: Any) -> dict[str, Any]:
    """The group's topology after this heartbeat: the first member's; a member that sends
    another one at the same or a later epoch is refused (Kafka 4.4 cannot update one)."""
    if topology is None:
        if sg.topology is None:
            raise errors.InvalidRequestError("Topology must be non-null when (re-)joining.")
        return sg.topology
    stored = stored_topology(topology)
    if sg.topology is None:
        return stored
    if topology["epoch"] >= sg.topology_epoch() and stored != sg.topology:
        raise errors.InvalidRequestError("Topology updates are not supported yet.")
    return sg.topology


def _group(shard: GroupShard, group_id: str, joining: bool, now: int) -> Group:
    group = shard.group(group_id)
    if group is None:
        if not joining:
            raise errors.GroupIdNotFoundError(f"Streams group {group_id} not found.")
        group = shard.get_or_create(group_id, now)
        group.streams = StreamsGroup()
    elif group.streams is None:
        # An empty classic group (offsets only) becomes a streams group on a join, as in Kafka.
        convertible = (
            joining
            and group.group_type == "classic"
            and group.is_empty()
            and not group.protocol_type
        )
        if not convertible:
            raise errors.GroupIdNotFoundError(f"Group {group_id} is not a streams group.")
        group.streams = StreamsGroup()
    return group


def _member(
    sg: StreamsGroup, req: StreamsHeartbeatCall, owned: TaskSet | None
) -> tuple[StreamsMember, bool, list[str]]:
    """The heartbeating member (created on a join), whether it is new, and the id of a static
    member it replaces."""
    group_id, member_id, epoch = req["group_id"], req["member_id"], req["member_epoch"]
    instance = req.get("instance_id")
    removed: list[str] = []
    if instance is not None:
        old_id = sg.static_members.get(instance)
        if epoch == 0:
            if old_id is not None and old_id != member_id:
                old = sg.members[old_id]
                if old.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH:
                    raise errors.UnreleasedInstanceIdError(
                        f"Static member {old_id} with instance id {instance} is not released yet."
                    )
                # The instance comes back under a new member id with the tasks it had, and
                # the target it had (Kafka copies its TargetAssignmentMember record).
                target = sg.target.get(old_id)
                sg.remove(old_id)
                if target is not None:
                    sg.target[member_id] = target
                old.member_id, old.member_epoch, old.previous_member_epoch = member_id, 0, 0
                sg.members[member_id] = old
                sg.static_members[instance] = member_id
                removed.append(old_id)
                return old, False, removed
        elif old_id is None:
            raise errors.UnknownMemberIdError(f"Instance id {instance} is unknown.")
        elif old_id != member_id:
            raise errors.FencedInstanceIdError(
                f"Static member {member_id} with instance id {instance} was fenced by member "
                f"{old_id}."
            )
    member = sg.members.get(member_id)
    if member is None:
        if epoch != 0:
            raise errors.UnknownMemberIdError(
                f"Member {member_id} is not a member of group {group_id}."
            )
        member = StreamsMember(member_id=member_id)
        sg.members[member_id] = member
        if instance is not None:
            sg.static_members[instance] = member_id
        return member, True, removed
    if epoch != 0:
        _check_epoch(member, epoch, owned)
    return member, False, removed


def _check_epoch(member: StreamsMember, epoch: int, owned: TaskSet | None) -> None:
    if epoch > member.member_epoch:
        why = "greater"
    elif epoch < member.member_epoch:
        if epoch == member.previous_member_epoch and _subset(owned, member.assigned()):
            return  # the answer with the new epoch was lost
        why = "smaller"
    else:
        return
    raise errors.FencedMemberEpochError(
        f"The streams group member has a {why} member epoch ({epoch}) than the one known by the "
        f"group coordinator ({member.member_epoch}). The member must abandon all its partitions "
        "and rejoin."
    )


def _subset(owned: TaskSet | None, assigned: TaskSet) -> bool:
    if owned is None:
        return True
    for mine, theirs in (
        (owned.active, assigned.active),
        (owned.standby, assigned.standby),
        (owned.warmup, assigned.warmup),
    ):
        if any(not ps <= theirs.get(s, set()) for s, ps in mine.items()):
            return False
    return True


def _configure(
    sg: StreamsGroup, topology: dict[str, Any], topics: Topics
) -> tuple[int, ConfiguredTopology]:
    """The hash of the topology's topics as they are now, and the topology configured against
    them: again only when they changed (or it never was)."""
    found: dict[str, tuple[bytes, int]] = {}
    for name in required_topics(topology):
        topic = topics.by_name(name)
        if topic is not None and topic[1] > 0:
            found[name] = topic
    value = metadata_hash(found)
    if value == sg.metadata_hash and sg.configured is not None and topology is sg.topology:
        return value, sg.configured

    def partitions(name: str) -> int | None:
        topic = topics.by_name(name)
        return topic[1] if topic is not None and topic[1] > 0 else None

    return value, configure(topology, partitions)


def _check_tasks(subtopologies: dict[str, Any], req: StreamsGroupHeartbeatRequest) -> None:
    for key in ("active_tasks", "standby_tasks", "warmup_tasks"):
        for t in req.get(key) or []:  # type: ignore[attr-defined]
            configured = subtopologies.get(t["subtopology_id"])
            if configured is None:
                raise errors.InvalidRequestError(
                    f"Subtopology {t['subtopology_id']} does not exist in the topology."
                )
            for p in t["partitions"]:
                if not 0 <= p < configured.tasks:
                    raise errors.InvalidRequestError(
                        f"Task {p} for subtopology {t['subtopology_id']} is invalid. Number of "
                        f"tasks for this subtopology: {configured.tasks}"
                    )


def _assignment_configs(shard: GroupShard, group_id: str) -> dict[str, str]:
    return {"num.standby.replicas": str(shard.settings.streams(group_id, "num.standby.replicas"))}


def _maybe_assign(
    shard: GroupShard,
    group_id: str,
    sg: StreamsGroup,
    now: int,
    statuses: list[StreamsGroupHeartbeatResponseStatus] | None,
) -> tuple[dict[str, TaskSet], int]:
    """The target members reconcile toward, and its epoch: a new one when the group epoch has
    moved past it and neither the initial delay nor the assignment interval holds it back."""
    if sg.initial_delay_until is not None and now < sg.initial_delay_until:
        if statuses is not None:
            statuses.append(
                {
                    "status_code": ASSIGNMENT_DELAYED,
                    "status_detail": "Assignment delayed due to the configured initial "
                    "rebalance delay.",
                }
            )
        return {}, sg.assignment_epoch
    sg.initial_delay_until = None
    if sg.assignment_epoch >= sg.group_epoch:
        return sg.target, sg.assignment_epoch
    interval = shard.settings.streams(group_id, "assignment.interval.ms")
    if sg.assignment_timestamp and interval and now < sg.assignment_timestamp + interval:
        if statuses is not None:
            statuses.append(
                {
                    "status_code": ASSIGNMENT_DELAYED,
                    "status_detail": "Assignment delayed due to the configured assignment "
                    "interval.",
                }
            )
        return sg.target, sg.assignment_epoch
    sg.target = _assign(sg, int(sg.last_assignment_configs.get("num.standby.replicas", "0")))
    sg.assignment_epoch = sg.group_epoch
    sg.assignment_timestamp = now
    return sg.target, sg.assignment_epoch


def _assign(sg: StreamsGroup, standbys: int) -> dict[str, TaskSet]:
    """The sticky assignor's target; every member gets nothing while the topology is not
    ready."""
    configured = sg.configured
    if configured is None or not configured.ready or configured.subtopologies is None:
        return {m: TaskSet() for m in sg.members}
    members = [
        MemberSpec(
            m.member_id,
            m.process_id,
            m.assigned().active,
            dict(m.standby),
            dict(m.warmup),
            dict(m.task_offsets),
        )
        for m in sg.members.values()
    ]
    specs = [
        SubtopologySpec(s.subtopology_id, s.tasks, s.stateful)
        for s in configured.subtopologies.values()
    ]
    try:
        assigned = sticky(members, specs, standbys)
    except TaskAssignorError as exc:
        raise errors.UnknownServerError(
            f"Failed to compute a new target assignment for epoch {sg.group_epoch}: {exc}"
        ) from exc
    return {m: TaskSet(a.active, a.standby, {}) for m, a in assigned.items()}


def _arm_rebalance_timeout(member: StreamsMember, now: int) -> None:
    if member.state != MemberState.UNREVOKED_TASKS:
        member.rebalance_deadline = None
    elif member.rebalance_deadline is None or member.rebalance_deadline[1] != member.member_epoch:
        member.rebalance_deadline = (now + max(member.rebalance_timeout_ms, 0), member.member_epoch)


def _leave(shard: GroupShard, req: StreamsHeartbeatCall, now: int) -> StreamsGroupHeartbeatResponse:
    group_id, member_id, epoch = req["group_id"], req["member_id"], req["member_epoch"]
    sg = streams_group(shard, group_id)
    instance = req.get("instance_id")
    if instance is not None:
        found = sg.static_members.get(instance)
        if found is None:
            raise errors.UnknownMemberIdError(
                f"Member with instance id {instance} is not a member of group {group_id}."
            )
        if found != member_id:
            raise errors.FencedInstanceIdError(
                f"Static member {member_id} with instance id {instance} was fenced by member "
                f"{found}."
            )
    member = sg.members.get(member_id)
    if member is None:
        raise errors.UnknownMemberIdError(
            f"Member {member_id} is not a member of group {group_id}."
        )
    if req.get("shutdown_application"):
        sg.shutdown_requested_by = member_id
    group = shard.groups[group_id]
    if epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        # It keeps its tasks for its return, under a new member id, within its session.
        member.previous_member_epoch, member.member_epoch = member.member_epoch, epoch
        member.pending_active, member.pending_standby, member.pending_warmup = {}, {}, {}
        member.active = {s: dict.fromkeys(ps, 0) for s, ps in member.active.items()}
        shard.write(write_changes(group, [member_id]))
    else:
        leave(shard, group, [member_id])
    left = error_response(0, None, member_id, epoch)
    left["status"] = []
    return left


def leave(shard: GroupShard, group: Group, member_ids: list[str]) -> None:
    """Members leave (or are fenced): the group epoch moves on; when the last one leaves, the
    target is that of the new epoch (empty) and the next assignment waits for nothing."""
    sg = group.streams
    assert sg is not None
    removed = [m for m in member_ids if sg.remove(m) is not None]
    if not removed:
        return
    sg.group_epoch += 1
    if not sg.members:
        sg.assignment_epoch = sg.group_epoch
        sg.assignment_timestamp = 0
        sg.initial_delay_until = None
    shard.write(write_changes(group, [], removed))


def tick(shard: GroupShard, group: Group, now: int) -> None:
    """Session and rebalance timeouts fence members; a group whose initial delay ran out gets
    its first target."""
    sg = group.streams
    if sg is None:
        return
    expired = [
        m.member_id
        for m in sg.members.values()
        if m.session_deadline <= now
        or (m.rebalance_deadline is not None and m.rebalance_deadline[0] <= now)
    ]
    if expired:
        leave(shard, group, expired)
    if sg.initial_delay_until is not None and now >= sg.initial_delay_until and sg.members:
        _maybe_assign(shard, group.group_id, sg, now, None)
        shard.write(write_changes(group, []))


def write_changes(group: Group, members: list[str], removed: list[str] | None = None) -> Write:
    sg = group.streams
    assert sg is not None
    changes = streams_records.records(group.group_id, sg, members, removed or ())
    return Write(list(changes), replay=False)


def state_name(group: Group) -> str:
    sg = group.streams
    assert sg is not None
    return StreamsGroupState.DEAD.value if group.state.value == "Dead" else sg.state().value
