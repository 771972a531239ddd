"""The group coordinator's I/O: which `__consumer_offsets` partitions this broker leads, their
loading, the appends of each shard's outbox, and the timers.

A group lives on partition `partition_for(group_id)`, Kafka's `abs(hashCode) % partitions`
(Java's String.hashCode, so Kafka's tools agree on the partition). The controller tells the
coordinator which of those partitions this broker leads (`on_become_leader` / `on_resign`),
in single-node and cluster mode alike; a newly led partition is loaded by reading it from the
start and replaying every record, and serves nothing (COORDINATOR_LOAD_IN_PROGRESS) until
then.

Appends go through one writer per partition: the writes queued while an append is in flight
are joined into the next batch, so many concurrent commits cost one acks=all append."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.cluster.topics import CONSUMER_OFFSETS
from ferrolog.controller.coordinator import batches
from ferrolog.controller.coordinator.group import consumer, membership, offsets, records
from ferrolog.controller.coordinator.group.assignors import ASSIGNORS
from ferrolog.controller.coordinator.group.consumer_state import NO_TOPICS, Topics
from ferrolog.controller.coordinator.group.shard import GroupShard, RebalanceCounts, Write
from ferrolog.controller.coordinator.group.state import GroupSettings
from ferrolog.controller.coordinator.partitioning import partition_for

__all__ = ["GroupCoordinator", "append_error", "partition_for", "settings_from"]

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.config import BrokerConfig

log = logging.getLogger(__name__)

T = TypeVar("T")
TICK_SECONDS = 0.05
# A batch of the internal topic stays well under its max.message.bytes.
MAX_BATCH_BYTES = 512 * 1024


def settings_from(config: BrokerConfig) -> GroupSettings:
    return GroupSettings(
        min_session_timeout_ms=config.get_int("group.min.session.timeout.ms"),
        max_session_timeout_ms=config.get_int("group.max.session.timeout.ms"),
        initial_rebalance_delay_ms=config.get_int("group.initial.rebalance.delay.ms"),
        max_size=config.get_int("group.max.size"),
        offset_metadata_max_bytes=config.get_int("offset.metadata.max.bytes"),
        offsets_retention_ms=config.get_int("offsets.retention.minutes") * 60_000,
        consumer_assignors=_assignors(config.get("group.consumer.assignors") or ""),
        consumer_session_timeout_ms=config.get_int("group.consumer.session.timeout.ms"),
        consumer_heartbeat_interval_ms=config.get_int("group.consumer.heartbeat.interval.ms"),
        # Kafka reads the policy case-insensitively.
        consumer_migration_policy=(config.get("group.consumer.migration.policy") or "").lower(),
    )


def _assignors(value: str) -> tuple[str, ...]:
    """`group.consumer.assignors`: Kafka also takes class names of custom assignors; ferrolog
    has the built-in ones only, and refuses others at start-up."""
    names = tuple(n.strip() for n in value.split(",") if n.strip())
    unknown = [n for n in names if n not in ASSIGNORS]
    if unknown or not names:
        raise ValueError(
            f"group.consumer.assignors: {', '.join(unknown) or '(empty)'} not supported "
            f"(ferrolog has {', '.join(ASSIGNORS)})"
        )
    return names


@dataclass
class _Partition:
    shard: GroupShard
    leader_epoch: int
    loaded: asyncio.Event
    pending: list[Write]
    writing: bool = False


class GroupCoordinator:
    def __init__(self, native: ferrolog_native.Server, config: BrokerConfig) -> None:
        self._native = native
        self.settings = settings_from(config)
        self.partition_count = config.get_int("offsets.topic.num.partitions")
        self._retention_check_ms = config.get_int("offsets.retention.check.interval.ms")
        self._partitions: dict[int, _Partition] = {}
        self.rebalances = RebalanceCounts()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._ticker: asyncio.Task[None] | None = None
        self._last_expiry = 0
        # The cluster's topics (set by the broker once its controller runs): consumer group
        # records name topics by id.
        self.topics: Topics = NO_TOPICS

    def set_group_configs(self, configs: Mapping[str, Mapping[str, str]]) -> None:
        """Every group's own configs (resource type GROUP), in effect from each member's next
        heartbeat."""
        self.settings.group_configs.clear()
        self.settings.group_configs.update({group: dict(c) for group, c in configs.items()})

    # Leadership hooks (called by the controller)

    def on_become_leader(self, partition: int, leader_epoch: int, partition_count: int) -> None:
        """This broker now leads `partition` of `__consumer_offsets`: load its groups."""
        self.partition_count = partition_count
        current = self._partitions.get(partition)
        if current is not None and current.leader_epoch == leader_epoch:
            return
        shard = GroupShard(partition, self.settings, self.rebalances, self.topics)
        entry = _Partition(shard, leader_epoch, asyncio.Event(), [])
        self._partitions[partition] = entry
        self._spawn(self._load(partition, entry))

    def on_resign(self, partition: int) -> None:
        """Another broker leads `partition` now: forget its groups; members waiting for a
        rebalance are told NOT_COORDINATOR and look for the new coordinator."""
        entry = self._partitions.pop(partition, None)
        if entry is not None:
            for group in entry.shard.groups.values():
                membership.fail_waiting(group, errors.NotCoordinatorError.code)

    def on_transaction_completed(self, partition: int, producer_id: int, commit: bool) -> None:
        """A COMMIT or ABORT marker of `producer_id` is now in `partition` of
        `__consumer_offsets`: its pending transactional offsets there become committed or
        are dropped. A partition still loading reads the marker from the log itself."""
        entry = self._partitions.get(partition)
        if entry is not None:
            entry.shard.end_txn(producer_id, commit)

    def led_partitions(self) -> list[int]:
        return sorted(self._partitions)

    # Lifecycle

    def start(self) -> None:
        self._ticker = asyncio.get_running_loop().create_task(self._tick_loop())

    async def stop(self) -> None:
        for entry in self._partitions.values():
            for group in entry.shard.groups.values():
                membership.fail_waiting(group, errors.NotCoordinatorError.code)
        if self._ticker is not None:
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)
            self._ticker = None
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # Requests

    def shard_for(self, group_id: str) -> GroupShard:
        """The shard of `group_id`'s partition; raises NotCoordinatorError or
        CoordinatorLoadInProgressError."""
        entry = self._partitions.get(partition_for(group_id, self.partition_count))
        if entry is None:
            raise errors.NotCoordinatorError()
        if not entry.loaded.is_set():
            raise errors.CoordinatorLoadInProgressError()
        return entry.shard

    def shards(self) -> list[GroupShard]:
        return [e.shard for _, e in sorted(self._partitions.items()) if e.loaded.is_set()]

    def loading(self) -> bool:
        return any(not e.loaded.is_set() for e in self._partitions.values())

    async def run(
        self, group_id: str, operation: Callable[[GroupShard, Callable[[T], None]], None]
    ) -> T:
        """Runs `operation(shard, reply)` on the group's shard, appends what it wrote, and
        waits for the reply (which may come after a rebalance). Raises as `shard_for` does."""
        shard = self.shard_for(group_id)
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()

        def reply(value: T) -> None:
            if not future.done():
                future.set_result(value)

        operation(shard, reply)
        self.flush(shard)
        return await future

    def flush(self, shard: GroupShard) -> None:
        writes = shard.take_outbox()
        if not writes:
            return
        entry = self._partitions.get(shard.partition)
        if entry is None or entry.shard is not shard:
            for w in writes:
                w.on_done(errors.NotCoordinatorError.code)
            return
        entry.pending.extend(writes)
        if not entry.writing:
            entry.writing = True
            self._spawn(self._write_loop(entry))

    async def _write_loop(self, entry: _Partition) -> None:
        try:
            while entry.pending:
                writes: list[Write] = []
                size = 0
                # One batch has one producer: transactional commits of different producers
                # (and plain ones) go in separate appends.
                producer = entry.pending[0].producer
                while (
                    entry.pending
                    and entry.pending[0].producer == producer
                    and (not writes or size < MAX_BATCH_BYTES)
                ):
                    w = entry.pending.pop(0)
                    writes.append(w)
                    size += sum(_estimate(r) for r in w.records)
                await self._append(entry, writes)
        finally:
            entry.writing = False

    async def _append(self, entry: _Partition, writes: list[Write]) -> None:
        shard = entry.shard
        now = now_ms()
        producer = writes[0].producer
        batch = records.build_batch([r for w in writes for r in w.records], now, producer)
        error = 0
        try:
            await asyncio.to_thread(self._native.append, CONSUMER_OFFSETS, shard.partition, batch)
        except Exception as exc:
            log.warning("append to %s-%d failed: %s", CONSUMER_OFFSETS, shard.partition, exc)
            error = append_error(exc)
        if not error and self._partitions.get(shard.partition) is not entry:
            error = errors.NotCoordinatorError.code  # resigned while appending
        for w in writes:
            if not error and w.replay:
                for r in w.records:
                    shard.replay(r, now, producer[0] if producer else None)
            w.on_done(error)
        self.flush(shard)

    # Loading

    async def _load(self, partition: int, entry: _Partition) -> None:
        shard = entry.shard
        started = time.monotonic()
        count = 0
        try:
            async for batch in batches.read_partition(self._native, CONSUMER_OFFSETS, partition):
                now = now_ms()
                control = batch.control_type()
                if control is not None:
                    shard.end_txn(batch.producer_id, control == batches.CONTROL_COMMIT)
                    continue
                producer = batch.producer_id if batch.is_transactional else None
                for key, value in batch.key_values():
                    record = records.decode(key, value) if key else None
                    if record is not None:
                        shard.replay(record, now, producer)
                        count += 1
        except Exception:
            log.exception("loading %s-%d failed", CONSUMER_OFFSETS, partition)
            if self._partitions.get(partition) is entry:
                del self._partitions[partition]
            return
        entry.loaded.set()
        log.info(
            "loaded %s-%d groups=%d records=%d in %.3fs",
            CONSUMER_OFFSETS,
            partition,
            len(shard.groups),
            count,
            time.monotonic() - started,
        )

    # Timers

    async def _tick_loop(self) -> None:
        while True:
            await asyncio.sleep(TICK_SECONDS)
            try:
                self.tick(now_ms())
            except Exception:
                log.exception("group coordinator tick failed")

    def tick(self, now: int) -> None:
        expire = now - self._last_expiry >= self._retention_check_ms
        if expire:
            self._last_expiry = now
        for shard in self.shards():
            for group in list(shard.groups.values()):
                membership.tick(shard, group, now)
                consumer.tick(shard, group, now)
            if expire:
                offsets.expire_offsets(shard, now)
            self.flush(shard)


# Kafka's translation of a failed append into what a group client understands: it looks for
# the coordinator again (NOT_COORDINATOR), retries (COORDINATOR_NOT_AVAILABLE), or learns that
# the commit is too big (INVALID_COMMIT_OFFSET_SIZE).
_APPEND_ERRORS = {
    errors.NotLeaderOrFollowerError.code: errors.NotCoordinatorError.code,
    errors.KafkaStorageError.code: errors.NotCoordinatorError.code,
    errors.MessageTooLargeError.code: errors.InvalidCommitOffsetSizeError.code,
    errors.RecordListTooLargeError.code: errors.InvalidCommitOffsetSizeError.code,
}


def append_error(exc: BaseException) -> int:
    code = errors.from_native(exc).code
    return _APPEND_ERRORS.get(code, errors.CoordinatorNotAvailableError.code)


def _estimate(record: records.Record) -> int:
    if isinstance(record, records.GroupRecord) and record.value is not None:
        return 200 + sum(
            len(m.subscription) + len(m.assignment) + 100 for m in record.value.members
        )
    return 120
