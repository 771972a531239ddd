"""Classic group membership: JoinGroup, SyncGroup, Heartbeat, LeaveGroup and the timers
(session expiry, the end of a join or sync phase, the delayed first rebalance), following
Kafka's classic group coordinator.

Each function takes the shard, the decoded request (its API version as `version`), the time
in ms and a `reply` callback, which it calls now or, for a member waiting on a rebalance,
later."""

from __future__ import annotations

import uuid

from ferrolog import errors
from ferrolog.controller.coordinator.group import consumer_records
from ferrolog.controller.coordinator.group.consumer_state import NO_TOPICS, Topics
from ferrolog.controller.coordinator.group.responses import (
    join_response,
    member_list,
    reply_join,
    sync_response,
)
from ferrolog.controller.coordinator.group.shard import GroupShard, Write
from ferrolog.controller.coordinator.group.state import (
    Group,
    GroupState,
    JoinReply,
    Member,
    SyncReply,
)
from ferrolog.protocol.messages import HeartbeatRequest, JoinGroupRequest, SyncGroupRequest

NONE = 0
# JoinGroup v4+ asks a new member to come back with the id it is given (KIP-394).
MEMBER_ID_REQUIRED_VERSION = 4


# JoinGroup


class JoinCall(JoinGroupRequest):
    """A JoinGroup request with what the coordinator needs from its header."""

    version: int
    client_id: str | None


def join(
    shard: GroupShard,
    req: JoinCall,
    now: int,
    reply: JoinReply,
    host: str,
    topics: Topics = NO_TOPICS,
) -> None:
    """JoinGroup to a classic group, or to an empty consumer group, which becomes classic
    (Kafka's classicGroupJoinToClassicGroup); `protocols.join` checked the group id and the
    session timeout and chose this protocol."""
    group_id: str = req["group_id"]
    member_id: str = req.get("member_id") or ""
    instance_id: str | None = req.get("group_instance_id")
    session_timeout = req["session_timeout_ms"]
    version = req["version"]
    group = shard.group(group_id)
    if group is None and member_id:
        reply(join_response(errors.UnknownMemberIdError.code, member_id))
        return
    if group is not None and group.consumer is not None:
        # An empty consumer group becomes a classic group, as in Kafka (its records deleted).
        write = Write(list(consumer_records.tombstones(group_id, group.consumer)), replay=False)
        group.consumer = None
        shard.write(write)
    protocol_type: str = req.get("protocol_type") or ""
    protocols = [(p["name"], bytes(p["metadata"])) for p in req.get("protocols") or []]
    if not _compatible(group, protocol_type, [n for n, _ in protocols]):
        reply(join_response(errors.InconsistentGroupProtocolError.code, member_id))
        return
    group = group or shard.get_or_create(group_id, now)
    if group.state == GroupState.DEAD:
        reply(join_response(errors.CoordinatorNotAvailableError.code, member_id))
        return
    rebalance_timeout = req.get("rebalance_timeout_ms", -1)
    member = Member(
        member_id=member_id,
        group_instance_id=instance_id,
        client_id=req.get("client_id") or "",
        client_host=host,
        rebalance_timeout_ms=rebalance_timeout if rebalance_timeout > 0 else session_timeout,
        session_timeout_ms=session_timeout,
        protocol_type=protocol_type,
        protocols=protocols,
        join_version=version,
    )
    if not member_id:
        _join_unknown(shard, group, member, now, reply)
    else:
        _join_known(shard, group, member, now, reply)
    return None


def _compatible(group: Group | None, protocol_type: str, names: list[str]) -> bool:
    if not protocol_type or not names:
        return False
    if group is None or group.is_empty():
        return True
    candidates = group.candidate_protocols() or set()
    return protocol_type == group.protocol_type and bool(candidates & set(names))


def _new_member_id(member: Member) -> str:
    prefix = member.group_instance_id or member.client_id
    return f"{prefix}-{uuid.uuid4()}"


def _join_unknown(
    shard: GroupShard, group: Group, member: Member, now: int, reply: JoinReply
) -> None:
    instance_id = member.group_instance_id
    if instance_id is not None and instance_id in group.static_members:
        _replace_static(shard, group, member, now, reply)
        return
    if len(group.members) + len(group.pending_members) >= shard.settings.max_size:
        reply(join_response(errors.GroupMaxSizeReachedError.code))
        return
    member.member_id = _new_member_id(member)
    if instance_id is None and member.join_version >= MEMBER_ID_REQUIRED_VERSION:
        group.pending_members[member.member_id] = now + member.session_timeout_ms
        reply(join_response(errors.MemberIdRequiredError.code, member.member_id))
        return
    _add_member(shard, group, member, now, reply)
    return None


