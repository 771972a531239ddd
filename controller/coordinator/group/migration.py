"""Online migration between classic and KIP-848 consumer groups, and the classic protocol
spoken to a consumer group, following Kafka 4.1's GroupMetadataManager
(`group.consumer.migration.policy`, default bidirectional).

- Upgrade: a classic group of the `consumer` protocol type whose first member joins with
  ConsumerGroupHeartbeat becomes a consumer group in place. Its group epoch and assignment
  epoch are the classic generation; every classic member becomes a STABLE member at that
  epoch that owns (and has as target) the partitions of its last SyncGroup assignment.
  Members waiting in a join or sync phase are answered REBALANCE_IN_PROGRESS.
- Classic members of a consumer group keep using JoinGroup, SyncGroup, Heartbeat and
  LeaveGroup. A JoinGroup is a full heartbeat of the consumer protocol (the subscription and
  the owned partitions come from its ConsumerProtocolSubscription) and answers with the
  member epoch as the generation and no leader; SyncGroup answers the member's assignment,
  serialized in the member's ConsumerProtocol version; Heartbeat answers
  REBALANCE_IN_PROGRESS when the member must rejoin to move on (the group epoch moved past
  it, it must revoke partitions, or partitions it waited for were released).
- Downgrade: when the last KIP-848 member leaves (or is fenced) and classic members remain,
  the group becomes a classic group of generation = the group epoch, each member's
  assignment its target assignment, and a rebalance begins.

Committed offsets live beside the membership in the same `Group`, so migration leaves them
as they are."""

from __future__ import annotations

import struct
import uuid

from ferrolog import errors
from ferrolog.controller.coordinator.group import consumer, consumer_records, membership
from ferrolog.controller.coordinator.group.consumer_state import (
    ClassicMemberMetadata,
    ConsumerGroup,
    ConsumerMember,
    MemberState,
    Partitions,
    Topics,
)
from ferrolog.controller.coordinator.group.records import GroupRecord, Record
from ferrolog.controller.coordinator.group.responses import join_response, sync_response
from ferrolog.controller.coordinator.group.shard import GroupShard, Write
from ferrolog.controller.coordinator.group.state import (
    Group,
    GroupState,
    JoinReply,
    Member,
    SyncReply,
)
from ferrolog.protocol import decode_data, encode_data
from ferrolog.protocol.messages import HeartbeatRequest, SyncGroupRequest

CONSUMER_PROTOCOL_TYPE = "consumer"
# Kafka reads newer ConsumerProtocol versions as the newest it knows (they only add fields).
CONSUMER_PROTOCOL_MAX_VERSION = 3
NONE = 0


class MalformedProtocolError(ValueError):
    """An embedded ConsumerProtocol subscription or assignment that does not parse."""


# The embedded ConsumerProtocol


def _version(data: bytes) -> int:
    if len(data) < 2:
        raise MalformedProtocolError("no version")
    (version,) = struct.unpack_from(">h", data)
    if version < 0:
        raise MalformedProtocolError(f"version {version}")
    return int(min(version, CONSUMER_PROTOCOL_MAX_VERSION))


def subscription(data: bytes) -> tuple[list[str], Partitions, str | None]:
    """(topics, owned partitions, rack id) of a ConsumerProtocolSubscription."""
    try:
        version = _version(data)
        sub = decode_data("ConsumerProtocolSubscription", version, data[2:])
    except (struct.error, ValueError, IndexError, KeyError) as exc:
        raise MalformedProtocolError(str(exc)) from exc
    owned: Partitions = {}
    for tp in sub.get("owned_partitions") or []:
        if tp["partitions"]:
            owned.setdefault(tp["topic"], set()).update(tp["partitions"])
    return list(sub["topics"]), owned, sub.get("rack_id")


def assignment(data: bytes) -> Partitions:
    """The partitions of a ConsumerProtocolAssignment. An empty one (a member whose
    assignment a rebalance reset) holds nothing; Kafka refuses to upgrade such a group as
    malformed, ferrolog upgrades it and the member gets its partitions by rejoining."""
    if not data:
        return {}
    try:
        version = _version(data)
        value = decode_data("ConsumerProtocolAssignment", version, data[2:])
    except (struct.error, ValueError, IndexError, KeyError) as exc:
        raise MalformedProtocolError(str(exc)) from exc
    out: Partitions = {}
    for tp in value["assigned_partitions"]:
        if tp["partitions"]:
            out.setdefault(tp["topic"], set()).update(tp["partitions"])
    return out


