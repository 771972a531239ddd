"""The in-memory model of classic groups: members and their protocols, the group's state,
and the committed offsets of one `__consumer_offsets` partition.

Membership is volatile, as in Kafka: joins, heartbeats and pending replies live only here, and
a GroupMetadata record snapshots the group after each rebalance so a new coordinator can
resume it. Committed offsets change only by replaying records."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

from ferrolog import errors
from ferrolog.controller.coordinator.group.consumer_state import ConsumerGroup
from ferrolog.controller.coordinator.group.records import OffsetValue
from ferrolog.controller.coordinator.group.share_state import ShareGroup
from ferrolog.controller.coordinator.group.streams_state import StreamsGroup
from ferrolog.protocol.messages import JoinGroupResponse, SyncGroupResponse

JoinReply = Callable[[JoinGroupResponse], None]
SyncReply = Callable[[SyncGroupResponse], None]


class GroupState(enum.Enum):
    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"


@dataclass(frozen=True)
class GroupSettings:
    """The broker settings the coordinator applies (Kafka's names in the comments)."""

    min_session_timeout_ms: int = 6000  # group.min.session.timeout.ms
    max_session_timeout_ms: int = 1_800_000  # group.max.session.timeout.ms
    initial_rebalance_delay_ms: int = 3000  # group.initial.rebalance.delay.ms
    max_size: int = 2**31 - 1  # group.max.size
    offset_metadata_max_bytes: int = 4096  # offset.metadata.max.bytes
    offsets_retention_ms: int = 7 * 24 * 3600 * 1000  # offsets.retention.minutes
    consumer_assignors: tuple[str, ...] = ("uniform", "range")  # group.consumer.assignors
    consumer_session_timeout_ms: int = 45_000  # group.consumer.session.timeout.ms
    consumer_heartbeat_interval_ms: int = 5000  # group.consumer.heartbeat.interval.ms
    consumer_max_size: int = 2**31 - 1  # group.consumer.max.size
    # group.consumer.migration.policy: whether a classic group with members is upgraded in
    # place when a member joins with ConsumerGroupHeartbeat, and a consumer group downgraded
    # when its last KIP-848 member leaves (bidirectional, upgrade, downgrade or disabled).
    consumer_migration_policy: str = "bidirectional"
    share_max_size: int = 200  # group.share.max.size
    share_session_timeout_ms: int = 45_000  # group.share.session.timeout.ms
    share_heartbeat_interval_ms: int = 5000  # group.share.heartbeat.interval.ms
    share_assignment_interval_ms: int = 1000  # group.share.assignment.interval.ms
    # group.share.initialize.retry.interval.ms, never below offsets.commit.timeout.ms (Kafka)
    share_initialize_retry_interval_ms: int = 30_000
    streams_session_timeout_ms: int = 45_000  # group.streams.session.timeout.ms
    streams_heartbeat_interval_ms: int = 5000  # group.streams.heartbeat.interval.ms
    streams_max_size: int = 2**31 - 1  # group.streams.max.size
    streams_num_standby_replicas: int = 0  # group.streams.num.standby.replicas
    streams_initial_rebalance_delay_ms: int = 3000  # group.streams.initial.rebalance.delay.ms
    streams_assignment_interval_ms: int = 1000  # group.streams.assignment.interval.ms
    streams_task_offset_interval_ms: int = 60_000  # group.streams.task.offset.interval.ms
    streams_acceptable_recovery_lag: int = 10_000  # group.streams.acceptable.recovery.lag
    # Each group's own configs (resource type GROUP: consumer.session.timeout.ms, ...) over
    # the two consumer_* defaults above; replaced in place by `GroupCoordinator
    # .set_group_configs` when they change, and read at each heartbeat.
    group_configs: dict[str, dict[str, str]] = field(default_factory=dict, compare=False)

    def _group_config(self, group_id: str, name: str, default: int) -> int:
        value = self.group_configs.get(group_id, {}).get(name)
        return default if value is None else int(value)

    def consumer_session_timeout(self, group_id: str) -> int:
        return self._group_config(
            group_id, "consumer.session.timeout.ms", self.consumer_session_timeout_ms
        )

    def consumer_heartbeat_interval(self, group_id: str) -> int:
        return self._group_config(
            group_id, "consumer.heartbeat.interval.ms", self.consumer_heartbeat_interval_ms
        )

    def share_session_timeout(self, group_id: str) -> int:
        return self._group_config(
            group_id, "share.session.timeout.ms", self.share_session_timeout_ms
        )

    def share_heartbeat_interval(self, group_id: str) -> int:
        return self._group_config(
            group_id, "share.heartbeat.interval.ms", self.share_heartbeat_interval_ms
        )

    def share_assignment_interval(self, group_id: str) -> int:
        return self._group_config(
            group_id, "share.assignment.interval.ms", self.share_assignment_interval_ms
        )

    def streams(self, group_id: str, name: str) -> int:
        """A streams group setting: the group's `streams.<name>` config, else the broker's
        `group.streams.<name>`."""
        default = getattr(self, "streams_" + name.replace(".", "_"))
        return self._group_config(group_id, "streams." + name, default)

    def upgrade_enabled(self) -> bool:
        return self.consumer_migration_policy in ("bidirectional", "upgrade")

    def downgrade_enabled(self) -> bool:
        return self.consumer_migration_policy in ("bidirectional", "downgrade")


@dataclass
class Member:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    protocols: list[tuple[str, bytes]]
    assignment: bytes = b""
    # The JoinGroup / SyncGroup answer owed to this member, while it waits for the rebalance.
    join_reply: JoinReply | None = None
    sync_reply: SyncReply | None = None
    join_version: int = 0
    heartbeat_deadline: int = 0

    def metadata(self, protocol: str | None) -> bytes:
        for name, metadata in self.protocols:
            if name == protocol:
                return metadata
        return b""

    def protocol_names(self) -> list[str]:
        return [name for name, _ in self.protocols]


@dataclass
class Group:
    group_id: str
    state: GroupState = GroupState.EMPTY
    protocol_type: str | None = None
    protocol: str | None = None
    generation: int = 0
    leader: str | None = None
    members: dict[str, Member] = field(default_factory=dict)
    # member id -> deadline: ids handed out with MEMBER_ID_REQUIRED, not joined yet.
    pending_members: dict[str, int] = field(default_factory=dict)
    static_members: dict[str, str] = field(default_factory=dict)  # instance id -> member id
    state_timestamp: int = -1
    # When the join phase (PreparingRebalance) or the sync phase (CompletingRebalance) ends
    # regardless of stragglers.
    rebalance_deadline: int | None = None
    sync_deadline: int | None = None
    # The delayed first rebalance of an empty group (group.initial.rebalance.delay.ms): it is
    # extended while new members keep arriving, up to the rebalance timeout.
    initial_delay: bool = False
    initial_remaining_ms: int = 0
    new_member_added: bool = False
    offsets: dict[tuple[str, int], OffsetValue] = field(default_factory=dict)
    # How many members support each protocol name: the protocols all members support are
    # those counted len(members) times, found without a pass over every member (a join to a
    # big group would otherwise cost O(members)).
    protocol_counts: dict[str, int] = field(default_factory=dict)
    # A KIP-848 consumer group (type "consumer"): its members and assignments, instead of the
    # classic members above. None: a classic group (or one with offsets only).
    consumer: ConsumerGroup | None = None
    # A KIP-932 share group (type "share"): members that read the same partitions.
    share: ShareGroup | None = None
    # A KIP-1071 streams group (type "streams"): a Kafka Streams application's threads.
    streams: StreamsGroup | None = None

    @property
    def group_type(self) -> str:
        if self.share is not None:
            return "share"
        if self.streams is not None:
            return "streams"
        return "consumer" if self.consumer is not None else "classic"

    def add(self, member: Member) -> None:
        """Adds (or replaces) a member; every change of `members` goes through here or
        `discard`, which keep `protocol_counts` and `static_members` in step."""
        self.discard(member.member_id)
        self.members[member.member_id] = member
        if member.group_instance_id is not None:
            self.static_members[member.group_instance_id] = member.member_id
        self._count(member.protocols, 1)

    def discard(self, member_id: str) -> Member | None:
        member = self.members.pop(member_id, None)
        if member is not None:
            self._count(member.protocols, -1)
            instance = member.group_instance_id
            if instance is not None and self.static_members.get(instance) == member_id:
                del self.static_members[instance]
        return member

    def set_protocols(self, member: Member, protocols: list[tuple[str, bytes]]) -> None:
        self._count(member.protocols, -1)
        member.protocols = protocols
        self._count(protocols, 1)

    def _count(self, protocols: list[tuple[str, bytes]], delta: int) -> None:
        for name in {n for n, _ in protocols}:
            count = self.protocol_counts.get(name, 0) + delta
            if count:
                self.protocol_counts[name] = count
            else:
                self.protocol_counts.pop(name, None)

    def member_error(self, member_id: str, instance_id: str | None) -> int:
        """The error code of a request from a known member: UNKNOWN_MEMBER_ID for a member
        (or static instance) the group lacks, FENCED_INSTANCE_ID for a static instance now
        held by another member id, else 0."""
        if instance_id is not None:
            owner = self.static_members.get(instance_id)
            if owner is None:
                return errors.UnknownMemberIdError.code
            if owner != member_id:
                return errors.FencedInstanceIdError.code
        if member_id not in self.members:
            return errors.UnknownMemberIdError.code
        return 0

    def is_empty(self) -> bool:
        return (
            not self.members
            and (self.consumer is None or not self.consumer.members)
            and (self.share is None or not self.share.members)
            and (self.streams is None or not self.streams.members)
        )

    def all_joined(self) -> bool:
        return not self.pending_members and all(
            m.join_reply is not None for m in self.members.values()
        )

    def candidate_protocols(self) -> set[str] | None:
        """Protocols every member supports; None for a group without members."""
        if not self.members:
            return None
        size = len(self.members)
        return {name for name, count in self.protocol_counts.items() if count == size}

    def select_protocol(self) -> str | None:
        """Each member votes for its most preferred protocol that all support; the most
        votes win (ties: the first in the leader's preference order)."""
        candidates = self.candidate_protocols()
        if not candidates:
            return None
        votes: dict[str, int] = {}
        for m in self.members.values():
            choice = next(n for n in m.protocol_names() if n in candidates)
            votes[choice] = votes.get(choice, 0) + 1
        order = self.members[self.leader].protocol_names() if self.leader else []
        return max(votes, key=lambda n: (votes[n], -order.index(n) if n in order else -1))

    def max_rebalance_timeout(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)
