"""KIP-932 share groups: ShareGroupHeartbeat and its session timer, following Kafka 4.4's
GroupMetadataManager and ShareGroupAssignmentBuilder.

A heartbeat (1) is validated as Kafka does (`validate`), (2) joins, updates or removes the
member (a change of membership or subscriptions, of the subscribed topics' partitions, or
partitions newly initialized bump the group epoch), (3) computes the target assignment when
the group epoch moved past it and `share.assignment.interval.ms` has passed since the last
one, with the `simple` assignor over the partitions whose share state is initialized, and (4)
gives the member its target at once: share group members never revoke.

Only partitions whose share-partition state exists at the share coordinator are assigned. A
heartbeat that finds subscribed partitions without it marks them initializing (a
ShareGroupStatePartitionMetadata record) and returns them in `Outcome.to_initialize`; the
coordinator asks the share coordinator to create their state, then `initialized` (or
`uninitialized`, on failure) records the answer, and the next heartbeat assigns them.

Pure functions of the shard, as `consumer`: request and time in, response out."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ferrolog import errors
from ferrolog.controller.coordinator.group import share_records
from ferrolog.controller.coordinator.group.consumer import blank
from ferrolog.controller.coordinator.group.consumer_state import Partitions, Topics
from ferrolog.controller.coordinator.group.shard import GroupShard, Write
from ferrolog.controller.coordinator.group.share_assignor import simple
from ferrolog.controller.coordinator.group.share_state import ShareGroup, ShareMember
from ferrolog.controller.coordinator.group.state import Group, GroupSettings
from ferrolog.protocol.messages import (
    ShareGroupHeartbeatRequest,
    ShareGroupHeartbeatResponse,
    ShareGroupHeartbeatResponseTopicPartitions,
)

LEAVE_GROUP_MEMBER_EPOCH = -1
# Kafka's limit on a client-generated member id (a UUID's string form).
MAX_MEMBER_ID_LENGTH = 36


class ShareHeartbeatCall(ShareGroupHeartbeatRequest):
    """A ShareGroupHeartbeat with what the coordinator needs from its header."""

    client_id: str | None


@dataclass(frozen=True)
class InitializeState:
    """Share-partition state the share coordinator must create before the partitions are
    assigned: `start_offset` -1 for a topic new to the group (share.auto.offset.reset
    decides), 0 for new partitions of a topic it already reads."""

    group_id: str
    state_epoch: int
    topic_id: bytes
    topic: str
    partitions: tuple[int, ...]
    start_offset: int


@dataclass(frozen=True)
class Summary:
    """A share-partition as its share coordinator describes it (ReadShareGroupStateSummary)."""

    error_code: int
    start_offset: int  # -1: never read from
    leader_epoch: int
    delivery_complete_count: int  # -1: unknown


class ShareStateInitializer(Protocol):
    """The share coordinator, as the group coordinator needs it."""

    async def initialize(self, state: InitializeState) -> dict[int, int]:
        """Creates the share-partition state of `state`; returns the error code of each
        partition it could not (a later heartbeat asks again for those)."""
        ...

    async def delete(
        self, group_id: str, topic_id: bytes, partitions: Sequence[int]
    ) -> dict[int, int]:
        """Deletes the share-partitions' state; returns the error code of each partition it
        could not."""
        ...

    async def summary(
        self, group_id: str, topic_id: bytes, partitions: Sequence[int]
    ) -> dict[int, Summary]: ...


class _NoShareState:
    """Where no share coordinator runs (units of the group coordinator): nothing gets state,
    so nothing is assigned."""

    async def initialize(self, state: InitializeState) -> dict[int, int]:
        return dict.fromkeys(state.partitions, errors.CoordinatorNotAvailableError.code)

    async def delete(
        self, group_id: str, topic_id: bytes, partitions: Sequence[int]
    ) -> dict[int, int]:
        return {}

    async def summary(
        self, group_id: str, topic_id: bytes, partitions: Sequence[int]
    ) -> dict[int, Summary]:
        return {p: Summary(0, -1, 0, -1) for p in partitions}


NO_SHARE_STATE: ShareStateInitializer = _NoShareState()


@dataclass
class Outcome:
    response: ShareGroupHeartbeatResponse
    to_initialize: list[InitializeState] = field(default_factory=list)


def error_response(
    code: int, message: str | None = None, member_id: str | None = None, epoch: int = 0
) -> ShareGroupHeartbeatResponse:
    return {
        "throttle_time_ms": 0,
        "error_code": code,
        "error_message": message,
        "member_id": member_id,
        "member_epoch": epoch,
        "heartbeat_interval_ms": 0,
        "assignment": None,
    }


def valid_member_id(member_id: str | None) -> bool:
    """KafkaApis' isMemberIdValid, checked before the coordinator (INVALID_REQUEST, no
    message)."""
    return bool(member_id) and len(member_id or "") <= MAX_MEMBER_ID_LENGTH


def validate(req: ShareGroupHeartbeatRequest) -> tuple[int, str] | None:
    """Kafka's throwIfShareGroupHeartbeatRequestIsInvalid, with its messages."""
    invalid = errors.InvalidRequestError.code
    if blank(req["member_id"]):
        return invalid, "MemberId can't be empty."
    if blank(req["group_id"]):
        return invalid, "GroupId can't be empty."
    if blank(req.get("rack_id")):
        return invalid, "RackId can't be empty."
    epoch = req["member_epoch"]
    if epoch == 0 and not req.get("subscribed_topic_names"):
        return invalid, "SubscribedTopicNames must be set in first request."
    if epoch < LEAVE_GROUP_MEMBER_EPOCH:
        return invalid, "MemberEpoch is invalid."
    return None


