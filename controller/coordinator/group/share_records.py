"""KIP-932 share groups in `__consumer_offsets`, in Kafka's records (key types 10-14): what to
write after a change, and the replay that rebuilds the groups when a coordinator loads the
partition.

As with consumer groups (`consumer_records`), the group in memory is ahead of its records:
operations change it, then `records` writes the difference from what was last written
(`ShareGroup.persisted`), and loading replays them. Records go in Kafka's order, so a partial
read of the log still gives a group Kafka's replay accepts: a member's metadata, the group
epoch, the target assignment (members, then its epoch), then current assignments; a departing
member's current assignment, target and metadata tombstones before the epoch that follows.
Topics are named by id; a topic gone when the group loads is dropped from its assignments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ferrolog.controller.coordinator.group.consumer_records import by_id, by_name
from ferrolog.controller.coordinator.group.consumer_state import Topics
from ferrolog.controller.coordinator.group.records import (
    SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT as CURRENT,
)
from ferrolog.controller.coordinator.group.records import (
    SHARE_GROUP_MEMBER_METADATA as MEMBER,
)
from ferrolog.controller.coordinator.group.records import (
    SHARE_GROUP_METADATA as METADATA,
)
from ferrolog.controller.coordinator.group.records import (
    SHARE_GROUP_STATE_PARTITION_METADATA as STATE_PARTITIONS,
)
from ferrolog.controller.coordinator.group.records import (
    SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER as TARGET,
)
from ferrolog.controller.coordinator.group.records import (
    SHARE_GROUP_TARGET_ASSIGNMENT_METADATA as TARGET_METADATA,
)
from ferrolog.controller.coordinator.group.records import RecordDiff, ShareGroupRecord
from ferrolog.controller.coordinator.group.records import tombstones as records_tombstones
from ferrolog.controller.coordinator.group.share_state import ShareGroup, ShareMember

# Kafka's MemberState code of a share group member: always STABLE (nothing is revoked).
STABLE = 0


def _member_value(m: ShareMember) -> dict[str, Any]:
    return {
        "rack_id": m.rack_id,
        "client_id": m.client_id,
        "client_host": m.client_host,
        "subscribed_topic_names": sorted(m.subscribed_topic_names),
    }


def records(
    group_id: str,
    sg: ShareGroup,
    topics: Topics,
    members: Sequence[str] | None = None,
    removed: Sequence[str] = (),
) -> list[ShareGroupRecord]:
    """The records that bring the log to the group as it is now. `members`: those whose
    metadata or current assignment may have changed (None: all); `removed`: members that
    left since the last write."""
    diff = RecordDiff(ShareGroupRecord, group_id, sg.persisted)
    put = diff.put
    for member_id in removed:
        for kind in (CURRENT, TARGET, MEMBER):
            put(kind, member_id, None)
    changed = list(sg.members) if members is None else [m for m in members if m in sg.members]
    for member_id in changed:
        put(MEMBER, member_id, _member_value(sg.members[member_id]))
    put(METADATA, None, {"epoch": sg.group_epoch, "metadata_hash": sg.metadata_hash})
    target_metadata = {
        "assignment_epoch": sg.assignment_epoch,
        "assignment_timestamp": sg.assignment_timestamp,
    }
    if sg.persisted.get((TARGET_METADATA, None)) != target_metadata:
        for member_id in sg.members:
            put(
                TARGET, member_id, {"topic_partitions": by_id(sg.target.get(member_id, {}), topics)}
            )
        put(TARGET_METADATA, None, target_metadata)
    for member_id in changed:
        m = sg.members[member_id]
        current = {
            "member_epoch": m.member_epoch,
            "previous_member_epoch": m.previous_member_epoch,
            "state": STABLE,
            "assigned_partitions": by_id(m.assigned, topics),
        }
        put(CURRENT, member_id, current)
    if sg.initialized or sg.initializing or sg.deleting or (STATE_PARTITIONS, None) in sg.persisted:
        put(STATE_PARTITIONS, None, _state_partitions(sg, topics))
    return diff.out


def _state_partitions(sg: ShareGroup, topics: Topics) -> dict[str, Any]:
    def listed(partitions: dict[str, set[int]]) -> list[dict[str, Any]]:
        return [
            {"topic_id": topic_id, "topic_name": name, "partitions": sorted(ps)}
            for name, ps in sorted(partitions.items())
            if ps and (topic_id := topics.id_of(name)) is not None
        ]

    return {
        "initializing_topics": listed({t: set(ps) for t, ps in sg.initializing.items()}),
        "initialized_topics": listed(sg.initialized),
        "deleting_topics": [
            {"topic_id": topic_id, "topic_name": name}
            for name in sorted(sg.deleting)
            if (topic_id := topics.id_of(name)) is not None
        ],
    }


_TOMBSTONE_ORDER = (CURRENT, TARGET, MEMBER, TARGET_METADATA, STATE_PARTITIONS, METADATA)


def tombstones(group_id: str, sg: ShareGroup) -> list[ShareGroupRecord]:
    """Every record of the group deleted (the group is deleted), members' first."""
    return records_tombstones(ShareGroupRecord, group_id, sg.persisted, _TOMBSTONE_ORDER)


def replay(
    sg: ShareGroup, record: ShareGroupRecord, topics: Topics, now: int, session_timeout_ms: int
) -> None:
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
    elif record.kind == TARGET_METADATA and value is not None:
        sg.assignment_epoch = value["assignment_epoch"]
        sg.assignment_timestamp = value.get("assignment_timestamp", 0)
    elif record.kind == STATE_PARTITIONS:
        value = value or {}
        sg.initialized = {
            name: set(ps) for name, ps in _named(value.get("initialized_topics", []), topics)
        }
        # Kafka keeps no time in the record: an attempt is as old as the load.
        sg.initializing = {
            name: dict.fromkeys(ps, now)
            for name, ps in _named(value.get("initializing_topics", []), topics)
        }
        sg.deleting = {name for name, _ in _named(value.get("deleting_topics", []), topics)}
    elif record.kind == TARGET:
        if value is None:
            sg.target.pop(member_id, None)
        else:
            sg.target[member_id] = by_name(value["topic_partitions"], topics)
    elif record.kind == MEMBER:
        if value is None:
            sg.members.pop(member_id, None)
            return
        member = sg.members.setdefault(member_id, ShareMember(member_id=member_id))
        member.rack_id = value["rack_id"]
        member.client_id = value["client_id"]
        member.client_host = value["client_host"]
        member.subscribed_topic_names = list(value["subscribed_topic_names"])
        member.session_deadline = now + session_timeout_ms
    elif record.kind == CURRENT and value is not None:
        found = sg.members.get(member_id)
        if found is not None:
            found.member_epoch = value["member_epoch"]
            found.previous_member_epoch = value["previous_member_epoch"]
            found.assigned = by_name(value["assigned_partitions"], topics)


def _named(raw: list[dict[str, Any]], topics: Topics) -> list[tuple[str, list[int]]]:
    """(name, partitions) of each listed topic that still exists under its id."""
    out = []
    for t in raw:
        name = topics.name_of(bytes(t["topic_id"]))
        if name is not None:
            out.append((name, list(t.get("partitions", []))))
    return out