def _join_known(
    shard: GroupShard, group: Group, member: Member, now: int, reply: JoinReply
) -> None:
    member_id = member.member_id
    if member_id in group.pending_members and member.group_instance_id is None:
        del group.pending_members[member_id]
        _add_member(shard, group, member, now, reply)
        return
    error = group.member_error(member_id, member.group_instance_id)
    if error:
        reply(join_response(error, member_id))
        return
    existing = group.members[member_id]
    same = existing.protocols == member.protocols
    if group.state == GroupState.PREPARING_REBALANCE:
        _update_member(group, existing, member, reply, now)
        _maybe_complete_join(shard, group, now)
    elif group.state == GroupState.COMPLETING_REBALANCE:
        if same:
            # A resent join: the rebalance it asked for has already happened.
            members = member_list(group) if group.leader == member_id else []
            reply(join_response(NONE, member_id, group, members))
        else:
            _update_member(group, existing, member, reply, now)
            prepare_rebalance(shard, group, now)
    elif group.state == GroupState.STABLE:
        if group.leader == member_id or not same:
            # The leader rejoining means it wants a new assignment (new topics, say).
            _update_member(group, existing, member, reply, now)
            prepare_rebalance(shard, group, now)
        else:
            existing.heartbeat_deadline = now + existing.session_timeout_ms
            reply(join_response(NONE, member_id, group, []))
    else:
        reply(join_response(errors.UnknownMemberIdError.code, member_id))
    return None


def _update_member(group: Group, existing: Member, new: Member, reply: JoinReply, now: int) -> None:
    if existing.join_reply is not None and existing.join_reply is not reply:
        existing.join_reply(join_response(errors.RebalanceInProgressError.code, new.member_id))
    group.set_protocols(existing, new.protocols)
    existing.protocol_type = new.protocol_type
    existing.rebalance_timeout_ms = new.rebalance_timeout_ms
    existing.session_timeout_ms = new.session_timeout_ms
    existing.client_id = new.client_id
    existing.client_host = new.client_host
    existing.join_version = new.join_version
    existing.join_reply = reply
    existing.heartbeat_deadline = now + existing.session_timeout_ms


def _add_member(
    shard: GroupShard, group: Group, member: Member, now: int, reply: JoinReply
) -> None:
    if not group.members:
        group.protocol_type = member.protocol_type
    member.join_reply = reply
    member.heartbeat_deadline = now + member.session_timeout_ms
    group.add(member)
    if group.leader is None:
        group.leader = member.member_id
    group.new_member_added = True
    if group.state == GroupState.PREPARING_REBALANCE:
        _maybe_complete_join(shard, group, now)
    else:
        prepare_rebalance(shard, group, now)


def _replace_static(
    shard: GroupShard, group: Group, member: Member, now: int, reply: JoinReply
) -> None:
    """A static member back with a new process: it takes over its old id's place (the old
    process is fenced) without a rebalance when the group is stable and its protocol holds.
    A returning leader gets the member list and syncs, but a stable group keeps the
    assignment it has."""
    assert member.group_instance_id is not None
    old_id = group.static_members[member.group_instance_id]
    old = group.members[old_id]
    group.discard(old_id)
    fenced = errors.FencedInstanceIdError.code
    if old.join_reply is not None:
        old.join_reply(join_response(fenced, old_id))
    if old.sync_reply is not None:
        old.sync_reply(sync_response(fenced))
    member.member_id = _new_member_id(member)
    member.assignment = old.assignment
    group.add(member)
    if group.leader == old_id:
        group.leader = member.member_id
    member.heartbeat_deadline = now + member.session_timeout_ms
    # As Kafka: a stable group only rebalances if the protocol the group would select
    # changes; new metadata alone (a fresh process's subscription) does not.
    if group.state == GroupState.STABLE and group.select_protocol() == group.protocol:
        shard.write(Write([shard.snapshot(group, now)], replay=False))
        members = member_list(group) if group.leader == member.member_id else []
        reply(join_response(NONE, member.member_id, group, members))
        return
    member.join_reply = reply
    if group.state == GroupState.PREPARING_REBALANCE:
        _maybe_complete_join(shard, group, now)
    else:
        prepare_rebalance(shard, group, now)


# The rebalance