def share_group(shard: GroupShard, group_id: str) -> ShareGroup:
    """The share group `group_id`; raises GROUP_ID_NOT_FOUND, with Kafka's message, for one
    that does not exist or is of another type."""
    group = shard.group(group_id)
    if group is None:
        raise errors.GroupIdNotFoundError(f"Group {group_id} not found.")
    if group.share is None:
        raise errors.GroupIdNotFoundError(f"Group {group_id} is not a share group.")
    return group.share


def heartbeat(
    shard: GroupShard, req: ShareHeartbeatCall, now: int, topics: Topics, host: str
) -> Outcome:
    """A ShareGroupHeartbeat that passed `validate`."""
    settings = shard.settings
    group_id = req["group_id"]
    member_id = req["member_id"]
    epoch = req["member_epoch"]
    if epoch == LEAVE_GROUP_MEMBER_EPOCH:
        try:
            leaving = share_group(shard, group_id)
        except errors.GroupIdNotFoundError as exc:
            return Outcome(error_response(exc.code, exc.message))
        if member_id not in leaving.members:
            return Outcome(
                error_response(
                    errors.UnknownMemberIdError.code,
                    f"Member {member_id} is not a member of group {group_id}.",
                )
            )
        leave(shard, shard.groups[group_id], [member_id], now, topics)
        return Outcome(error_response(0, None, member_id, LEAVE_GROUP_MEMBER_EPOCH))

    group = shard.group(group_id)
    if group is None:
        if epoch != 0:
            return Outcome(
                error_response(
                    errors.GroupIdNotFoundError.code, f"Share group {group_id} not found."
                )
            )
        group = shard.get_or_create(group_id, now)
        group.share = ShareGroup()
    sg = group.share
    if sg is None:
        return Outcome(
            error_response(
                errors.GroupIdNotFoundError.code, f"Group {group_id} is not a share group."
            )
        )
    if len(sg.members) >= settings.share_max_size and member_id not in sg.members:
        return Outcome(
            error_response(
                errors.GroupMaxSizeReachedError.code,
                "The share group has reached its maximum capacity of "
                f"{settings.share_max_size} members.",
            )
        )
    member = sg.members.get(member_id)
    changed = False
    if member is None:
        if epoch != 0:
            return Outcome(
                error_response(
                    errors.UnknownMemberIdError.code,
                    f"Member {member_id} is not a member of group {group_id}.",
                )
            )
        member = ShareMember(member_id=member_id, previous_member_epoch=-1)
        sg.members[member_id] = member
        changed = True
    elif epoch != 0:
        fenced = _fenced(member, epoch)
        if fenced is not None:
            return Outcome(error_response(errors.FencedMemberEpochError.code, fenced))
    if req.get("rack_id") is not None:
        member.rack_id = req.get("rack_id")
    member.client_id = req.get("client_id") or ""
    member.client_host = host
    names = req.get("subscribed_topic_names")
    if names is not None and sorted(set(names)) != sorted(member.subscribed_topic_names):
        member.subscribed_topic_names = sorted(set(names))
        changed = True
    member.session_deadline = now + settings.share_session_timeout(group_id)
    if changed or _metadata_changed(sg, topics) or _initialized_pending(sg):
        sg.group_epoch += 1
    _maybe_compute_target(sg, now, settings.share_assignment_interval(group_id))
    before = member.assigned
    _reconcile(sg, member)
    response: ShareGroupHeartbeatResponse = {
        "throttle_time_ms": 0,
        "error_code": 0,
        "error_message": None,
        "member_id": member_id,
        "member_epoch": member.member_epoch,
        "heartbeat_interval_ms": settings.share_heartbeat_interval(group_id),
        "assignment": None,
    }
    if epoch == 0 or names is not None or member.assigned != before:
        response["assignment"] = {"topic_partitions": _with_ids(member.assigned, topics)}
    to_initialize = _to_initialize(sg, group_id, topics, now, settings)
    shard.write(write_changes(shard, group, [member_id]))
    return Outcome(response, to_initialize)