def assignment_bytes(partitions: Partitions, metadata: bytes) -> bytes:
    """`partitions` as a ConsumerProtocolAssignment in the version of the member's
    subscription `metadata` (Kafka's prepareAssignment)."""
    try:
        version = _version(metadata)
    except MalformedProtocolError:
        version = 0
    body = {
        "assigned_partitions": [
            {"topic": t, "partitions": sorted(ps)} for t, ps in sorted(partitions.items()) if ps
        ],
        "user_data": None,
    }
    return struct.pack(">h", version) + encode_data("ConsumerProtocolAssignment", version, body)


def _existing(partitions: Partitions, topics: Topics) -> Partitions:
    return {t: set(ps) for t, ps in partitions.items() if ps and topics.by_name(t) is not None}


# Upgrade


def upgrade(shard: GroupShard, group: Group, now: int, topics: Topics) -> str | None:
    """Turns the classic group `group` (with members) into a consumer group, as Kafka's
    convertToConsumerGroup; returns why it cannot (GROUP_ID_NOT_FOUND's message) instead."""
    group_id = group.group_id
    if not shard.settings.upgrade_enabled() or group.protocol_type != CONSUMER_PROTOCOL_TYPE:
        return f"Group {group_id} is not a consumer group."
    if len(group.members) > shard.settings.consumer_max_size:
        # Kafka's validateOnlineUpgrade refuses it alike.
        return f"Group {group_id} is not a consumer group."
    try:
        parsed = {
            m.member_id: (subscription(m.metadata(group.protocol)), assignment(m.assignment))
            for m in group.members.values()
        }
    except MalformedProtocolError:
        return (
            f"Cannot upgrade the classic group {group_id} to consumer group because the "
            "embedded consumer protocol is malformed."
        )
    membership.fail_waiting(group, errors.RebalanceInProgressError.code)
    epoch = group.generation
    cg = ConsumerGroup(
        group_epoch=epoch, assignment_epoch=epoch, assignor=shard.settings.consumer_assignors[0]
    )
    for m in group.members.values():
        (names, _, rack), assigned = parsed[m.member_id]
        owned = _existing(assigned, topics)
        cg.members[m.member_id] = ConsumerMember(
            member_id=m.member_id,
            instance_id=m.group_instance_id,
            rack_id=rack,
            client_id=m.client_id,
            client_host=m.client_host,
            rebalance_timeout_ms=m.rebalance_timeout_ms,
            subscribed_topic_names=names,
            member_epoch=epoch,
            previous_member_epoch=epoch,
            state=MemberState.STABLE,
            assigned=owned,
            session_deadline=now + m.session_timeout_ms,
            classic=ClassicMemberMetadata(m.session_timeout_ms, list(m.protocols)),
        )
        cg.target[m.member_id] = {t: set(ps) for t, ps in owned.items()}
        if m.group_instance_id is not None:
            cg.static_members[m.group_instance_id] = m.member_id
    _clear_classic(group)
    group.consumer = cg
    group.state = GroupState.STABLE
    # The classic group's GroupMetadata is gone (a tombstone, as Kafka writes); loading then
    # keeps the group's offsets, drops its classic membership and replays the consumer group.
    write = shard.consumer_write(group)
    write.records.insert(0, GroupRecord(group.group_id, None))
    shard.write(write)
    return None


def _clear_classic(group: Group) -> None:
    for member_id in list(group.members):
        group.discard(member_id)
    group.pending_members = {}
    group.static_members = {}
    group.leader = None
    group.protocol = None
    group.protocol_type = None
    group.generation = 0
    group.rebalance_deadline = group.sync_deadline = None
    group.initial_delay = False


# Downgrade


