"""The share coordinator: the share-partitions of each `__share_group_state` partition this
broker leads, as shards on the coordinator runtime, and Kafka's five share-state APIs on them
(Initialize, Read, Write, Delete and ReadSummary ShareGroupState).

A share-partition (group, topic id, partition) lives on partition
`abs(hash("group:topicId:partition")) % partitions` of `__share_group_state` (Kafka's
`SharePartitionKey.asCoordinatorKey`, the topic id in its base64 form), so brokers and Kafka's
tools agree on where it is. Each operation changes its shard at once and is answered once what
it wrote is committed.

Every `share.coordinator.state.topic.prune.interval.ms`, the records of each partition led
here that every share-partition's last snapshot has made redundant are deleted (the log start
offset moves to the lowest last snapshot), as Kafka's share coordinator prunes its topic. And
once a second, the share-partitions of topics deleted since the last look are deleted too
(tombstones), as Kafka's does on a topic deletion."""

from __future__ import annotations

import base64
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.cluster.topics import SHARE_GROUP_STATE
from ferrolog.controller.coordinator.partitioning import partition_for
from ferrolog.controller.coordinator.runtime import CoordinatorRuntime
from ferrolog.controller.coordinator.share import records
from ferrolog.controller.coordinator.share.records import SharePartitionKey, ShareRecord
from ferrolog.controller.coordinator.share.shard import PartitionExists, Refused, ShareShard
from ferrolog.controller.coordinator.share.state import ShareState, StateBatch
from ferrolog.native_calls import native_call

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.config import BrokerConfig
    from ferrolog.controller.native_waits import NativeWaits

log = logging.getLogger(__name__)
T = TypeVar("T")
TICK_SECONDS = 1.0
# How often the coordinator looks for deleted topics, whose share-partitions it then deletes.
DELETED_TOPICS_CHECK_MS = 1000

# Kafka's translation of a failed append for the share-state APIs.
_APPEND_ERRORS = {
    errors.NotLeaderOrFollowerError.code: errors.NotCoordinatorError.code,
    errors.KafkaStorageError.code: errors.NotCoordinatorError.code,
    errors.NotCoordinatorError.code: errors.NotCoordinatorError.code,
    errors.UnknownTopicOrPartitionError.code: errors.CoordinatorNotAvailableError.code,
    errors.NotEnoughReplicasError.code: errors.CoordinatorNotAvailableError.code,
    errors.RequestTimedOutError.code: errors.CoordinatorNotAvailableError.code,
}


def coordinator_key(group_id: str, topic_id: bytes, partition: int) -> str:
    """Kafka's SharePartitionKey.asCoordinatorKey: the topic id as Uuid.toString() gives it
    (URL-safe base64, no padding)."""
    encoded = base64.urlsafe_b64encode(topic_id).decode().rstrip("=")
    return f"{group_id}:{encoded}:{partition}"


def parse_coordinator_key(key: str) -> SharePartitionKey:
    """The (group, topic id, partition) of a FindCoordinator share key, read from the right
    (a group id may hold ':'); raises ValueError for a malformed one, as Kafka's
    SharePartitionKey.getInstance."""
    parts = key.split(":")
    if len(parts) < 3:
        raise ValueError(f"not group:topicId:partition: {key!r}")
    group_id = ":".join(parts[:-2])
    if not group_id.strip():
        raise ValueError("empty group id")
    encoded = parts[-2]
    topic_id = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    if len(topic_id) != 16:
        raise ValueError(f"bad topic id {encoded!r}")
    return group_id, topic_id, int(parts[-1])


@dataclass(frozen=True)
class Outcome:
    """One share-partition's answer: a Kafka error code and message (0, None: done)."""

    code: int = 0
    message: str | None = None