def prepare_rebalance(shard: GroupShard, group: Group, now: int) -> None:
    if group.state != GroupState.PREPARING_REBALANCE:
        shard.rebalances.begun += 1
    if group.state == GroupState.COMPLETING_REBALANCE:
        _reset_syncs(group, errors.RebalanceInProgressError.code)
    delay = shard.settings.initial_rebalance_delay_ms
    max_timeout = group.max_rebalance_timeout()
    if group.state == GroupState.EMPTY and delay > 0:
        group.initial_delay = True
        first = min(delay, max_timeout)
        group.initial_remaining_ms = max_timeout - first
        group.rebalance_deadline = now + first
        group.new_member_added = False
    else:
        group.initial_delay = False
        group.rebalance_deadline = now + max_timeout
    group.state = GroupState.PREPARING_REBALANCE
    group.state_timestamp = now
    group.sync_deadline = None
    _maybe_complete_join(shard, group, now)


def _reset_syncs(group: Group, error: int) -> None:
    for m in group.members.values():
        m.assignment = b""
        reply, m.sync_reply = m.sync_reply, None
        if reply is not None:
            reply(sync_response(error))


def _maybe_complete_join(shard: GroupShard, group: Group, now: int) -> None:
    if (
        group.state == GroupState.PREPARING_REBALANCE
        and not group.initial_delay
        and group.all_joined()
    ):
        _complete_join(shard, group, now)


def _complete_join(shard: GroupShard, group: Group, now: int) -> None:
    for m in list(group.members.values()):
        if m.join_reply is None and m.group_instance_id is None:
            _remove(group, m)
    group.rebalance_deadline = None
    group.initial_delay = False
    group.generation += 1
    group.state_timestamp = now
    if group.is_empty():
        group.state = GroupState.EMPTY
        group.protocol = None
        group.leader = None
        shard.write(Write([shard.snapshot(group, now)], replay=False))
        return
    if group.leader not in group.members:
        joined = [m.member_id for m in group.members.values() if m.join_reply is not None]
        group.leader = joined[0] if joined else next(iter(group.members))
    group.protocol = group.select_protocol()
    group.state = GroupState.COMPLETING_REBALANCE
    shard.rebalances.completed += 1
    group.sync_deadline = now + group.max_rebalance_timeout()
    for m in group.members.values():
        m.heartbeat_deadline = now + m.session_timeout_ms
        reply_join(group, m)


def _remove(group: Group, member: Member) -> None:
    gone = errors.UnknownMemberIdError.code
    group.discard(member.member_id)
    if member.join_reply is not None:
        member.join_reply(join_response(gone, member.member_id))
        member.join_reply = None
    if member.sync_reply is not None:
        member.sync_reply(sync_response(gone))
        member.sync_reply = None
    if group.leader == member.member_id:
        group.leader = next(iter(group.members), None)


def remove_and_rebalance(shard: GroupShard, group: Group, member: Member, now: int) -> None:
    _remove(group, member)
    if group.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE):
        prepare_rebalance(shard, group, now)
    else:
        _maybe_complete_join(shard, group, now)


# SyncGroup


def sync(shard: GroupShard, req: SyncGroupRequest, now: int, reply: SyncReply) -> None:
    group = shard.group(req["group_id"])
    member_id: str = req["member_id"]
    if group is None or group.is_empty():
        reply(sync_response(errors.UnknownMemberIdError.code))
        return
    error: int = group.member_error(member_id, req.get("group_instance_id"))
    if error:
        reply(sync_response(error))
        return
    if req["generation_id"] != group.generation:
        reply(sync_response(errors.IllegalGenerationError.code))
        return
    protocol_type, protocol_name = req.get("protocol_type"), req.get("protocol_name")
    if (protocol_type is not None and protocol_type != group.protocol_type) or (
        protocol_name is not None and protocol_name != group.protocol
    ):
        reply(sync_response(errors.InconsistentGroupProtocolError.code))
        return
    member = group.members[member_id]
    if group.state == GroupState.PREPARING_REBALANCE:
        reply(sync_response(errors.RebalanceInProgressError.code))
        return
    if group.state == GroupState.STABLE:
        member.heartbeat_deadline = now + member.session_timeout_ms
        reply(sync_response(NONE, group, member.assignment))
        return
    if group.state != GroupState.COMPLETING_REBALANCE:
        reply(sync_response(errors.UnknownMemberIdError.code))
        return
    if member.sync_reply is not None:
        member.sync_reply(sync_response(errors.RebalanceInProgressError.code))
    member.sync_reply = reply
    member.heartbeat_deadline = now + member.session_timeout_ms
    if member_id == group.leader:
        assignments = {a["member_id"]: bytes(a["assignment"]) for a in req.get("assignments") or []}
        for m in group.members.values():
            m.assignment = assignments.get(m.member_id, b"")
        generation = group.generation

        def stored(error: int) -> None:
            if group.state != GroupState.COMPLETING_REBALANCE or group.generation != generation:
                return
            if error:
                _reset_syncs(group, error)
                prepare_rebalance(shard, group, now)
                return
            group.state = GroupState.STABLE
            group.sync_deadline = None
            for m in group.members.values():
                reply_to, m.sync_reply = m.sync_reply, None
                if reply_to is not None:
                    reply_to(sync_response(NONE, group, m.assignment))

        shard.write(Write([shard.snapshot(group, now)], replay=False, on_done=stored))
    return None


