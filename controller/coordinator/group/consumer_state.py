"""The in-memory model of KIP-848 consumer groups (Kafka's `ConsumerGroup` and
`ConsumerGroupMember`).

The group epoch counts changes of membership, subscriptions and the subscribed topics'
partition counts; the target assignment is computed for one group epoch (the assignment
epoch); each member moves towards its target at its own pace (its member epoch), and a
partition reaches its new owner only once the previous owner has revoked it.

Persisted as Kafka does, in `__consumer_offsets` as ConsumerGroupMetadata / ...Member /
...TargetAssignment / ...CurrentMemberAssignment records (`consumer_records`), so a
coordinator that moves or restarts loads the groups back and members keep their epochs."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ferrolog.controller.api import is_internal

if TYPE_CHECKING:
    from ferrolog.controller.api import ControllerApi

Partitions = dict[str, set[int]]  # topic name -> partitions


@dataclass(frozen=True)
class Topics:
    """The cluster's topics as consumer groups need them: the members and the group state
    name topics, the protocol and the records carry their ids."""

    # name -> (topic id, partition count), or None for a topic that does not exist
    by_name: Callable[[str], tuple[bytes, int] | None]
    by_id: Callable[[bytes], str | None]
    # Every topic but the internal ones, name -> topic id: what a regex may match, and what
    # the coordinator compares to tell deleted topics.
    ids: Callable[[], dict[str, bytes]]

    def names(self) -> list[str]:
        return list(self.ids())

    def id_of(self, name: str) -> bytes | None:
        found = self.by_name(name)
        return found[0] if found is not None else None

    def name_of(self, topic_id: bytes) -> str | None:
        return self.by_id(topic_id)


def topics_of(controller: Callable[[], ControllerApi]) -> Topics:
    """The topics of the cluster `controller()` knows (looked up at each call, so a view made
    before the controller starts works once it has)."""

    def by_name(name: str) -> tuple[bytes, int] | None:
        record = controller().topic(name)
        return (record.topic_id, len(record.assignment)) if record is not None else None

    def by_id(topic_id: bytes) -> str | None:
        record = controller().topic_by_id(topic_id)
        return record.name if record is not None else None

    def ids() -> dict[str, bytes]:
        return {n: t.topic_id for n, t in controller().topics().items() if not is_internal(n)}

    return Topics(by_name=by_name, by_id=by_id, ids=ids)


# Where no cluster is known (unit tests of the state machine): no topics at all.
NO_TOPICS = Topics(by_name=lambda name: None, by_id=lambda topic_id: None, ids=lambda: {})
TopicNames = Topics


class MemberState(enum.Enum):
    """Kafka's MemberState: where a member is in its reconciliation."""

    STABLE = "stable"
    # It must revoke partitions before it gets its next epoch.
    UNREVOKED_PARTITIONS = "unrevoked_partitions"
    # It has its epoch but waits for partitions other members still own.
    UNRELEASED_PARTITIONS = "unreleased_partitions"


class ConsumerGroupState(enum.Enum):
    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"


@dataclass
class ClassicMemberMetadata:
    """What a member that speaks the classic protocol (JoinGroup/SyncGroup/Heartbeat) to a
    consumer group needs kept (Kafka's ClassicMemberMetadata): it heartbeats on its own
    session timeout, and the protocols it supports decide whether a later classic joiner is
    compatible and in which version its assignment is serialized."""

    session_timeout_ms: int
    supported_protocols: list[tuple[str, bytes]]


@dataclass
class ConsumerMember:
    member_id: str
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    rebalance_timeout_ms: int = -1
    subscribed_topic_names: list[str] = field(default_factory=list)
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: MemberState = MemberState.STABLE
    assigned: Partitions = field(default_factory=dict)
    pending_revocation: Partitions = field(default_factory=dict)
    session_deadline: int = 0
    # When a member asked to revoke partitions is fenced if it has not (its rebalance timeout).
    revocation_deadline: int | None = None
    # What the last response told it: an assignment is sent again only when it changes.
    last_sent: Partitions | None = None
    # Set for a member using the classic protocol (a consumer group upgraded from a classic
    # one, or a classic consumer joining a consumer group); None for a KIP-848 member.
    classic: ClassicMemberMetadata | None = None


@dataclass
class ConsumerGroup:
    # Kafka 4.4 starts a new group at epoch 1 (4.1 started at 0), so its first member gets
    # epoch 2; a client or a dashboard comparing epochs sees the same numbers on both.
    group_epoch: int = 1
    assignment_epoch: int = 0
    members: dict[str, ConsumerMember] = field(default_factory=dict)
    static_members: dict[str, str] = field(default_factory=dict)  # instance id -> member id
    # The target assignment of `assignment_epoch`: member id -> topic -> partitions.
    target: dict[str, Partitions] = field(default_factory=dict)
    # Partition counts of the subscribed topics the last target was computed from.
    subscription_metadata: dict[str, int] = field(default_factory=dict)
    assignor: str = ""
    # What the log holds for this group: (record type, member id or None) -> the value last
    # written (see `consumer_records`), so only changes are written.
    persisted: dict[tuple[int, str | None], dict[str, Any]] = field(default_factory=dict)

    def state(self) -> ConsumerGroupState:
        if not self.members:
            return ConsumerGroupState.EMPTY
        if self.group_epoch != self.assignment_epoch:
            return ConsumerGroupState.ASSIGNING
        for m in self.members.values():
            if m.member_epoch != self.assignment_epoch or m.state != MemberState.STABLE:
                return ConsumerGroupState.RECONCILING
        return ConsumerGroupState.STABLE

    def owners(self) -> dict[tuple[str, int], str]:
        """Who holds each partition now: assigned to it or still to be revoked by it."""
        out: dict[tuple[str, int], str] = {}
        for m in self.members.values():
            for partitions in (m.assigned, m.pending_revocation):
                for topic, ps in partitions.items():
                    for p in ps:
                        out[(topic, p)] = m.member_id
        return out

    def classic_members(self) -> list[ConsumerMember]:
        return [m for m in self.members.values() if m.classic is not None]

    def all_classic_except(self, member_id: str) -> bool:
        """Kafka's allMembersUseClassicProtocolExcept: every other member is a classic one."""
        return all(m.classic is not None for i, m in self.members.items() if i != member_id) and (
            member_id in self.members and self.members[member_id].classic is None
        )

    def supports_classic_protocols(self, protocol_type: str, names: set[str]) -> bool:
        """Whether a classic member with these protocols may join: protocol type "consumer"
        and, when classic members are in the group, a protocol all of them support."""
        if protocol_type != "consumer":
            return False
        classic = self.classic_members()
        if not self.members or not classic:
            return bool(names)
        return any(
            all(name in {n for n, _ in m.classic.supported_protocols} for m in classic if m.classic)
            for name in names
        )

    def waiting_on_unreleased(self, member: ConsumerMember) -> bool:
        """Kafka's waitingOnUnreleasedPartition: the member waits for a partition of its
        target that another member still holds."""
        if member.state != MemberState.UNRELEASED_PARTITIONS:
            return False
        owners = self.owners()
        for topic, ps in self.target.get(member.member_id, {}).items():
            for p in ps:
                if p not in member.assigned.get(topic, set()) and (topic, p) in owners:
                    return True
        return False

    def remove(self, member_id: str) -> ConsumerMember | None:
        member = self.members.pop(member_id, None)
        if member is not None:
            self.target.pop(member_id, None)
            instance = member.instance_id
            if instance is not None and self.static_members.get(instance) == member_id:
                del self.static_members[instance]
            self.group_epoch += 1
        return member