class ShareCoordinator:
    def __init__(
        self,
        native: ferrolog_native.Server,
        waits: NativeWaits,
        config: BrokerConfig,
        exists: Callable[[], PartitionExists],
    ) -> None:
        self._native = native
        self._exists = exists
        self._updates_per_snapshot = config.get_int(
            "share.coordinator.snapshot.update.records.per.snapshot"
        )
        self._prune_interval_ms = config.get_int("share.coordinator.state.topic.prune.interval.ms")
        self._next_prune = now_ms() + self._prune_interval_ms
        self._pruning = False
        # partition -> the offset it was last pruned to (no delete is asked twice).
        self._pruned: dict[int, int] = {}
        # Topic ids seen to exist (at a look, or by an operation's check): only those can be
        # found deleted (a view not loaded yet deletes nothing).
        self._seen: set[bytes] = set()
        self._last_topic_check = 0
        # The controller's leadership listener for `__share_group_state`.
        self.runtime: CoordinatorRuntime[ShareShard] = CoordinatorRuntime(
            native,
            waits,
            SHARE_GROUP_STATE,
            config.get_int("share.coordinator.state.topic.num.partitions"),
            self._new_shard,
            tick_seconds=TICK_SECONDS,
            tick=self._tick,
        )

    def _new_shard(self, partition: int, leader_epoch: int) -> ShareShard:
        def exists(topic_id: bytes, index: int) -> bool:
            found = self._exists()(topic_id, index)
            if found:
                self._seen.add(topic_id)
            return found

        return ShareShard(partition, leader_epoch, exists, self._updates_per_snapshot)

    def start(self) -> None:
        self.runtime.start()

    def _tick(self, now: int) -> None:
        if now - self._last_topic_check >= DELETED_TOPICS_CHECK_MS:
            self._last_topic_check = now
            self._forget_deleted_topics()
        if now < self._next_prune or self._pruning:
            return
        self._next_prune = now + self._prune_interval_ms
        self._pruning = True
        self.runtime.spawn(self._prune())

    def _forget_deleted_topics(self) -> None:
        shards = self.runtime.shards()
        exists = self._exists()
        known = {key[1] for shard in shards for key in shard.states}
        # A topic's partitions are never fewer than one: partition 0 tells the topic.
        existing = {topic_id for topic_id in known if exists(topic_id, 0)}
        self._seen |= existing
        deleted = (known & self._seen) - existing
        self._seen -= deleted
        if not deleted:
            return
        for shard in shards:
            written = shard.forget_topics(deleted)
            if written:
                log.info("share state of %d partitions of deleted topics deleted", len(written))
                appended = self.runtime.append(shard, [records.encode(r) for r in written])
                self.runtime.spawn(self._logged(appended, shard.partition))

    @staticmethod
    async def _logged(appended: Awaitable[int], partition: int) -> None:
        code = await appended
        if code:
            log.warning("tombstones of deleted topics in %s-%d: error %d", SHARE_GROUP_STATE,
                        partition, code)  # fmt: skip

    async def _prune(self) -> None:
        try:
            for shard in self.runtime.shards():
                offset = shard.redundant_offset()
                if offset is None or offset <= self._pruned.get(shard.partition, 0):
                    continue
                topic, partition = SHARE_GROUP_STATE, shard.partition
                try:
                    await native_call(self._native.delete_records, topic, partition, offset)
                except Exception as exc:
                    # Not leading it any more, say: the next leader prunes.
                    log.info("pruning %s-%d to %d: %s", topic, partition, offset, exc)
                    continue
                self._pruned[partition] = offset
                log.debug("pruned %s-%d to %d", topic, partition, offset)
        finally:
            self._pruning = False

    async def stop(self) -> None:
        await self.runtime.stop()

    def partition_of(self, key: SharePartitionKey) -> int:
        partition: int = partition_for(coordinator_key(*key), self.runtime.partition_count)
        return partition

    async def _run(
        self, key: SharePartitionKey, operation: Callable[[ShareShard], tuple[T, list[ShareRecord]]]
    ) -> tuple[Outcome, T | None]:
        """Runs `operation` on the key's shard and waits for what it wrote to commit."""
        try:
            shard = self.runtime.shard(self.partition_of(key))
            result, written = operation(shard)
        except Refused as refused:
            return Outcome(refused.code, refused.message), None
        except errors.KafkaError as exc:
            return Outcome(exc.code, str(exc) or None), None
        if written:

            def committed(first: int) -> None:
                for i, record in enumerate(written):
                    if isinstance(record.value, ShareState):
                        shard.snapshot_written(record.key, first + i)

            encoded = [records.encode(r) for r in written]
            code = await self.runtime.append(shard, encoded, on_offset=committed)
            if code:
                mapped = _APPEND_ERRORS.get(code, errors.UnknownServerError.code)
                return Outcome(mapped, None), None
        return Outcome(), result

    # The five share-state APIs, per share-partition.

    async def initialize(
        self, key: SharePartitionKey, state_epoch: int, start_offset: int
    ) -> Outcome:
        outcome, _ = await self._run(
            key, lambda s: (None, s.initialize(key, state_epoch, start_offset, now_ms()))
        )
        return outcome

    async def read(
        self, key: SharePartitionKey, leader_epoch: int
    ) -> tuple[Outcome, ShareState | None]:
        return await self._run(key, lambda s: s.read(key, leader_epoch, now_ms()))

    async def write(
        self,
        key: SharePartitionKey,
        state_epoch: int,
        leader_epoch: int,
        start_offset: int,
        delivery_complete_count: int,
        batches: list[StateBatch],
    ) -> Outcome:
        outcome, _ = await self._run(
            key,
            lambda s: (
                None,
                s.write(
                    key, state_epoch, leader_epoch, start_offset, delivery_complete_count,
                    batches, now_ms(),
                ),
            ),
        )  # fmt: skip
        return outcome

    async def delete(self, key: SharePartitionKey) -> Outcome:
        outcome, _ = await self._run(key, lambda s: (None, s.delete(key)))
        return outcome

    async def summary(self, key: SharePartitionKey) -> tuple[Outcome, ShareState | None]:
        return await self._run(key, lambda s: (s.summary(key), []))