# Heartbeat


def heartbeat(shard: GroupShard, req: HeartbeatRequest, now: int) -> int:
    group = shard.group(req["group_id"])
    if group is None:
        return errors.UnknownMemberIdError.code
    member_id: str = req["member_id"]
    error: int = group.member_error(member_id, req.get("group_instance_id"))
    if error:
        return error
    if group.state == GroupState.EMPTY:
        return errors.UnknownMemberIdError.code
    member = group.members[member_id]
    if group.state == GroupState.PREPARING_REBALANCE:
        member.heartbeat_deadline = now + member.session_timeout_ms
        return errors.RebalanceInProgressError.code
    if req["generation_id"] != group.generation:
        return errors.IllegalGenerationError.code
    member.heartbeat_deadline = now + member.session_timeout_ms
    return NONE


# LeaveGroup


def leave(
    shard: GroupShard, group_id: str, leaving: list[tuple[str, str | None]], now: int
) -> tuple[int, list[int]]:
    """Removes each (member id, instance id); returns the group error and one per member."""
    group = shard.group(group_id)
    if group is None:
        return errors.UnknownMemberIdError.code, [errors.UnknownMemberIdError.code] * len(leaving)
    results = []
    for member_id, instance_id in leaving:
        if instance_id is not None and not member_id:
            member_id = group.static_members.get(instance_id, "")
            if not member_id:
                results.append(errors.UnknownMemberIdError.code)
                continue
        if member_id in group.pending_members and instance_id is None:
            del group.pending_members[member_id]
            _maybe_complete_join(shard, group, now)
            results.append(NONE)
            continue
        error = group.member_error(member_id, instance_id)
        if error:
            results.append(error)
            continue
        remove_and_rebalance(shard, group, group.members[member_id], now)
        results.append(NONE)
    return NONE, results


# Timers


def tick(shard: GroupShard, group: Group, now: int) -> None:
    """Fires every deadline of `group` that has passed."""
    for pending, deadline in list(group.pending_members.items()):
        if deadline <= now:
            del group.pending_members[pending]
            _maybe_complete_join(shard, group, now)
    for member in list(group.members.values()):
        waiting = member.join_reply is not None or member.sync_reply is not None
        if not waiting and member.heartbeat_deadline <= now and member.member_id in group.members:
            remove_and_rebalance(shard, group, member, now)
    if (
        group.state == GroupState.PREPARING_REBALANCE
        and group.rebalance_deadline is not None
        and group.rebalance_deadline <= now
    ):
        if group.initial_delay and group.new_member_added and group.initial_remaining_ms > 0:
            step = min(shard.settings.initial_rebalance_delay_ms, group.initial_remaining_ms)
            group.initial_remaining_ms -= step
            group.rebalance_deadline = now + step
            group.new_member_added = False
        else:
            _complete_join(shard, group, now)
    if (
        group.state == GroupState.COMPLETING_REBALANCE
        and group.sync_deadline is not None
        and group.sync_deadline <= now
    ):
        # Members that never sent SyncGroup (the leader among them, maybe) are gone.
        for member in list(group.members.values()):
            if member.sync_reply is None:
                _remove(group, member)
        prepare_rebalance(shard, group, now)


def fail_waiting(group: Group, code: int) -> None:
    """Answers every member waiting on a rebalance with `code` (the coordinator is going)."""
    for m in group.members.values():
        join_reply, m.join_reply = m.join_reply, None
        if join_reply is not None:
            join_reply(join_response(code, m.member_id))
        sync_reply, m.sync_reply = m.sync_reply, None
        if sync_reply is not None:
            sync_reply(sync_response(code))
