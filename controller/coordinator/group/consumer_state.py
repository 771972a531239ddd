"""The in-memory model of KIP-848 consumer groups (Kafka's `ConsumerGroup` and
`ConsumerGroupMember`).

The group epoch counts changes of membership, subscriptions and the subscribed topics'
partition counts; the target assignment is computed for one group epoch (the assignment
epoch); each member moves towards its target at its own pace (its member epoch), and a
partition reaches its new owner only once the previous owner has revoked it.

Not persisted yet: Kafka writes these groups to `__consumer_offsets` as
ConsumerGroupMetadata / ...Member / ...TargetAssignment / ...CurrentMemberAssignment records;
ferrolog keeps them in memory only, so a coordinator that moves or restarts loses the
membership (members get UNKNOWN_MEMBER_ID, rejoin with epoch 0 and get a fresh assignment).
Their committed offsets are persisted like every group's."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

Partitions = dict[str, set[int]]  # topic name -> partitions


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


@dataclass
class ConsumerGroup:
    group_epoch: int = 0
    assignment_epoch: int = 0
    members: dict[str, ConsumerMember] = field(default_factory=dict)
    static_members: dict[str, str] = field(default_factory=dict)  # instance id -> member id
    # The target assignment of `assignment_epoch`: member id -> topic -> partitions.
    target: dict[str, Partitions] = field(default_factory=dict)
    # Partition counts of the subscribed topics the last target was computed from.
    subscription_metadata: dict[str, int] = field(default_factory=dict)
    assignor: str = ""

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

    def remove(self, member_id: str) -> ConsumerMember | None:
        member = self.members.pop(member_id, None)
        if member is not None:
            self.target.pop(member_id, None)
            instance = member.instance_id
            if instance is not None and self.static_members.get(instance) == member_id:
                del self.static_members[instance]
            self.group_epoch += 1
        return member
