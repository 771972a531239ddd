"""KIP-848 consumer groups: ConsumerGroupHeartbeat, ConsumerGroupDescribe and their timers,
following Kafka's GroupMetadataManager and CurrentAssignmentBuilder.

A heartbeat (1) is validated as Kafka does (`validate`, which `protocols` calls first), (2)
joins, updates or removes the member (a change of membership, subscription or of the
subscribed topics' partition counts bumps the group epoch), (3) computes the target
assignment when the group epoch moved past it, with the group's server-side assignor, and (4)
moves the member towards its target:
- partitions it owns that its target lacks are revoked first; it keeps its epoch (state
  UNREVOKED_PARTITIONS) until a heartbeat shows it no longer owns them;
- then it gets the target's epoch and the target's partitions that nobody else holds; those
  another member still holds come later (UNRELEASED_PARTITIONS) when they are released.
So a partition is never assigned to two members at once.

Pure functions of the shard, as `membership`: request and time in, response out."""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Callable

from ferrolog import errors
from ferrolog.controller.coordinator.group.assignors import ASSIGNORS
from ferrolog.controller.coordinator.group.consumer_state import (
    ConsumerGroup,
    ConsumerMember,
    MemberState,
    Partitions,
    Topics,
)
from ferrolog.controller.coordinator.group.shard import GroupShard
from ferrolog.controller.coordinator.group.state import Group, GroupState
from ferrolog.protocol.messages import (
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse,
    ConsumerGroupHeartbeatResponseTopicPartitions,
)

LEAVE_GROUP_MEMBER_EPOCH = -1
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2
# From ConsumerGroupHeartbeat v1 the client generates its member id (KIP-1082).
CLIENT_MEMBER_ID_VERSION = 1


class HeartbeatCall(ConsumerGroupHeartbeatRequest):
    """A ConsumerGroupHeartbeat with what the coordinator needs from its header."""

    version: int
    client_id: str | None


def error_response(
    code: int, message: str | None = None, member_id: str | None = None, epoch: int = 0
) -> ConsumerGroupHeartbeatResponse:
    return {
        "throttle_time_ms": 0,
        "error_code": code,
        "error_message": message,
        "member_id": member_id,
        "member_epoch": epoch,
        "heartbeat_interval_ms": 0,
        "assignment": None,
    }


def blank(value: str | None) -> bool:
    """Kafka's throwIfEmptyString: set, but empty once trimmed (null is fine)."""
    return value is not None and not value.strip()


def validate(req: HeartbeatCall, assignors: list[str]) -> tuple[int, str] | None:
    """Kafka's checks of the request itself (INVALID_REQUEST and friends, with its messages),
    made before the group's coordinator is looked for."""
    invalid = errors.InvalidRequestError.code
    epoch = req["member_epoch"]
    version = req["version"]
    needs_id = version >= CLIENT_MEMBER_ID_VERSION or epoch > 0 or epoch == LEAVE_GROUP_MEMBER_EPOCH
    if needs_id and blank(req["member_id"]):
        return invalid, "MemberId can't be empty."
    if blank(req["group_id"]):
        return invalid, "GroupId can't be empty."
    if blank(req.get("instance_id")):
        return invalid, "InstanceId can't be empty."
    if blank(req.get("rack_id")):
        return invalid, "RackId can't be empty."
    if epoch == 0:
        if req["rebalance_timeout_ms"] == -1:
            return invalid, "RebalanceTimeoutMs must be provided in first request."
        if req.get("topic_partitions") is None or req.get("topic_partitions"):
            return invalid, "TopicPartitions must be empty when (re-)joining."
        if req.get("subscribed_topic_names") is None and req.get("subscribed_topic_regex") is None:
            return (
                invalid,
                "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when "
                "(re-)joining.",
            )
    elif epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        if req.get("instance_id") is None:
            return invalid, "InstanceId can't be null."
    elif epoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        return invalid, "MemberEpoch is invalid."
    assignor = req.get("server_assignor")
    if assignor is not None and assignor not in assignors:
        return (
            errors.UnsupportedAssignorError.code,
            f"ServerAssignor {assignor} is not supported. Supported assignors: "
            f"{', '.join(assignors)}.",
        )
    regex = req.get("subscribed_topic_regex")
    if regex:
        try:
            re.compile(regex)
        except re.error as exc:
            return (
                errors.InvalidRegularExpressionError.code,
                f"SubscribedTopicRegex `{regex}` is not a valid regular expression: {exc}.",
            )
    return None


