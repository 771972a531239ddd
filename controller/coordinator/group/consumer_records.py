"""KIP-848 consumer groups in `__consumer_offsets`, in Kafka's records (key types 3-8): what
to write after a change, and the replay that rebuilds the groups when a coordinator loads
the partition.

As with classic groups, the in-memory group is ahead of its records: operations change it,
then `records` turns the difference from what was last written into records (appended
without being replayed); loading replays them. The difference is kept per group
(`ConsumerGroup.persisted`: record key -> last value written), so a heartbeat that changed
nothing writes nothing.

Records are written in Kafka's order, so a partial read of the log still gives a group
Kafka's own replay would accept: a member's metadata, the partition metadata, the group
epoch, the target assignment (members, then its epoch), then current assignments; and a
departing member's current assignment, target and metadata tombstones before the group
epoch that follows. Topics are referred to by id, as in Kafka; a topic that no longer
exists when the group loads is dropped from its assignments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ferrolog.controller.coordinator.group.consumer_state import (
    ClassicMemberMetadata,
    ConsumerGroup,
    ConsumerMember,
    MemberState,
    Partitions,
    TopicNames,
)
from ferrolog.controller.coordinator.group.records import (
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT as CURRENT,
)
from ferrolog.controller.coordinator.group.records import (
    CONSUMER_GROUP_MEMBER_METADATA as MEMBER,
)
from ferrolog.controller.coordinator.group.records import (
    CONSUMER_GROUP_METADATA as METADATA,
)
from ferrolog.controller.coordinator.group.records import (
    CONSUMER_GROUP_PARTITION_METADATA as PARTITIONS,
)
from ferrolog.controller.coordinator.group.records import (
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER as TARGET,
)
from ferrolog.controller.coordinator.group.records import (
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA as TARGET_METADATA,
)
from ferrolog.controller.coordinator.group.records import (
    ConsumerGroupRecord,
    RecordDiff,
)
from ferrolog.controller.coordinator.group.records import tombstones as records_tombstones

# Kafka's MemberState codes (ConsumerGroupCurrentMemberAssignmentValue.State).
STATE_CODES = {
    MemberState.STABLE: 0,
    MemberState.UNREVOKED_PARTITIONS: 1,
    MemberState.UNRELEASED_PARTITIONS: 2,
}
STATES = {code: state for state, code in STATE_CODES.items()}


def by_id(partitions: Partitions, topics: TopicNames) -> list[dict[str, Any]]:
    out = []
    for topic, ps in sorted(partitions.items()):
        topic_id = topics.id_of(topic)
        if topic_id is not None and ps:
            out.append({"topic_id": topic_id, "partitions": sorted(ps)})
    return out


def by_name(raw: list[dict[str, Any]], topics: TopicNames) -> Partitions:
    out: Partitions = {}
    for tp in raw:
        name = topics.name_of(bytes(tp["topic_id"]))
        if name is not None and tp["partitions"]:
            out.setdefault(name, set()).update(tp["partitions"])
    return out


def _member_value(m: ConsumerMember) -> dict[str, Any]:
    classic = None
    if m.classic is not None:
        classic = {
            "session_timeout_ms": m.classic.session_timeout_ms,
            "supported_protocols": [
                {"name": n, "metadata": meta} for n, meta in m.classic.supported_protocols
            ],
        }
    return {
        "instance_id": m.instance_id,
        "rack_id": m.rack_id,
        "client_id": m.client_id,
        "client_host": m.client_host,
        "subscribed_topic_names": sorted(m.subscribed_topic_names),
        "subscribed_topic_regex": m.subscribed_topic_regex,
        "rebalance_timeout_ms": m.rebalance_timeout_ms,
        "server_assignor": m.server_assignor,
        "classic_member_metadata": classic,
    }


def _current_value(m: ConsumerMember, topics: TopicNames) -> dict[str, Any]:
    return {
        "member_epoch": m.member_epoch,
        "previous_member_epoch": m.previous_member_epoch,
        "state": STATE_CODES[m.state],
        "assigned_partitions": by_id(m.assigned, topics),
        "partitions_pending_revocation": by_id(m.pending_revocation, topics),
    }


def records(
    group_id: str,
    cg: ConsumerGroup,
    topics: TopicNames,
    members: list[str] | None = None,
    removed: Sequence[str] = (),
) -> list[ConsumerGroupRecord]:
    """The records that bring the log to the group as it is now. `members`: the members
    whose metadata and current assignment may have changed (None: all); `removed`: members
    that left since the last write."""
    diff = RecordDiff(ConsumerGroupRecord, group_id, cg.persisted)
    put = diff.put
    for member_id in removed:
        for kind in (CURRENT, TARGET, MEMBER):
            put(kind, member_id, None)
    changed = list(cg.members) if members is None else [m for m in members if m in cg.members]
    for member_id in changed:
        put(MEMBER, member_id, _member_value(cg.members[member_id]))
    put(
        PARTITIONS,
        None,
        {
            "topics": [
                {
                    "topic_id": topic_id,
                    "topic_name": name,
                    "num_partitions": count,
                    "partition_metadata": [],
                }
                for name, count in sorted(cg.subscription_metadata.items())
                if (topic_id := topics.id_of(name)) is not None
            ]
        },
    )
    put(METADATA, None, {"epoch": cg.group_epoch})
    if cg.persisted.get((TARGET_METADATA, None)) != {"assignment_epoch": cg.assignment_epoch}:
        for member_id in cg.members:
            put(
                TARGET,
                member_id,
                {"topic_partitions": by_id(cg.target.get(member_id, {}), topics)},
            )
        put(TARGET_METADATA, None, {"assignment_epoch": cg.assignment_epoch})
    for member_id in changed:
        put(CURRENT, member_id, _current_value(cg.members[member_id], topics))
    return diff.out


def tombstones(group_id: str, cg: ConsumerGroup) -> list[ConsumerGroupRecord]:
    """Every record of the group deleted (Kafka's createGroupTombstoneRecords): the group
    became a classic one, or is deleted."""
    return records_tombstones(ConsumerGroupRecord, group_id, cg.persisted, _TOMBSTONE_ORDER)


_TOMBSTONE_ORDER = (CURRENT, TARGET, MEMBER, TARGET_METADATA, PARTITIONS, METADATA)


def replay(
    cg: ConsumerGroup,
    record: ConsumerGroupRecord,
    topics: TopicNames,
    now: int,
    session_timeout_ms: int,
) -> None:
    """Applies one record (not the group tombstone, which the shard handles) to a loading
    group. Members get a fresh session: they resume with the epochs they had."""
    key = (record.kind, record.member_id)
    value = record.value
    if value is None:
        cg.persisted.pop(key, None)
    else:
        cg.persisted[key] = value
    member_id = record.member_id or ""
    if record.kind == METADATA and value is not None:
        cg.group_epoch = value["epoch"]
    elif record.kind == PARTITIONS and value is not None:
        cg.subscription_metadata = {t["topic_name"]: t["num_partitions"] for t in value["topics"]}
    elif record.kind == TARGET_METADATA and value is not None:
        cg.assignment_epoch = value["assignment_epoch"]
    elif record.kind == TARGET:
        if value is None:
            cg.target.pop(member_id, None)
        else:
            cg.target[member_id] = by_name(value["topic_partitions"], topics)
    elif record.kind == MEMBER:
        if value is None:
            gone = cg.members.pop(member_id, None)
            if gone is not None and gone.instance_id is not None:
                cg.static_members.pop(gone.instance_id, None)
            return
        member = cg.members.setdefault(member_id, ConsumerMember(member_id=member_id))
        member.instance_id = value["instance_id"]
        member.rack_id = value["rack_id"]
        member.client_id = value["client_id"]
        member.client_host = value["client_host"]
        member.subscribed_topic_names = list(value["subscribed_topic_names"])
        member.subscribed_topic_regex = value["subscribed_topic_regex"] or None
        member.rebalance_timeout_ms = value["rebalance_timeout_ms"]
        member.server_assignor = value["server_assignor"]
        classic = value.get("classic_member_metadata")
        member.classic = (
            ClassicMemberMetadata(
                classic["session_timeout_ms"],
                [(p["name"], bytes(p["metadata"])) for p in classic["supported_protocols"]],
            )
            if classic
            else None
        )
        timeout = member.classic.session_timeout_ms if member.classic else session_timeout_ms
        member.session_deadline = now + timeout
        if member.instance_id is not None:
            cg.static_members[member.instance_id] = member_id
    elif record.kind == CURRENT:
        current = cg.members.get(member_id)
        if current is None or value is None:
            return
        member = current
        member.member_epoch = value["member_epoch"]
        member.previous_member_epoch = value["previous_member_epoch"]
        member.state = STATES.get(value["state"], MemberState.STABLE)
        member.assigned = by_name(value["assigned_partitions"], topics)
        member.pending_revocation = by_name(value["partitions_pending_revocation"], topics)
        if member.state == MemberState.UNREVOKED_PARTITIONS:
            member.revocation_deadline = now + max(member.rebalance_timeout_ms, 0)