def maybe_downgrade(shard: GroupShard, group: Group, leaving: str, now: int) -> bool:
    """Kafka's consumerGroupFenceMember with validateOnlineDowngradeWithFencedMember: when
    `leaving`, a KIP-848 member, is the last one and classic members remain, the group becomes
    a classic group (and rebalances) instead of losing the member. Returns whether it did."""
    cg = group.consumer
    if cg is None or not cg.all_classic_except(leaving) or len(cg.members) <= 1:
        return False
    if not shard.settings.downgrade_enabled() or len(cg.members) - 1 > shard.settings.max_size:
        return False
    remaining = [m for m in cg.members.values() if m.member_id != leaving]
    epoch = cg.group_epoch
    target = cg.target
    records: list[Record] = list(consumer_records.tombstones(group.group_id, cg))
    group.consumer = None
    _clear_classic(group)
    group.protocol_type = CONSUMER_PROTOCOL_TYPE
    group.generation = epoch
    for m in remaining:
        assert m.classic is not None
        group.add(
            Member(
                member_id=m.member_id,
                group_instance_id=m.instance_id,
                client_id=m.client_id,
                client_host=m.client_host,
                rebalance_timeout_ms=m.rebalance_timeout_ms,
                session_timeout_ms=m.classic.session_timeout_ms,
                protocol_type=CONSUMER_PROTOCOL_TYPE,
                protocols=list(m.classic.supported_protocols),
                heartbeat_deadline=now + m.classic.session_timeout_ms,
            )
        )
    group.leader = remaining[0].member_id
    group.protocol = group.select_protocol()
    for classic in group.members.values():
        classic.assignment = assignment_bytes(
            target.get(classic.member_id, {}), classic.metadata(group.protocol)
        )
    group.state = GroupState.STABLE
    group.state_timestamp = now
    records.append(shard.snapshot(group, now))
    shard.write(Write(records, replay=False))
    membership.prepare_rebalance(shard, group, now)
    return True


# The classic protocol in a consumer group


def _member(cg: ConsumerGroup, member_id: str, instance_id: str | None) -> ConsumerMember | int:
    """Kafka's validateConsumerGroupMember and throwIfMemberDoesNotUseClassicProtocol."""
    if instance_id is None:
        member = cg.members.get(member_id)
    else:
        member = cg.members.get(cg.static_members.get(instance_id, ""))
        if member is not None and member.member_id != member_id:
            return errors.FencedInstanceIdError.code
    if member is None or member.classic is None:
        return errors.UnknownMemberIdError.code
    return member


def join(
    shard: GroupShard,
    group: Group,
    req: membership.JoinCall,
    now: int,
    reply: JoinReply,
    host: str,
    topics: Topics,
) -> None:
    """Kafka's classicGroupJoinToConsumerGroup."""
    cg = group.consumer
    assert cg is not None
    instance_id = req.get("group_instance_id")
    member_id: str = req.get("member_id") or ""
    unknown = not member_id
    if unknown:
        member_id = str(uuid.uuid4())
    if consumer.is_full(shard, cg, member_id):
        reply(join_response(errors.GroupMaxSizeReachedError.code, member_id))
        return
    protocol_type = req.get("protocol_type") or ""
    protocols = [(p["name"], bytes(p["metadata"])) for p in req.get("protocols") or []]
    if not cg.supports_classic_protocols(protocol_type, {n for n, _ in protocols}):
        reply(join_response(errors.InconsistentGroupProtocolError.code, member_id))
        return
    if instance_id is None and unknown and req["version"] >= membership.MEMBER_ID_REQUIRED_VERSION:
        reply(join_response(errors.MemberIdRequiredError.code, member_id))
        return
    try:
        names, owned, rack = subscription(protocols[0][1])
    except MalformedProtocolError:
        reply(join_response(errors.InconsistentGroupProtocolError.code, member_id))
        return
    member = cg.members.get(member_id)
    joined = member is None
    if instance_id is not None:
        holder = cg.members.get(cg.static_members.get(instance_id, ""))
        if holder is not None and holder.member_id != member_id:
            if not unknown:
                reply(join_response(errors.FencedInstanceIdError.code, member_id))
                return
            # A restarted static member takes its previous incarnation's place.
            del cg.members[holder.member_id]
            cg.target[member_id] = cg.target.pop(holder.member_id, {})
            holder.member_id = member_id
            member = holder
            cg.members[member_id] = member
        elif holder is None and not unknown:
            reply(join_response(errors.UnknownMemberIdError.code, member_id))
            return
        cg.static_members[instance_id] = member_id
    if member is None:
        member = ConsumerMember(member_id=member_id, instance_id=instance_id)
        cg.members[member_id] = member
    session_timeout = req["session_timeout_ms"]
    rebalance_timeout = req.get("rebalance_timeout_ms", -1)
    member.instance_id = instance_id
    if rack is not None:
        member.rack_id = rack
    member.rebalance_timeout_ms = rebalance_timeout if rebalance_timeout > 0 else session_timeout
    member.server_assignor = None
    member.client_id = req.get("client_id") or ""
    member.client_host = host
    member.classic = ClassicMemberMetadata(session_timeout, protocols)
    member.session_deadline = now + session_timeout
    changed = joined or sorted(names) != sorted(member.subscribed_topic_names)
    member.subscribed_topic_names = names
    member.subscribed_topic_regex = None
    if consumer.refresh_metadata(cg, topics) or changed:
        cg.group_epoch += 1
    consumer.maybe_compute_target(cg, topics)
    consumer.reconcile(cg, member, _existing(owned, topics), now)
    group.state = GroupState.STABLE
    response = join_response(NONE, member_id)
    response.update(
        {
            "generation_id": member.member_epoch,
            "protocol_type": CONSUMER_PROTOCOL_TYPE,
            "protocol_name": protocols[0][0],
            "leader": "",
        }
    )
    write = shard.consumer_write(group, members=[member_id])
    write.on_done = lambda error: reply(response if not error else join_response(error, member_id))
    shard.write(write)