# Takes a member out of its consumer group (shard, group, member id, now); True when the
# group became a classic group instead (its records written then). `protocols` gives the one
# that knows about migration.
Fence = Callable[[GroupShard, Group, str, int], bool]


def is_full(shard: GroupShard, cg: ConsumerGroup, member_id: str) -> bool:
    """Whether `member_id` (empty: a new member) is refused for the group's size: Kafka's
    throwIfConsumerGroupIsFull, for both protocols' joins."""
    full = len(cg.members) >= shard.settings.consumer_max_size
    return full and (not member_id or member_id not in cg.members)


def heartbeat(
    shard: GroupShard, req: HeartbeatCall, now: int, topics: Topics, host: str, fence: Fence
) -> ConsumerGroupHeartbeatResponse:
    """A ConsumerGroupHeartbeat that passed `validate`, to a consumer group or to none yet
    (`protocols.consumer_heartbeat` upgraded a classic group first)."""
    settings = shard.settings
    group_id = req["group_id"]
    epoch = req["member_epoch"]
    group = shard.group(group_id)
    if group is None or group.consumer is None:
        if epoch != 0:
            return error_response(
                errors.UnknownMemberIdError.code,
                f"Member {req['member_id']} is not a member of group {group_id}.",
            )
        group = group or shard.get_or_create(group_id, now)
        group.consumer = ConsumerGroup(assignor=settings.consumer_assignors[0])
    if group.state == GroupState.DEAD:
        return error_response(errors.CoordinatorNotAvailableError.code)
    cg = group.consumer
    assert cg is not None
    member_id = req["member_id"] or str(uuid.uuid4())
    owned = _owned(req, topics)
    if epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
        member = cg.members.get(member_id)
        if member is None and epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            static = req.get("instance_id") or ""
            member = cg.members.get(cg.static_members.get(static, ""))
        if member is None:
            return error_response(
                errors.UnknownMemberIdError.code,
                f"Member {member_id} is not a member of group {group_id}.",
            )
        if epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH and member.instance_id is not None:
            # A static member leaving for a restart: it stays, with its partitions, until its
            # session times out or its instance id joins again (and takes its place).
            member.previous_member_epoch = member.member_epoch
            member.member_epoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH
            member.session_deadline = now + settings.consumer_session_timeout(group_id)
        elif not fence(shard, group, member.member_id, now):
            shard.write(shard.consumer_write(group, removed=[member.member_id]))
        return error_response(0, None, member_id, epoch)

    if is_full(shard, cg, req["member_id"]):
        return error_response(
            errors.GroupMaxSizeReachedError.code,
            "The consumer group has reached its maximum capacity of "
            f"{settings.consumer_max_size} members.",
        )
    member = cg.members.get(member_id)
    joined = False
    replaced: list[str] = []
    if epoch == 0:
        instance = req.get("instance_id")
        previous: ConsumerMember | None = None
        if instance is not None:
            holder = cg.members.get(cg.static_members.get(instance, ""))
            if holder is not None and holder.member_id != member_id:
                # Another member holds the instance id: Kafka lets a new one take it only once
                # the old one left with epoch -2.
                if holder.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH:
                    return error_response(
                        errors.UnreleasedInstanceIdError.code,
                        f"Static member {instance} is still in the group.",
                    )
                previous = holder
        if member is not None:
            # Rejoining with epoch 0: the member lost its state; it starts over.
            cg.remove(member_id)
        member = ConsumerMember(member_id=member_id, instance_id=instance)
        if previous is not None:
            # The restarted static member takes the place of its previous incarnation: its
            # subscription, assignment and epoch; the sticky assignor keeps its partitions.
            del cg.members[previous.member_id]
            replaced.append(previous.member_id)
            cg.target[member_id] = cg.target.pop(previous.member_id, {})
            member = dataclasses.replace(
                previous, member_id=member_id, member_epoch=previous.previous_member_epoch
            )
        cg.members[member_id] = member
        if instance is not None:
            cg.static_members[instance] = member_id
        # A new member, or a static one under a new member id: a new group epoch either way
        # (Kafka 4.1 moves the epoch when a restarted static member takes its place).
        joined = True
        group.state = GroupState.STABLE
    else:
        if member is None:
            return error_response(
                errors.UnknownMemberIdError.code,
                f"Member {member_id} is not a member of group {group_id}.",
            )
        fenced = _check_epoch(member, epoch, owned)
        if fenced is not None:
            return error_response(
                fenced,
                f"The member epoch {epoch} is fenced; the coordinator knows {member.member_epoch}.",
            )
    # Updates of what the member tells once (null: unchanged since its last heartbeat).
    if req.get("client_id") is not None:
        member.client_id = req.get("client_id") or ""
    member.client_host = host
    if req.get("rack_id") is not None:
        member.rack_id = req.get("rack_id")
    if req["rebalance_timeout_ms"] != -1:
        member.rebalance_timeout_ms = req["rebalance_timeout_ms"]
    changed = joined
    names = req.get("subscribed_topic_names")
    if names is not None and sorted(names) != sorted(member.subscribed_topic_names):
        member.subscribed_topic_names = list(names)
        changed = True
    regex = req.get("subscribed_topic_regex")
    if regex is not None and (regex or None) != member.subscribed_topic_regex:
        member.subscribed_topic_regex = regex or None
        changed = True
    assignor = req.get("server_assignor")
    if assignor is not None and assignor != member.server_assignor:
        member.server_assignor = assignor
        changed = True
    member.session_deadline = now + settings.consumer_session_timeout(group_id)
    # One new group epoch for whatever changed in this heartbeat, as Kafka.
    if refresh_metadata(cg, topics) or changed:
        cg.group_epoch += 1
    maybe_compute_target(cg, topics)
    reconcile(cg, member, owned, now)
    response: ConsumerGroupHeartbeatResponse = {
        "throttle_time_ms": 0,
        "error_code": 0,
        "error_message": None,
        "member_id": member_id,
        "member_epoch": member.member_epoch,
        "heartbeat_interval_ms": settings.consumer_heartbeat_interval(group_id),
        "assignment": None,
    }
    full = (
        req["rebalance_timeout_ms"] != -1
        and (names is not None or regex is not None)
        and req.get("topic_partitions") is not None
    )
    if epoch == 0 or full or member.last_sent != member.assigned:
        response["assignment"] = {"topic_partitions": _with_ids(member.assigned, topics)}
        member.last_sent = {t: set(ps) for t, ps in member.assigned.items()}
    shard.write(shard.consumer_write(group, members=[member_id], removed=replaced))
    return response


