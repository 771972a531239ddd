"""KIP-1071 streams groups in `__consumer_offsets`, in Kafka's records (key types 17 and 19-23):
what to write after a change, and the replay that rebuilds the groups when a coordinator loads
the partition.

As with share groups (`share_records`), the group in memory is ahead of its records: an
operation changes it, then `records` writes the difference from what was last written
(`StreamsGroup.persisted`). Records go in the order Kafka's replay accepts: a departing
member's current assignment, target and metadata tombstones first; then members' metadata,
the topology, the group epoch, the target (members, then its epoch) and current assignments.
Tasks are named by subtopology id and partition number, so nothing depends on topic ids."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ferrolog.controller.coordinator.group.records import (
    STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT as CURRENT,
)
from ferrolog.controller.coordinator.group.records import (
    STREAMS_GROUP_MEMBER_METADATA as MEMBER,
)
from ferrolog.controller.coordinator.group.records import (
    STREAMS_GROUP_METADATA as METADATA,
)
from ferrolog.controller.coordinator.group.records import (
    STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER as TARGET,
)
from ferrolog.controller.coordinator.group.records import (
    STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA as TARGET_METADATA,
)
from ferrolog.controller.coordinator.group.records import (
    STREAMS_GROUP_TOPOLOGY as TOPOLOGY,
)
from ferrolog.controller.coordinator.group.records import RecordDiff, StreamsGroupRecord
from ferrolog.controller.coordinator.group.records import tombstones as records_tombstones
from ferrolog.controller.coordinator.group.streams_state import (
    EpochTasks,
    MemberState,
    StreamsGroup,
    StreamsMember,
    Tasks,
    TaskSet,
)


def task_ids(tasks: Tasks) -> list[dict[str, Any]]:
    """Tasks as Kafka lists them: by subtopology id, partitions sorted."""
    return [
        {"subtopology_id": s, "partitions": sorted(ps)} for s, ps in sorted(tasks.items()) if ps
    ]


def _epoch_task_ids(tasks: EpochTasks) -> list[dict[str, Any]]:
    out = []
    for s, ps in sorted(tasks.items()):
        if ps:
            partitions = sorted(ps)
            out.append(
                {
                    "subtopology_id": s,
                    "partitions": partitions,
                    "assignment_epochs": [ps[p] for p in partitions],
                }
            )
    return out


def tasks_of(raw: list[dict[str, Any]] | None) -> Tasks:
    return {t["subtopology_id"]: set(t["partitions"]) for t in raw or [] if t["partitions"]}


def _epoch_tasks_of(raw: list[dict[str, Any]], member_epoch: int) -> EpochTasks:
    """Active tasks with the epochs they were assigned at (the member's epoch when the record
    has none, as Kafka reads it)."""
    out: EpochTasks = {}
    for t in raw:
        epochs = t.get("assignment_epochs") or [member_epoch] * len(t["partitions"])
        out[t["subtopology_id"]] = dict(zip(t["partitions"], epochs, strict=False))
    return out


def _member_value(m: StreamsMember) -> dict[str, Any]:
    endpoint = m.user_endpoint
    return {
        "instance_id": m.instance_id,
        "rack_id": m.rack_id,
        "client_id": m.client_id,
        "client_host": m.client_host,
        "rebalance_timeout_ms": m.rebalance_timeout_ms,
        "topology_epoch": m.topology_epoch,
        "process_id": m.process_id,
        "user_endpoint": {"host": endpoint[0], "port": endpoint[1]} if endpoint else None,
        "client_tags": [{"key": k, "value": v} for k, v in sorted(m.client_tags.items())],
    }


def _current_value(m: StreamsMember) -> dict[str, Any]:
    return {
        "member_epoch": m.member_epoch,
        "previous_member_epoch": m.previous_member_epoch,
        "state": int(m.state),
        "active_tasks": _epoch_task_ids(m.active),
        "standby_tasks": task_ids(m.standby),
        "warmup_tasks": task_ids(m.warmup),
        "active_tasks_pending_revocation": _epoch_task_ids(m.pending_active),
        "standby_tasks_pending_revocation": task_ids(m.pending_standby),
        "warmup_tasks_pending_revocation": task_ids(m.pending_warmup),
    }


def _target_value(target: TaskSet) -> dict[str, Any]:
    return {
        "active_tasks": task_ids(target.active),
        "standby_tasks": task_ids(target.standby),
        "warmup_tasks": task_ids(target.warmup),
    }


def records(
    group_id: str,
    sg: StreamsGroup,
    members: Sequence[str] | None = None,
    removed: Sequence[str] = (),
) -> list[StreamsGroupRecord]:
    """The records that bring the log to the group as it is now. `members`: those whose
    metadata or current assignment may have changed (None: all); `removed`: members that
    left since the last write."""
    diff = RecordDiff(StreamsGroupRecord, group_id, sg.persisted)
    put = diff.put
    for member_id in removed:
        for kind in (CURRENT, TARGET, MEMBER):
            put(kind, member_id, None)
    changed = list(sg.members) if members is None else [m for m in members if m in sg.members]
    for member_id in changed:
        put(MEMBER, member_id, _member_value(sg.members[member_id]))
    if sg.topology is not None:
        put(TOPOLOGY, None, sg.topology)
    put(
        METADATA,
        None,
        {
            "epoch": sg.group_epoch,
            "metadata_hash": sg.metadata_hash,
            "validated_topology_epoch": sg.validated_topology_epoch,
            "last_assignment_configs": [
                {"key": k, "value": v} for k, v in sorted(sg.last_assignment_configs.items())
            ],
            "stored_description_topology_epoch": -1,
            "failed_description_topology_epoch": -1,
        },
    )
    target_metadata = {
        "assignment_epoch": sg.assignment_epoch,
        "assignment_timestamp": sg.assignment_timestamp,
    }
    if sg.persisted.get((TARGET_METADATA, None)) != target_metadata:
        for member_id in sg.members:
            put(TARGET, member_id, _target_value(sg.target.get(member_id, TaskSet())))
        put(TARGET_METADATA, None, target_metadata)
    for member_id in changed:
        # A static member back under a new id brings the target it had.
        if member_id in sg.target:
            put(TARGET, member_id, _target_value(sg.target[member_id]))
        put(CURRENT, member_id, _current_value(sg.members[member_id]))
    return diff.out


# Members' current assignments, targets and metadata first (Kafka's replay needs a member's
# assignments gone before its metadata), then the target's epoch, the group's, the topology.
_TOMBSTONE_ORDER = (CURRENT, TARGET, MEMBER, TARGET_METADATA, METADATA, TOPOLOGY)


def tombstones(group_id: str, sg: StreamsGroup) -> list[StreamsGroupRecord]:
    """Every record of the group deleted (the group is deleted)."""
    return records_tombstones(StreamsGroupRecord, group_id, sg.persisted, _TOMBSTONE_ORDER)


def replay(sg: StreamsGroup, record: StreamsGroupRecord, now: int, session_timeout_ms: int) -> None:
    """Applies one record (not the group tombstone, which the shard handles) to a loading
    group. Members get a fresh session: they resume with the epochs they had."""
    key = (record.kind, record.member_id)
    value = record.value
    if value is None:
        sg.persisted.pop(key, None)
    else:
        sg.persisted[key] = value
    member_id = record.member_id or ""
    if record.kind == METADATA and value is not None:
        sg.group_epoch = value["epoch"]
        sg.metadata_hash = value["metadata_hash"]
        sg.validated_topology_epoch = value.get("validated_topology_epoch", -1)
        configs = value.get("last_assignment_configs") or []
        sg.last_assignment_configs = {c["key"]: c["value"] for c in configs}
    elif record.kind == TOPOLOGY:
        sg.topology = value
        sg.configured = None
    elif record.kind == TARGET_METADATA:
        sg.assignment_epoch = value["assignment_epoch"] if value else -1
        sg.assignment_timestamp = value.get("assignment_timestamp", 0) if value else 0
    elif record.kind == TARGET:
        if value is None:
            sg.target.pop(member_id, None)
        else:
            sg.target[member_id] = TaskSet(
                tasks_of(value["active_tasks"]),
                tasks_of(value["standby_tasks"]),
                tasks_of(value["warmup_tasks"]),
            )
    elif record.kind == MEMBER:
        if value is None:
            sg.remove(member_id)
            return
        member = sg.members.setdefault(member_id, StreamsMember(member_id=member_id))
        member.instance_id = value.get("instance_id")
        member.rack_id = value.get("rack_id")
        member.client_id = value["client_id"]
        member.client_host = value["client_host"]
        member.rebalance_timeout_ms = value["rebalance_timeout_ms"]
        member.topology_epoch = value["topology_epoch"]
        member.process_id = value["process_id"]
        endpoint = value.get("user_endpoint")
        member.user_endpoint = (endpoint["host"], endpoint["port"]) if endpoint else None
        member.client_tags = {t["key"]: t["value"] for t in value.get("client_tags") or []}
        member.session_deadline = now + session_timeout_ms
        if member.instance_id is not None:
            sg.static_members[member.instance_id] = member_id
    elif record.kind == CURRENT and value is not None:
        found = sg.members.get(member_id)
        if found is None:
            return
        epoch = value["member_epoch"]
        found.member_epoch = epoch
        found.previous_member_epoch = value["previous_member_epoch"]
        found.state = MemberState(value["state"])
        found.active = _epoch_tasks_of(value["active_tasks"], epoch)
        found.standby = tasks_of(value["standby_tasks"])
        found.warmup = tasks_of(value["warmup_tasks"])
        found.pending_active = _epoch_tasks_of(value["active_tasks_pending_revocation"], epoch)
        found.pending_standby = tasks_of(value["standby_tasks_pending_revocation"])
        found.pending_warmup = tasks_of(value["warmup_tasks_pending_revocation"])