def sync(
    shard: GroupShard, group: Group, req: SyncGroupRequest, now: int, reply: SyncReply
) -> None:
    """Kafka's classicGroupSyncToConsumerGroup: the member's current assignment."""
    cg = group.consumer
    assert cg is not None
    found = _member(cg, req["member_id"], req.get("group_instance_id"))
    if isinstance(found, int):
        reply(sync_response(found))
        return
    member = found
    assert member.classic is not None
    if req["generation_id"] != member.member_epoch:
        reply(sync_response(errors.IllegalGenerationError.code))
        return
    protocol_type, protocol_name = req.get("protocol_type"), req.get("protocol_name")
    own_protocol, metadata = member.classic.supported_protocols[0]
    if (protocol_type is not None and protocol_type != CONSUMER_PROTOCOL_TYPE) or (
        protocol_name is not None and protocol_name != own_protocol
    ):
        reply(sync_response(errors.InconsistentGroupProtocolError.code))
        return
    if _must_rejoin_now(cg, member):
        reply(sync_response(errors.RebalanceInProgressError.code))
        return
    member.session_deadline = now + member.classic.session_timeout_ms
    reply(
        {
            "throttle_time_ms": 0,
            "error_code": NONE,
            "protocol_type": protocol_type,
            "protocol_name": protocol_name,
            "assignment": assignment_bytes(member.assigned, metadata),
        }
    )


def _must_rejoin_now(cg: ConsumerGroup, member: ConsumerMember) -> bool:
    """Kafka's throwIfRebalanceInProgress: a new group epoch, unless the member is still
    revoking (its next join moves it on)."""
    return cg.group_epoch > member.member_epoch and member.state != MemberState.UNREVOKED_PARTITIONS


def heartbeat(group: Group, req: HeartbeatRequest, now: int) -> int:
    """Kafka's classicGroupHeartbeatToConsumerGroup."""
    cg = group.consumer
    assert cg is not None
    found = _member(cg, req["member_id"], req.get("group_instance_id"))
    if isinstance(found, int):
        return found
    member = found
    assert member.classic is not None
    if req["generation_id"] != member.member_epoch:
        return errors.IllegalGenerationError.code
    member.session_deadline = now + member.classic.session_timeout_ms
    if (
        member.member_epoch < cg.group_epoch
        or member.state == MemberState.UNREVOKED_PARTITIONS
        or (
            member.state == MemberState.UNRELEASED_PARTITIONS
            and not cg.waiting_on_unreleased(member)
        )
    ):
        return errors.RebalanceInProgressError.code
    return NONE


def leave(
    shard: GroupShard, group: Group, leaving: list[tuple[str, str | None]], now: int
) -> tuple[int, list[int]]:
    """Kafka's classicGroupLeaveToConsumerGroup: classic members leave (one new group epoch
    for the request); a KIP-848 member cannot leave with LeaveGroup (UNKNOWN_MEMBER_ID)."""
    cg = group.consumer
    assert cg is not None
    results: list[int] = []
    removed: list[str] = []
    for member_id, instance_id in leaving:
        if instance_id is not None and not member_id:
            member_id = cg.static_members.get(instance_id, "")
        found = _member(cg, member_id, instance_id)
        if isinstance(found, int):
            results.append(found)
            continue
        epoch = cg.group_epoch
        cg.remove(found.member_id)
        cg.group_epoch = epoch
        removed.append(found.member_id)
        results.append(NONE)
    if removed:
        cg.group_epoch += 1
        consumer.after_membership_change(group, now)
        shard.write(shard.consumer_write(group, removed=removed))
    return NONE, results