def _fenced(member: ShareMember, epoch: int) -> str | None:
    if epoch > member.member_epoch:
        return (
            f"The share group member has a greater member epoch ({epoch}) than the one known by "
            f"the group coordinator ({member.member_epoch}). The member must abandon all its "
            "partitions and rejoin."
        )
    if epoch < member.member_epoch and epoch != member.previous_member_epoch:
        return (
            f"The share group member has a smaller member epoch ({epoch}) than the one known by "
            f"the group coordinator ({member.member_epoch}), and it does not match the previous "
            f"member epoch ({member.previous_member_epoch}). The member must abandon all its "
            "partitions and rejoin."
        )
    return None


def metadata_hash(metadata: dict[str, tuple[bytes, int]]) -> int:
    """A 64-bit hash of the subscribed topics (id and partition count by name), kept in the
    ShareGroupMetadata record so that a group loaded after its topics changed notices. Kafka
    hashes the same facts with XXH3 (and racks, which ferrolog's groups do not use); a value
    only ever compares with one from the same broker software."""
    if not metadata:
        return 0
    digest = hashlib.blake2b(digest_size=8)
    for name in sorted(metadata):
        topic_id, count = metadata[name]
        digest.update(struct.pack(">H", len(name.encode())) + name.encode() + topic_id)
        digest.update(struct.pack(">i", count))
    (value,) = struct.unpack(">q", digest.digest())
    return int(value)


def _metadata_changed(sg: ShareGroup, topics: Topics) -> bool:
    """Whether a subscribed topic was created, deleted or grown since the group's metadata
    was last taken: the group epoch moves then (Kafka compares the hash on each heartbeat)."""
    current: dict[str, tuple[bytes, int]] = {}
    for name in sg.subscribed_topics():
        found = topics.by_name(name)
        if found is not None and found[1] > 0:
            current[name] = found
    value = metadata_hash(current)
    sg.subscription_metadata = {n: c for n, (_, c) in current.items()}
    if value == sg.metadata_hash:
        return False
    sg.metadata_hash = value
    return True


def _initialized_pending(sg: ShareGroup) -> bool:
    """Kafka's initializedAssignmentPending: partitions initialized for a subscribed topic
    that the target does not cover yet (their state was created after it was computed)."""
    if not sg.members or sg.assignment_epoch < sg.group_epoch:
        return False
    subscribed = sg.subscribed_topics()
    for topic, ps in sg.initialized.items():
        if topic not in subscribed:
            continue
        covered: set[int] = set()
        for target in sg.target.values():
            covered |= target.get(topic, set())
        if covered != ps:
            return True
    return False


def _maybe_compute_target(sg: ShareGroup, now: int, interval_ms: int) -> None:
    if sg.assignment_epoch >= sg.group_epoch:
        return
    if sg.assignment_timestamp and interval_ms and now < sg.assignment_timestamp + interval_ms:
        return  # the last target stands until the interval has passed
    assignable = {
        t: sorted(ps & set(range(sg.subscription_metadata.get(t, 0))))
        for t, ps in sg.initialized.items()
        if t in sg.subscription_metadata
    }
    subscriptions = {m.member_id: frozenset(m.subscribed_topic_names) for m in sg.members.values()}
    sg.target = simple(subscriptions, assignable, sg.target)
    sg.assignment_epoch = sg.group_epoch
    sg.assignment_timestamp = now