def _owned(req: HeartbeatCall, topics: Topics) -> Partitions | None:
    """The partitions the member says it owns (None: not told in this heartbeat)."""
    raw = req.get("topic_partitions")
    if raw is None:
        return None
    owned: Partitions = {}
    for tp in raw:
        name = topics.by_id(bytes(tp["topic_id"]))
        if name is not None and tp["partitions"]:
            owned.setdefault(name, set()).update(tp["partitions"])
    return owned


def _is_subset(small: Partitions, big: Partitions) -> bool:
    return all(ps <= big.get(t, set()) for t, ps in small.items())


def _check_epoch(member: ConsumerMember, epoch: int, owned: Partitions | None) -> int | None:
    """Kafka's rule: a member ahead of the coordinator is fenced; one behind may only be at
    its previous epoch (its last response was lost) while owning nothing it was not given."""
    if epoch > member.member_epoch:
        return errors.FencedMemberEpochError.code
    if epoch < member.member_epoch:
        if epoch != member.previous_member_epoch:
            return errors.FencedMemberEpochError.code
        if owned is not None and not _is_subset(owned, member.assigned):
            return errors.FencedMemberEpochError.code
    return None


def _subscribed(member: ConsumerMember, topics: Topics) -> set[str]:
    names = set(member.subscribed_topic_names)
    if member.subscribed_topic_regex:
        pattern = re.compile(member.subscribed_topic_regex)
        names.update(n for n in topics.names() if pattern.fullmatch(n))
    return names


