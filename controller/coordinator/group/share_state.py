"""The in-memory model of KIP-932 share groups (Kafka's `ShareGroup` and `ShareGroupMember`).

A share group's members read the same partitions side by side: a partition may be assigned
to several members at once, and each record is handed to one of them at a time by the
partition's leader. So, unlike a consumer group, nothing is revoked: a member takes its target
assignment as soon as it is computed, and its member epoch is the assignment's epoch.

The group epoch counts changes of membership, subscriptions and the subscribed topics'
partitions; the target assignment is computed for one group epoch (the assignment epoch).
Persisted as Kafka does, in `__consumer_offsets` as ShareGroupMetadata / ...MemberMetadata /
...TargetAssignment / ...CurrentMemberAssignment records (`share_records`)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from ferrolog.controller.coordinator.group.consumer_state import Partitions


class ShareGroupState(enum.Enum):
    EMPTY = "Empty"
    STABLE = "Stable"
    DEAD = "Dead"


@dataclass
class ShareMember:
    member_id: str
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: list[str] = field(default_factory=list)
    member_epoch: int = 0
    previous_member_epoch: int = 0
    assigned: Partitions = field(default_factory=dict)
    session_deadline: int = 0
    # What the last response told it: an assignment is sent again only when it changes.
    last_sent: Partitions | None = None


@dataclass
class ShareGroup:
    # As in Kafka 4.4: a new group is at group and assignment epoch 1; its first member's
    # join moves both to 2.
    group_epoch: int = 1
    assignment_epoch: int = 1
    # When the target was last computed (0: never): the next waits for
    # share.assignment.interval.ms after it.
    assignment_timestamp: int = 0
    members: dict[str, ShareMember] = field(default_factory=dict)
    # The target assignment of `assignment_epoch`: member id -> topic -> partitions.
    target: dict[str, Partitions] = field(default_factory=dict)
    # Partition counts of the subscribed topics the last target was computed from, and their
    # hash as the ShareGroupMetadata record keeps it: a group loaded after its topics changed
    # moves its epoch on the next heartbeat.
    subscription_metadata: dict[str, int] = field(default_factory=dict)
    metadata_hash: int = 0
    assignor: str = "simple"
    # The share-partition state at the share coordinator, by topic name: partitions whose
    # state exists (only those are assigned), partitions asked for (-> when, in this
    # coordinator's memory: asked again after group.share.initialize.retry.interval.ms),
    # and topics whose state is being deleted.
    initialized: dict[str, set[int]] = field(default_factory=dict)
    initializing: dict[str, dict[int, int]] = field(default_factory=dict)
    deleting: set[str] = field(default_factory=set)
    # What the log holds for this group: (record type, member id or None) -> the value last
    # written (see `share_records`), so only changes are written.
    persisted: dict[tuple[int, str | None], dict[str, Any]] = field(default_factory=dict)

    def state(self) -> ShareGroupState:
        return ShareGroupState.STABLE if self.members else ShareGroupState.EMPTY

    def remove(self, member_id: str) -> ShareMember | None:
        member = self.members.pop(member_id, None)
        if member is not None:
            self.target.pop(member_id, None)
            self.group_epoch += 1
        return member

    def subscribed_topics(self) -> set[str]:
        return {name for m in self.members.values() for name in m.subscribed_topic_names}
