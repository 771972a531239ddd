"""The state machine of one `__consumer_offsets` partition: every group whose id hashes to
it, and their committed offsets.

Operations (in `membership` and `offsets`) take the decoded request, the current time and a
`reply` callback, and never do I/O: what must be written goes to `outbox` as a `Write` (the
records, whether they are replayed once appended, and what to do when the append is done).
The I/O layer appends the outbox, replays, then calls `on_done`. Committed offsets change only
in `replay`, so loading a partition is replaying it; membership is volatile (as in Kafka) and
snapshotted by GroupMetadata records, which loading turns back into groups.

Transactional offset commits (TxnOffsetCommit) are appended as a transactional batch of their
producer and held pending, per producer, until the transaction's marker reaches this
partition: COMMIT makes them the group's committed offsets, ABORT drops them (`end_txn`, from
loading and from the marker writer alike)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ferrolog.controller.coordinator.batches import CONTROL_COMMIT, Batch
from ferrolog.controller.coordinator.group import consumer_records, share_records, streams_records
from ferrolog.controller.coordinator.group.consumer_state import NO_TOPICS, ConsumerGroup, Topics
from ferrolog.controller.coordinator.group.records import (
    CONSUMER_GROUP_METADATA,
    SHARE_GROUP_METADATA,
    STREAMS_GROUP_METADATA,
    ConsumerGroupRecord,
    GroupRecord,
    GroupValue,
    MemberValue,
    OffsetRecord,
    OffsetValue,
    Record,
    ShareGroupRecord,
    StreamsGroupRecord,
    decode,
)
from ferrolog.controller.coordinator.group.share_state import ShareGroup
from ferrolog.controller.coordinator.group.state import Group, GroupSettings, GroupState, Member
from ferrolog.controller.coordinator.group.streams_state import StreamsGroup


def _no_op(error: int) -> None:
    pass


@dataclass
class Write:
    records: list[Record]
    # Offsets and tombstones are replayed; a GroupMetadata snapshot of a live group is not
    # (the in-memory group is already ahead of it, as with Kafka's classic groups).
    replay: bool
    # Called with 0 once the records are durable (and replayed), else with the error code
    # the requests waiting on them answer (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, ...).
    on_done: Callable[[int], None] = field(default=_no_op)
    # (producer id, epoch) of a transactional offset commit: its records go in a
    # transactional batch of that producer and are replayed as pending.
    producer: tuple[int, int] | None = None


@dataclass
class RebalanceCounts:
    """Rebalances of the groups of every shard of one coordinator, for its metrics (Kafka's
    group-coordinator-metrics `group-rebalance-count` and `group-completed-rebalance-count`):
    shared by the shards so that the counts outlive a shard that moves to another broker."""

    begun: int = 0  # a group went to PreparingRebalance
    completed: int = 0  # its join phase ended with members: a new generation to sync


class GroupShard:
    def __init__(
        self,
        partition: int,
        settings: GroupSettings,
        rebalances: RebalanceCounts | None = None,
        topics: Topics = NO_TOPICS,
        epoch: int = 0,
    ) -> None:
        self.partition = partition
        # The leader epoch of the partition this shard was loaded for.
        self.epoch = epoch
        # The cluster's topics: consumer group records name topics by id.
        self.topics = topics
        self.settings = settings
        self.rebalances = rebalances if rebalances is not None else RebalanceCounts()
        self.groups: dict[str, Group] = {}
        self.outbox: list[Write] = []
        # Offsets of open transactions: producer id -> group -> partition -> offset.
        self.pending_txn: dict[int, dict[str, dict[tuple[str, int], OffsetValue]]] = {}

    def write(self, write: Write) -> None:
        if not write.records:
            write.on_done(0)  # nothing to make durable
            return
        self.outbox.append(write)

    def when_written(self, done: Callable[[int], None]) -> None:
        """Calls `done(error)` once the writes queued so far are durable (now if none)."""
        if not self.outbox:
            done(0)
            return
        last = self.outbox[-1]
        before = last.on_done

        def both(error: int) -> None:
            before(error)
            done(error)

        last.on_done = both

    def consumer_write(
        self, group: Group, members: list[str] | None = None, removed: Sequence[str] = ()
    ) -> Write:
        """The records of what changed in `group`'s consumer group (see `consumer_records`),
        not replayed: the group in memory is already there."""
        cg = group.consumer
        if cg is None:
            return Write([], replay=False)
        changes = consumer_records.records(group.group_id, cg, self.topics, members, removed)
        return Write(list(changes), replay=False)

    def take_outbox(self) -> list[Write]:
        out, self.outbox = self.outbox, []
        return out

    def group(self, group_id: str) -> Group | None:
        return self.groups.get(group_id)

    def get_or_create(self, group_id: str, now: int) -> Group:
        group = self.groups.get(group_id)
        if group is None:
            group = Group(group_id=group_id, state_timestamp=now)
            self.groups[group_id] = group
        return group

    # Replay: the only place committed state changes.

    def replay_batch(self, batch: Batch, now: int) -> int:
        """Applies one batch of the log (loading): a transaction marker ends its producer's
        pending offsets; a data batch's records are replayed, transactional ones as pending.
        Returns the records replayed."""
        control = batch.control_type()
        if control is not None:
            self.end_txn(batch.producer_id, control == CONTROL_COMMIT)
            return 0
        producer = batch.producer_id if batch.is_transactional else None
        count = 0
        for key, value in batch.key_values():
            record = decode(key, value) if key else None
            if record is not None:
                self.replay(record, now, producer)
                count += 1
        return count

    def replay(self, record: Record, now: int, producer_id: int | None = None) -> None:
        """Applies one record; one of a transactional batch (`producer_id`) waits for its
        transaction's end."""
        if isinstance(record, OffsetRecord):
            key = (record.topic, record.partition)
            if producer_id is not None:
                if record.value is not None:
                    self.get_or_create(record.group, now)
                    pending = self.pending_txn.setdefault(producer_id, {})
                    pending.setdefault(record.group, {})[key] = record.value
                return
            if record.value is None:
                group = self.groups.get(record.group)
                if group is not None:
                    group.offsets.pop(key, None)
                    self._drop_if_unused(group)
            else:
                self.get_or_create(record.group, now).offsets[key] = record.value
            return
        if isinstance(record, ConsumerGroupRecord):
            self._replay_consumer(record, now)
            return
        if isinstance(record, ShareGroupRecord):
            self._replay_share(record, now)
            return
        if isinstance(record, StreamsGroupRecord):
            self._replay_streams(record, now)
            return
        if record.value is None:
            # The classic group is gone: deleted (its offsets were deleted before), or
            # upgraded to a consumer group (whose records follow; its offsets stay).
            group = self.groups.get(record.group)
            if group is not None:
                for member_id in list(group.members):
                    group.discard(member_id)
                group.static_members = {}
                group.pending_members = {}
                group.protocol_type = group.protocol = group.leader = None
                if group.consumer is None and not group.offsets:
                    self._drop_if_unused(group)
            return
        self._load_group(record.group, record.value, now)

    def _replay_consumer(self, record: ConsumerGroupRecord, now: int) -> None:
        group = self.groups.get(record.group)
        if record.value is None and (group is None or group.consumer is None):
            return
        if record.kind == CONSUMER_GROUP_METADATA and record.value is None:
            # The consumer group is gone: deleted, or downgraded to a classic group (whose
            # GroupMetadata follows).
            assert group is not None
            group.consumer = None
            group.state = GroupState.EMPTY
            self._drop_if_unused(group)
            return
        if group is None or group.consumer is None:
            group = self.get_or_create(record.group, now)
            for member_id in list(group.members):
                group.discard(member_id)
            group.consumer = ConsumerGroup(assignor=self.settings.consumer_assignors[0])
        consumer_records.replay(
            group.consumer,
            record,
            self.topics,
            now,
            self.settings.consumer_session_timeout(record.group),
        )
        group.state = GroupState.STABLE if group.consumer.members else GroupState.EMPTY

    def _replay_share(self, record: ShareGroupRecord, now: int) -> None:
        group = self.groups.get(record.group)
        if record.value is None and (group is None or group.share is None):
            return
        if record.kind == SHARE_GROUP_METADATA and record.value is None:
            assert group is not None
            group.share = None  # deleted
            group.state = GroupState.EMPTY
            self._drop_if_unused(group)
            return
        if group is None or group.share is None:
            group = self.get_or_create(record.group, now)
            group.share = ShareGroup()
        timeout = self.settings.share_session_timeout(record.group)
        share_records.replay(group.share, record, self.topics, now, timeout)

    def _replay_streams(self, record: StreamsGroupRecord, now: int) -> None:
        group = self.groups.get(record.group)
        if record.value is None and (group is None or group.streams is None):
            return
        if group is None or group.streams is None:
            group = self.get_or_create(record.group, now)
            group.streams = StreamsGroup()
        timeout = self.settings.streams(record.group, "session.timeout.ms")
        streams_records.replay(group.streams, record, now, timeout)
        if record.kind == STREAMS_GROUP_METADATA and record.value is None:
            # Deleted (its topology's tombstone may follow; nothing else of it can).
            group.streams = None
            group.state = GroupState.EMPTY
            self._drop_if_unused(group)

    def end_txn(self, producer_id: int, commit: bool) -> None:
        """The transaction of `producer_id` ended here (its marker is in this partition)."""
        pending = self.pending_txn.pop(producer_id, None)
        if not pending:
            return
        for group_id, offsets in pending.items():
            group = self.groups.get(group_id)
            if group is None:
                continue
            if commit:
                group.offsets.update(offsets)
            else:
                self._drop_if_unused(group)

    def has_pending(self, group_id: str, topic: str, partition: int) -> bool:
        """Whether an open transaction holds an offset of this partition for the group
        (OffsetFetch's `require_stable` answers UNSTABLE_OFFSET_COMMIT then)."""
        key = (topic, partition)
        return any(key in p.get(group_id, {}) for p in self.pending_txn.values())

    def _drop_if_unused(self, group: Group) -> None:
        if (
            group.is_empty()
            and not group.offsets
            and group.protocol_type is None
            and group.share is None
            and group.streams is None
            and not any(group.group_id in p for p in self.pending_txn.values())
        ):
            group.state = GroupState.DEAD
            self.groups.pop(group.group_id, None)

    def _load_group(self, group_id: str, value: GroupValue, now: int) -> None:
        """A group as its last snapshot left it: members resume (they keep heartbeating the
        same generation), or an empty group."""
        group = self.get_or_create(group_id, now)
        group.consumer = None
        group.protocol_type = value.protocol_type or None
        group.protocol = value.protocol
        group.generation = value.generation
        group.leader = value.leader
        group.state_timestamp = value.state_timestamp if value.state_timestamp >= 0 else now
        for member_id in list(group.members):
            group.discard(member_id)
        group.static_members = {}
        group.pending_members = {}
        group.rebalance_deadline = group.sync_deadline = None
        for m in value.members:
            member = Member(
                member_id=m.member_id,
                group_instance_id=m.group_instance_id,
                client_id=m.client_id,
                client_host=m.client_host,
                rebalance_timeout_ms=m.rebalance_timeout_ms,
                session_timeout_ms=m.session_timeout_ms,
                protocol_type=value.protocol_type,
                protocols=[(value.protocol or "", m.subscription)],
                assignment=m.assignment,
                heartbeat_deadline=now + m.session_timeout_ms,
            )
            group.add(member)
        group.state = GroupState.STABLE if group.members else GroupState.EMPTY

    def snapshot(self, group: Group, now: int) -> GroupRecord:
        """The GroupMetadata record of `group` as it is now."""
        members = tuple(
            MemberValue(
                member_id=m.member_id,
                group_instance_id=m.group_instance_id,
                client_id=m.client_id,
                client_host=m.client_host,
                rebalance_timeout_ms=m.rebalance_timeout_ms,
                session_timeout_ms=m.session_timeout_ms,
                subscription=m.metadata(group.protocol),
                assignment=m.assignment,
            )
            for m in group.members.values()
        )
        return GroupRecord(
            group.group_id,
            GroupValue(
                protocol_type=group.protocol_type or "",
                generation=group.generation,
                protocol=group.protocol,
                leader=group.leader,
                state_timestamp=now,
                members=members,
            ),
        )