def refresh_metadata(cg: ConsumerGroup, topics: Topics) -> bool:
    """Whether a subscribed topic was created, deleted or grown: that changes the group's
    epoch (Kafka compares the subscription metadata of the group on every heartbeat)."""
    current: dict[str, int] = {}
    for m in cg.members.values():
        for name in _subscribed(m, topics):
            found = topics.by_name(name)
            if found is not None and found[1] > 0:
                current[name] = found[1]
    if current == cg.subscription_metadata:
        return False
    cg.subscription_metadata = current
    return True


def maybe_compute_target(cg: ConsumerGroup, topics: Topics) -> None:
    if cg.assignment_epoch == cg.group_epoch:
        return
    # The assignor the most members ask for, else the first configured one (Kafka's choice).
    votes: dict[str, int] = {}
    for m in cg.members.values():
        if m.server_assignor:
            votes[m.server_assignor] = votes.get(m.server_assignor, 0) + 1
    if votes:
        cg.assignor = max(sorted(votes), key=lambda n: votes[n])
    assignor = ASSIGNORS[cg.assignor]
    subscriptions = {
        m.member_id: frozenset(n for n in _subscribed(m, topics) if n in cg.subscription_metadata)
        for m in cg.members.values()
    }
    cg.target = assignor(subscriptions, cg.subscription_metadata, cg.target)
    cg.assignment_epoch = cg.group_epoch


def reconcile(
    cg: ConsumerGroup, member: ConsumerMember, owned: Partitions | None, now: int
) -> None:
    """Kafka's CurrentAssignmentBuilder: one step of `member` towards its target."""
    if member.state == MemberState.UNREVOKED_PARTITIONS:
        still_owned = owned is None or any(
            ps & owned.get(t, set()) for t, ps in member.pending_revocation.items()
        )
        if still_owned:
            return
        member.pending_revocation = {}
        member.revocation_deadline = None
    elif member.state == MemberState.STABLE and member.member_epoch == cg.assignment_epoch:
        return
    target = cg.target.get(member.member_id, {})
    current = member.assigned
    keep: Partitions = {}
    revoke: Partitions = {}
    for topic, ps in current.items():
        wanted = target.get(topic, set())
        if ps & wanted:
            keep[topic] = ps & wanted
        if ps - wanted:
            revoke[topic] = ps - wanted
    if revoke:
        member.assigned = keep
        member.pending_revocation = revoke
        member.state = MemberState.UNREVOKED_PARTITIONS
        member.revocation_deadline = now + max(member.rebalance_timeout_ms, 0)
        return
    owners = cg.owners()
    complete = True
    new: Partitions = {t: set(ps) for t, ps in keep.items()}
    for topic, ps in target.items():
        for p in ps:
            holder = owners.get((topic, p))
            if holder is None or holder == member.member_id:
                new.setdefault(topic, set()).add(p)
            else:
                complete = False
    member.assigned = new
    if member.member_epoch != cg.assignment_epoch:
        member.previous_member_epoch = member.member_epoch
        member.member_epoch = cg.assignment_epoch
    member.state = MemberState.STABLE if complete else MemberState.UNRELEASED_PARTITIONS


def after_membership_change(group: Group, now: int) -> None:
    cg = group.consumer
    if cg is not None and not cg.members:
        group.state = GroupState.EMPTY
        group.state_timestamp = now


def _with_ids(
    partitions: Partitions, topics: Topics
) -> list[ConsumerGroupHeartbeatResponseTopicPartitions]:
    out: list[ConsumerGroupHeartbeatResponseTopicPartitions] = []
    for topic, ps in sorted(partitions.items()):
        found = topics.by_name(topic)
        if found is not None and ps:
            out.append({"topic_id": found[0], "partitions": sorted(ps)})
    return out


def remove_member(group: Group, member_id: str, now: int) -> None:
    cg = group.consumer
    assert cg is not None
    cg.remove(member_id)
    after_membership_change(group, now)


def tick(shard: GroupShard, group: Group, now: int, fence: Fence) -> None:
    """Session expiry, and the fencing of members that did not revoke within their rebalance
    timeout: both leave the group, whose epoch moves on."""
    cg = group.consumer
    if cg is None:
        return
    removed: list[str] = []
    for member in list(cg.members.values()):
        expired = member.session_deadline <= now
        late = member.revocation_deadline is not None and member.revocation_deadline <= now
        if expired or late:
            if fence(shard, group, member.member_id, now):
                return
            removed.append(member.member_id)
    if removed:
        shard.write(shard.consumer_write(group, removed=removed))
