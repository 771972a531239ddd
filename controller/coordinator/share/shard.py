"""A shard of the share coordinator: the share-partitions of one `__share_group_state`
partition, and the operations of Kafka's ShareCoordinatorShard on them.

Operations are pure: request values in, (error, records) out. The records are applied to
the shard at once (what is in memory runs ahead of the log, as in the group coordinator), and
the coordinator answers once they are committed. Loading replays the partition: a snapshot
sets a share-partition's state, an update merges into it, a tombstone removes it.

Fencing keeps, per share-partition, the highest leader epoch and state epoch seen: a request
with an older one is refused (FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH). Only Read raises the
leader epoch (the partition leader reads when it becomes leader); Initialize sets the state
epoch (the group's epoch when the group asked)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ferrolog import errors
from ferrolog.controller.coordinator import batches
from ferrolog.controller.coordinator.share import records
from ferrolog.controller.coordinator.share.records import SharePartitionKey, ShareRecord, Update
from ferrolog.controller.coordinator.share.state import (
    NOT_INITIALIZED,
    ShareState,
    StateBatch,
    combine,
)

# Whether a topic id has a partition of this index (Kafka's metadata image check).
PartitionExists = Callable[[bytes, int], bool]
INVALID = errors.InvalidRequestError.code


class Refused(Exception):
    """A share-partition operation refused with a Kafka error code and message."""

    def __init__(self, code: int, message: str | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _fenced_leader() -> Refused:
    return Refused(
        errors.FencedLeaderEpochError.code,
        "The leader epoch in the request is older than the epoch on the broker.",
    )


def _fenced_state() -> Refused:
    return Refused(
        errors.FencedStateEpochError.code,
        "The coordinator rejected the request because the state epoch did not match.",
    )


@dataclass
class ShareShard:
    partition: int
    epoch: int
    exists: PartitionExists
    # share.coordinator.snapshot.update.records.per.snapshot
    updates_per_snapshot: int = 500
    states: dict[SharePartitionKey, ShareState] = field(default_factory=dict)
    leader_epochs: dict[SharePartitionKey, int] = field(default_factory=dict)
    state_epochs: dict[SharePartitionKey, int] = field(default_factory=dict)
    update_counts: dict[SharePartitionKey, int] = field(default_factory=dict)
    # The offset of each share-partition's last snapshot in the log: the records before the
    # lowest of them are redundant (Kafka's ShareCoordinatorOffsetsManager).
    snapshot_offsets: dict[SharePartitionKey, int] = field(default_factory=dict)

    # Loading

    def replay_batch(self, batch: batches.Batch, now: int) -> int:
        count = 0
        # __share_group_state is never compacted: a batch's records have consecutive offsets.
        for i, (key, value) in enumerate(batch.key_values()):
            record = records.decode(key, value) if key else None
            if record is not None:
                self.replay(record)
                if isinstance(record.value, ShareState):
                    self.snapshot_written(record.key, batch.base_offset + i)
                count += 1
        return count

    def snapshot_written(self, key: SharePartitionKey, offset: int) -> None:
        """A snapshot of `key` is in the log at `offset` (replayed, or just committed)."""
        if key in self.states:
            self.snapshot_offsets[key] = max(offset, self.snapshot_offsets.get(key, -1))

    def redundant_offset(self) -> int | None:
        """The offset below which no record is needed any more: every share-partition has
        its last snapshot at or past it. None when nothing is known to be redundant."""
        if not self.states or any(key not in self.snapshot_offsets for key in self.states):
            return None
        return min(self.snapshot_offsets.values())

    def replay(self, record: ShareRecord) -> None:
        key, value = record.key, record.value
        if value is None:
            self.states.pop(key, None)
            self.leader_epochs.pop(key, None)
            self.state_epochs.pop(key, None)
            self.update_counts.pop(key, None)
            self.snapshot_offsets.pop(key, None)
            return
        if isinstance(value, ShareState):
            self.states[key] = value
            self.leader_epochs[key] = max(self.leader_epochs.get(key, 0), value.leader_epoch)
            self.state_epochs[key] = max(self.state_epochs.get(key, 0), value.state_epoch)
            if self.update_counts.get(key, 0) >= self.updates_per_snapshot:
                self.update_counts[key] = 0
            return
        current = self.states.get(key)
        if current is None:
            return
        start = (
            value.start_offset if value.start_offset != NOT_INITIALIZED else current.start_offset
        )
        if value.leader_epoch != -1:
            current.leader_epoch = value.leader_epoch
            self.leader_epochs[key] = max(self.leader_epochs.get(key, 0), value.leader_epoch)
        current.delivery_complete_count = value.delivery_complete_count
        current.batches = combine(current.batches, value.batches, start)
        current.start_offset = start
        self.update_counts[key] = self.update_counts.get(key, 0) + 1

    def _apply(self, record: ShareRecord) -> list[ShareRecord]:
        self.replay(record)
        return [record]

    # Operations: each returns the records written (applied already), or raises Refused.

    def _check(self, key: SharePartitionKey, *epochs: tuple[str, int]) -> None:
        if not key[1] or key[1] == bytes(16):
            raise Refused(INVALID, "The topic id cannot be null.")
        if key[2] < 0:
            raise Refused(INVALID, "The partition id cannot be a negative number.")
        for name, value in epochs:
            if value < 0:
                raise Refused(INVALID, f"The {name} epoch cannot be a negative number.")

    def _check_exists(self, key: SharePartitionKey) -> None:
        if not self.exists(key[1], key[2]):
            raise Refused(errors.UnknownTopicOrPartitionError.code, None)

    def initialize(
        self, key: SharePartitionKey, state_epoch: int, start_offset: int, now: int
    ) -> list[ShareRecord]:
        """A fresh state (any previous one is replaced), as the group coordinator asks for
        partitions new to a share group."""
        self._check(key, ("state", state_epoch))
        if self.state_epochs.get(key, 0) > state_epoch:
            raise _fenced_state()
        self._check_exists(key)
        previous = self.states.get(key)
        state = ShareState(
            snapshot_epoch=previous.snapshot_epoch + 1 if previous else 0,
            state_epoch=state_epoch,
            leader_epoch=0,
            start_offset=start_offset,
            delivery_complete_count=-1 if start_offset == NOT_INITIALIZED else 0,
            create_timestamp=now,
            write_timestamp=now,
        )
        return self._apply(ShareRecord(key, state))

    def _initialized(self, key: SharePartitionKey, operation: str) -> ShareState:
        state = self.states.get(key)
        if state is None:
            raise Refused(
                INVALID, f"{operation} operation on uninitialized share partition not allowed."
            )
        return state

    def read(
        self, key: SharePartitionKey, leader_epoch: int, now: int
    ) -> tuple[ShareState, list[ShareRecord]]:
        """The state, for a partition leader that (re)loads the share-partition; a newer leader
        epoch is recorded, and fences older leaders' writes from then on."""
        self._check(key, ("leader", leader_epoch))
        state = self._initialized(key, "Read")
        if self.leader_epochs.get(key, 0) > leader_epoch:
            raise _fenced_leader()
        self._check_exists(key)
        written: list[ShareRecord] = []
        if leader_epoch != self.leader_epochs.get(key):
            complete = state.delivery_complete_count
            record = self._next(key, state, leader_epoch, state.start_offset, [], complete, now)
            written = self._apply(record)
        return self.states[key], written

    def write(
        self,
        key: SharePartitionKey,
        state_epoch: int,
        leader_epoch: int,
        start_offset: int,
        delivery_complete_count: int,
        new_batches: list[StateBatch],
        now: int,
    ) -> list[ShareRecord]:
        """Merges a partition leader's changes into the state: the start offset never goes
        back, and each offset keeps its most delivered state."""
        self._check(key, ("leader", leader_epoch), ("state", state_epoch))
        state = self._initialized(key, "Write")
        if self.leader_epochs.get(key, 0) > leader_epoch:
            raise _fenced_leader()
        if self.state_epochs.get(key, 0) > state_epoch:
            raise _fenced_state()
        self._check_exists(key)
        start = max(start_offset, state.start_offset)
        if start_offset == state.start_offset:
            complete = max(delivery_complete_count, state.delivery_complete_count)
        elif start_offset < state.start_offset:
            complete = state.delivery_complete_count
        else:
            complete = delivery_complete_count
        record = self._next(key, state, state.leader_epoch, start, new_batches, complete, now)
        return self._apply(record)

    def _next(
        self,
        key: SharePartitionKey,
        state: ShareState,
        leader_epoch: int,
        start: int,
        new_batches: list[StateBatch],
        complete: int,
        now: int,
    ) -> ShareRecord:
        """The record of a change: a whole snapshot once enough updates followed the last
        one (share.coordinator.snapshot.update.records.per.snapshot), else an update."""
        if self.update_counts.get(key, 0) >= self.updates_per_snapshot:
            snapshot = ShareState(
                snapshot_epoch=state.snapshot_epoch + 1,
                state_epoch=state.state_epoch,
                leader_epoch=leader_epoch,
                start_offset=start,
                delivery_complete_count=complete,
                create_timestamp=now,
                write_timestamp=now,
                batches=combine(state.batches, new_batches, start),
            )
            return ShareRecord(key, snapshot)
        update = Update(
            snapshot_epoch=state.snapshot_epoch,
            leader_epoch=leader_epoch,
            start_offset=start,
            delivery_complete_count=complete,
            batches=combine([], new_batches, start),
        )
        return ShareRecord(key, update)

    def delete(self, key: SharePartitionKey) -> list[ShareRecord]:
        """The share-partition's state goes (a tombstone); none to delete is fine."""
        self._check(key)
        self._check_exists(key)
        if key not in self.states:
            return []
        return self._apply(ShareRecord(key, None))

    def forget_topics(self, topic_ids: set[bytes]) -> list[ShareRecord]:
        """The share-partitions of deleted topics go (tombstones), as Kafka's
        maybeCleanupShareState: their topic, and so their records, are gone."""
        gone = [key for key in self.states if key[1] in topic_ids]
        return [record for key in gone for record in self._apply(ShareRecord(key, None))]

    def summary(self, key: SharePartitionKey) -> ShareState | None:
        """The state without its batches, for describing a group's offsets (None: never
        initialized); no fencing, nothing written."""
        self._check(key)
        self._check_exists(key)
        return self.states.get(key)