def _reconcile(sg: ShareGroup, member: ShareMember) -> None:
    """Kafka's ShareGroupAssignmentBuilder: the member takes its target, of the topics it
    subscribes to, at once."""
    subscribed = set(member.subscribed_topic_names)
    target = sg.target.get(member.member_id, {})
    assigned = {t: set(ps) for t, ps in target.items() if t in subscribed and ps}
    if member.member_epoch != sg.assignment_epoch:
        member.previous_member_epoch = member.member_epoch
        member.member_epoch = sg.assignment_epoch
    member.assigned = assigned


def _to_initialize(
    sg: ShareGroup, group_id: str, topics: Topics, now: int, settings: GroupSettings
) -> list[InitializeState]:
    """The subscribed partitions without share state (nor a recent attempt to create it):
    they become initializing, and the caller asks the share coordinator for them."""
    retry_ms = settings.share_initialize_retry_interval_ms
    out: list[InitializeState] = []
    for name in sorted(sg.subscribed_topics()):
        found = topics.by_name(name)
        if found is None:
            continue
        topic_id, count = found
        done = set(sg.initialized.get(name, set()))
        started = sg.initializing.get(name, {})
        done |= {p for p, at in started.items() if now - at < retry_ms}
        missing = tuple(p for p in range(count) if p not in done)
        if not missing:
            continue
        known = name in sg.initialized or name in sg.initializing
        for p in missing:
            sg.initializing.setdefault(name, {})[p] = now
        sg.deleting.discard(name)
        out.append(
            InitializeState(group_id, sg.group_epoch, topic_id, name, missing, 0 if known else -1)
        )
    return out


def initialized(
    shard: GroupShard, group_id: str, topic: str, done: Sequence[int], failed: Sequence[int]
) -> None:
    """The share coordinator answered for partitions of `topic`: those `done` have their state
    (assigned from the next heartbeat), those `failed` do not (a later heartbeat asks again)."""
    group = shard.group(group_id)
    if group is None or group.share is None:
        return
    sg = group.share
    started = sg.initializing.get(topic, {})
    for p in (*done, *failed):
        started.pop(p, None)
    if not started:
        sg.initializing.pop(topic, None)
    if done:
        sg.initialized.setdefault(topic, set()).update(done)
    shard.write(write_changes(shard, group, []))


def state_partitions(shard: GroupShard, group_id: str) -> dict[str, set[int]]:
    """The share-partitions of a share group that have (or may have) state at the share
    coordinator, by topic: what deleting the group deletes there."""
    group = shard.group(group_id)
    if group is None or group.share is None:
        return {}
    sg = group.share
    out = {t: set(ps) for t, ps in sg.initialized.items()}
    for t, started in sg.initializing.items():
        out.setdefault(t, set()).update(started)
    return out


def leave(shard: GroupShard, group: Group, member_ids: list[str], now: int, topics: Topics) -> None:
    """Members leave (or are fenced): the group epoch moves on; the last one leaving makes
    the target that of the new epoch (empty)."""
    sg = group.share
    assert sg is not None
    removed = [m for m in member_ids if sg.remove(m) is not None]
    if not removed:
        return
    _metadata_changed(sg, topics)
    if not sg.members:
        sg.assignment_epoch = sg.group_epoch
        sg.assignment_timestamp = 0
    shard.write(write_changes(shard, group, [], removed))


def tick(shard: GroupShard, group: Group, now: int, topics: Topics) -> None:
    """Session expiry: a member that stopped heartbeating leaves the group."""
    sg = group.share
    if sg is None:
        return
    expired = [m.member_id for m in sg.members.values() if m.session_deadline <= now]
    if expired:
        leave(shard, group, expired, now, topics)


def write_changes(
    shard: GroupShard, group: Group, members: list[str], removed: list[str] | None = None
) -> Write:
    sg = group.share
    assert sg is not None
    records = share_records.records(group.group_id, sg, shard.topics, members, removed or ())
    return Write(list(records), replay=False)


def _with_ids(
    partitions: Partitions, topics: Topics
) -> list[ShareGroupHeartbeatResponseTopicPartitions]:
    out: list[ShareGroupHeartbeatResponseTopicPartitions] = []
    for topic, ps in sorted(partitions.items()):
        found = topics.by_name(topic)
        if found is not None and ps:
            out.append({"topic_id": found[0], "partitions": sorted(ps)})
    return out
