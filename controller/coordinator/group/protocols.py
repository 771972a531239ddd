"""Which protocol answers a group request. A classic group's members are `membership`'s, a
consumer group's are `consumer`'s, and a member of the other protocol is `migration`'s: a
classic member joining a consumer group, a consumer-protocol member joining a classic group
(which upgrades it), the last consumer-protocol member leaving (which downgrades it). This is
the one place that chooses (Kafka's GroupMetadataManager does it on entry), so none of the
three needs another's way in.

The coordinator calls these; the checks Kafka makes before choosing (its
GroupCoordinatorService's) come first."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.coordinator.group import (
    consumer,
    membership,
    migration,
    share,
    streams,
    streams_records,
)
from ferrolog.controller.coordinator.group.consumer import HeartbeatCall
from ferrolog.controller.coordinator.group.consumer_state import NO_TOPICS, Topics
from ferrolog.controller.coordinator.group.membership import JoinCall
from ferrolog.controller.coordinator.group.responses import join_response
from ferrolog.controller.coordinator.group.shard import GroupShard, Write
from ferrolog.controller.coordinator.group.share import ShareHeartbeatCall
from ferrolog.controller.coordinator.group.state import Group, JoinReply, SyncReply
from ferrolog.controller.coordinator.group.streams_messages import StreamsHeartbeatCall
from ferrolog.protocol.messages import (
    ConsumerGroupHeartbeatResponse,
    HeartbeatRequest,
    SyncGroupRequest,
)


def _migrated(shard: GroupShard, group_id: str) -> Group | None:
    """The group if it has consumer-protocol state (its classic requests go through the
    migration path), else None."""
    group = shard.group(group_id)
    return group if group is not None and group.consumer is not None else None


# The classic protocol's requests


def join(
    shard: GroupShard,
    req: JoinCall,
    now: int,
    reply: JoinReply,
    host: str,
    topics: Topics = NO_TOPICS,
) -> None:
    settings = shard.settings
    group_id: str = req["group_id"]
    if not group_id:
        reply(join_response(errors.InvalidGroupIdError.code, req.get("member_id") or ""))
        return
    timeout = req["session_timeout_ms"]
    if not settings.min_session_timeout_ms <= timeout <= settings.max_session_timeout_ms:
        reply(join_response(errors.InvalidSessionTimeoutError.code, req.get("member_id") or ""))
        return
    group = shard.group(group_id)
    if group is not None and group.share is not None:
        # Kafka answers a classic member of a share group so, without a member id.
        reply(join_response(errors.InconsistentGroupProtocolError.code, ""))
        return
    if group is not None and group.streams is not None:
        if group.streams.members:
            reply(join_response(errors.InconsistentGroupProtocolError.code, ""))
            return
        # An empty streams group becomes a classic one, as in Kafka: its records go.
        shard.write(Write(list(streams_records.tombstones(group_id, group.streams)), False))
        group.streams = None
    if group is not None and group.consumer is not None and group.consumer.members:
        migration.join(shard, group, req, now, reply, host, topics)
    else:
        membership.join(shard, req, now, reply, host, topics)


def sync(shard: GroupShard, req: SyncGroupRequest, now: int, reply: SyncReply) -> None:
    group = _migrated(shard, req["group_id"])
    if group is not None and not group.is_empty():
        migration.sync(shard, group, req, now, reply)
    else:
        membership.sync(shard, req, now, reply)


def heartbeat(shard: GroupShard, req: HeartbeatRequest, now: int) -> int:
    group = _migrated(shard, req["group_id"])
    if group is not None:
        return migration.heartbeat(group, req, now)
    return membership.heartbeat(shard, req, now)


def leave(
    shard: GroupShard, group_id: str, leaving: list[tuple[str, str | None]], now: int
) -> tuple[int, list[int]]:
    group = _migrated(shard, group_id)
    if group is not None:
        return migration.leave(shard, group, leaving, now)
    return membership.leave(shard, group_id, leaving, now)


# The consumer protocol's


def consumer_heartbeat(
    shard: GroupShard, req: HeartbeatCall, now: int, topics: Topics, host: str
) -> ConsumerGroupHeartbeatResponse:
    invalid = consumer.validate(req, list(shard.settings.consumer_assignors))
    if invalid is not None:
        return consumer.error_response(invalid[0], invalid[1])
    group_id = req["group_id"]
    group = shard.group(group_id)
    if group is not None and (group.share is not None or group.streams is not None):
        return consumer.error_response(
            errors.GroupIdNotFoundError.code, f"Group {group_id} is not a consumer group."
        )
    if group is not None and group.consumer is None and not group.is_empty():
        # A classic group with members: a joining member upgrades it in place when the
        # migration policy allows (Kafka's getOrMaybeCreateConsumerGroup).
        why = (
            migration.upgrade(shard, group, now, topics)
            if req["member_epoch"] == 0
            else f"Group {group_id} is not a consumer group."
        )
        if why is not None:
            return consumer.error_response(errors.GroupIdNotFoundError.code, why)
    return consumer.heartbeat(shard, req, now, topics, host, _fence)


# The share protocol's


def share_heartbeat(
    shard: GroupShard, req: ShareHeartbeatCall, now: int, topics: Topics, host: str
) -> share.Outcome:
    return share.heartbeat(shard, req, now, topics, host)


# The streams protocol's


def streams_heartbeat(
    shard: GroupShard, req: StreamsHeartbeatCall, now: int, topics: Topics, host: str
) -> streams.Outcome:
    return streams.heartbeat(shard, req, now, topics, host)


def _fence(shard: GroupShard, group: Group, member_id: str, now: int) -> bool:
    """Takes a member out of a consumer group (Kafka's consumerGroupFenceMember): the group
    turns classic again instead when that member was the last of the consumer protocol
    (`migration.maybe_downgrade`). True when it did."""
    if migration.maybe_downgrade(shard, group, member_id, now):
        return True
    consumer.remove_member(group, member_id, now)
    return False


# Timers


def tick(shard: GroupShard, group: Group, now: int, topics: Topics = NO_TOPICS) -> None:
    if group.share is not None:
        share.tick(shard, group, now, topics)
        return
    if group.streams is not None:
        streams.tick(shard, group, now)
        return
    membership.tick(shard, group, now)
    consumer.tick(shard, group, now, _fence)
