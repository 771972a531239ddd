"""The group coordinator: the groups of each `__consumer_offsets` partition this broker leads,
as shards on the coordinator runtime, and the timers of their members and offsets.

A group lives on partition `partition_for(group_id)`, Kafka's `abs(hashCode) % partitions`
(Java's String.hashCode, so Kafka's tools agree on the partition). The runtime hears from the
controller which of those partitions this broker leads, in single-node and cluster mode alike,
loads each by replaying it (`GroupShard.replay_batch`), and serves nothing of it
(COORDINATOR_LOAD_IN_PROGRESS) until then. What a shard's operations write goes through the
runtime's batched appends: many concurrent commits cost one acks=all append."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.cluster.topics import CONSUMER_OFFSETS
from ferrolog.controller.coordinator.group import (
    consumer,
    descriptions,
    membership,
    offsets,
    protocols,
    records,
    share,
    share_offsets,
)
from ferrolog.controller.coordinator.group.assignors import ASSIGNORS
from ferrolog.controller.coordinator.group.consumer import HeartbeatCall
from ferrolog.controller.coordinator.group.consumer_state import NO_TOPICS, Topics
from ferrolog.controller.coordinator.group.membership import JoinCall
from ferrolog.controller.coordinator.group.shard import GroupShard, RebalanceCounts, Write
from ferrolog.controller.coordinator.group.share import ShareHeartbeatCall
from ferrolog.controller.coordinator.group.share_service import ShareGroups
from ferrolog.controller.coordinator.group.state import GroupSettings
from ferrolog.controller.coordinator.group.streams_messages import MayCreate, StreamsHeartbeatCall
from ferrolog.controller.coordinator.group.streams_service import StreamsGroups
from ferrolog.controller.coordinator.partitioning import partition_for
from ferrolog.controller.coordinator.runtime import CoordinatorRuntime
from ferrolog.protocol.messages import (
    ConsumerGroupDescribeResponseDescribedGroup,
    ConsumerGroupHeartbeatResponse,
    DescribeGroupsResponseDescribedGroup,
    DescribeShareGroupOffsetsResponseTopic,
    HeartbeatRequest,
    JoinGroupResponse,
    ListGroupsResponseListedGroup,
    OffsetCommitRequest,
    OffsetCommitResponse,
    OffsetDeleteRequestTopic,
    OffsetDeleteResponse,
    OffsetFetchRequestTopic,
    OffsetFetchResponseTopics,
    ShareGroupDescribeResponseDescribedGroup,
    ShareGroupHeartbeatResponse,
    StreamsGroupDescribeResponseDescribedGroup,
    StreamsGroupHeartbeatResponse,
    SyncGroupRequest,
    SyncGroupResponse,
    TxnOffsetCommitRequest,
    TxnOffsetCommitResponse,
)

__all__ = ["GroupCoordinator", "append_error", "partition_for", "settings_from"]

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.config import BrokerConfig
    from ferrolog.controller.native_waits import NativeWaits

log = logging.getLogger(__name__)
T = TypeVar("T")
# How often the coordinator looks for deleted topics, whose offsets it then deletes.
DELETED_TOPICS_CHECK_MS = 1000
# Whether a topic's partition exists (commits to one that does not are refused).
PartitionExists = Callable[[str, int], bool]
TICK_SECONDS = 0.05


def settings_from(config: BrokerConfig) -> GroupSettings:
    _only_assignor("group.share.assignors", config.get("group.share.assignors") or "", "simple")
    _only_assignor("group.streams.assignors", config.get("group.streams.assignors") or "", "sticky")
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
        consumer_max_size=config.get_int("group.consumer.max.size"),
        # Kafka reads the policy case-insensitively.
        consumer_migration_policy=(config.get("group.consumer.migration.policy") or "").lower(),
        share_max_size=config.get_int("group.share.max.size"),
        share_session_timeout_ms=config.get_int("group.share.session.timeout.ms"),
        share_heartbeat_interval_ms=config.get_int("group.share.heartbeat.interval.ms"),
        share_assignment_interval_ms=config.get_int("group.share.assignment.interval.ms"),
        share_initialize_retry_interval_ms=max(
            config.get_int("group.share.initialize.retry.interval.ms"),
            config.get_int("offsets.commit.timeout.ms"),
        ),
        streams_session_timeout_ms=config.get_int("group.streams.session.timeout.ms"),
        streams_heartbeat_interval_ms=config.get_int("group.streams.heartbeat.interval.ms"),
        streams_max_size=config.get_int("group.streams.max.size"),
        streams_num_standby_replicas=config.get_int("group.streams.num.standby.replicas"),
        streams_initial_rebalance_delay_ms=config.get_int(
            "group.streams.initial.rebalance.delay.ms"
        ),
        streams_assignment_interval_ms=config.get_int("group.streams.assignment.interval.ms"),
        streams_task_offset_interval_ms=config.get_int("group.streams.task.offset.interval.ms"),
        streams_acceptable_recovery_lag=config.get_int("group.streams.acceptable.recovery.lag"),
    )


def _only_assignor(name: str, value: str, builtin: str) -> None:
    """`group.share.assignors`, `group.streams.assignors`: Kafka takes its built-in one or
    class names of others; ferrolog has the built-in one only, and refuses others at start."""
    names = [n.strip() for n in value.split(",") if n.strip()]
    if names != [builtin]:
        raise ValueError(f"{name}: {value or '(empty)'} not supported (ferrolog has {builtin})")


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


class GroupCoordinator:
    def __init__(
        self, native: ferrolog_native.Server, config: BrokerConfig, waits: NativeWaits
    ) -> None:
        self.settings = settings_from(config)
        self._retention_check_ms = config.get_int("offsets.retention.check.interval.ms")
        self.rebalances = RebalanceCounts()
        self._last_expiry = 0
        # Each topic's id when last looked at (None: not yet), to tell deleted topics.
        self._topic_ids: dict[str, bytes] | None = None
        self._last_topic_check = 0
        # The cluster's topics (set by the broker once its controller runs): consumer group
        # records name topics by id.
        self.topics: Topics = NO_TOPICS
        # Its share groups' dealings with the share coordinator and partition leaders.
        self.shares = ShareGroups(self)
        # Its streams groups' heartbeats and the internal topics they need.
        self.streams = StreamsGroups(self)
        # The controller's leadership listener for `__consumer_offsets`.
        self.runtime: CoordinatorRuntime[GroupShard] = CoordinatorRuntime(
            native,
            waits,
            CONSUMER_OFFSETS,
            config.get_int("offsets.topic.num.partitions"),
            self._new_shard,
            tick_seconds=TICK_SECONDS,
            tick=self.tick,
            on_unloaded=_unloaded,
        )

    def _new_shard(self, partition: int, leader_epoch: int) -> GroupShard:
        return GroupShard(partition, self.settings, self.rebalances, self.topics, leader_epoch)

    def set_group_configs(self, configs: Mapping[str, Mapping[str, str]]) -> None:
        """Every group's own configs (resource type GROUP), in effect from each member's next
        heartbeat."""
        self.settings.group_configs.clear()
        self.settings.group_configs.update({group: dict(c) for group, c in configs.items()})

    def on_transaction_completed(self, partition: int, producer_id: int, commit: bool) -> None:
        """A COMMIT or ABORT marker of `producer_id` is now in `partition` of
        `__consumer_offsets`: its pending transactional offsets there become committed or
        are dropped. A partition still loading reads the marker from the log itself."""
        shard = self.runtime.owned_shard(partition)
        if shard is not None:
            shard.end_txn(producer_id, commit)

    # Lifecycle

    def start(self) -> None:
        self.runtime.start()

    async def stop(self) -> None:
        """Members waiting on a rebalance are answered NOT_COORDINATOR; the timers stop."""
        await self.runtime.stop()

    # Requests

    def shard_for(self, group_id: str) -> GroupShard:
        """The shard of `group_id`'s partition; raises NotCoordinatorError or
        CoordinatorLoadInProgressError."""
        return self.runtime.shard(partition_for(group_id, self.runtime.partition_count))

    def shards(self) -> list[GroupShard]:
        return self.runtime.shards()

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
        """Appends what `shard` wrote; each write is replayed (when it asks to be) once
        committed, in the order written, then told its outcome."""
        for write in shard.take_outbox():
            pairs = [(records.encode_key(r), records.encode_value(r)) for r in write.records]
            appended = self.runtime.append(shard, pairs, write.producer)
            appended.add_done_callback(functools.partial(self._written, shard, write))

    def _written(self, shard: GroupShard, write: Write, appended: asyncio.Future[int]) -> None:
        error = appended.result()
        if not error and write.replay:
            now = now_ms()
            producer = write.producer[0] if write.producer else None
            for r in write.records:
                shard.replay(r, now, producer)
        write.on_done(append_error(error) if error else 0)
        self.flush(shard)

    # The service: what the group APIs' handlers call (`GroupCoordinatorApi`). Each raises
    # NotCoordinatorError or CoordinatorLoadInProgressError as `shard_for` does.

    async def join_group(self, request: JoinCall, client_host: str) -> JoinGroupResponse:
        topics = self.topics
        return await self.run(
            request["group_id"],
            lambda shard, reply: protocols.join(
                shard, request, now_ms(), reply, client_host, topics
            ),
        )

    async def sync_group(self, request: SyncGroupRequest) -> SyncGroupResponse:
        return await self.run(
            request["group_id"],
            lambda shard, reply: protocols.sync(shard, request, now_ms(), reply),
        )

    async def heartbeat(self, request: HeartbeatRequest) -> int:
        return await self.run(
            request["group_id"],
            lambda shard, reply: reply(protocols.heartbeat(shard, request, now_ms())),
        )

    async def leave_group(
        self, group_id: str, leaving: list[tuple[str, str | None]]
    ) -> tuple[int, list[int]]:
        def operation(shard: GroupShard, reply: Callable[[tuple[int, list[int]]], None]) -> None:
            # As Kafka's runtime: answered once the group's new state is in the log, so that a
            # member told it left is not back in the group after the coordinator restarts.
            left = protocols.leave(shard, group_id, leaving, now_ms())

            def written(error: int) -> None:
                code = append_error(error) if error else 0
                reply((code, [code] * len(leaving)) if code else left)

            shard.when_written(written)

        return await self.run(group_id, operation)

    async def commit_offsets(
        self, request: OffsetCommitRequest, exists: PartitionExists, version: int
    ) -> OffsetCommitResponse:
        return await self.run(
            request["group_id"],
            lambda shard, reply: offsets.commit(shard, request, now_ms(), reply, exists, version),
        )

    async def commit_txn_offsets(
        self, request: TxnOffsetCommitRequest, exists: PartitionExists
    ) -> TxnOffsetCommitResponse:
        return await self.run(
            request["group_id"],
            lambda shard, reply: offsets.commit_txn(shard, request, now_ms(), reply, exists),
        )

    def fetch_offsets(
        self,
        group_id: str,
        topics: Sequence[OffsetFetchRequestTopic] | None,
        require_stable: bool,
        member: tuple[str | None, int],
    ) -> tuple[int, list[OffsetFetchResponseTopics]]:
        """(error code, topics): the committed offsets of `topics` (None: all of them)."""
        shard = self.shard_for(group_id)
        code = offsets.validate_fetch(shard.group(group_id), member[1], member[0])
        if code:
            return code, []
        return 0, offsets.fetch(shard, group_id, topics, require_stable)

    async def delete_offsets(
        self, group_id: str, topics: list[OffsetDeleteRequestTopic]
    ) -> OffsetDeleteResponse:
        return await self.run(
            group_id,
            lambda shard, reply: offsets.offset_delete(shard, group_id, topics, now_ms(), reply),
        )

    async def delete_group(self, group_id: str) -> int:
        state: dict[str, set[int]] = {}

        def operation(shard: GroupShard, reply: Callable[[int], None]) -> None:
            state.update(share.state_partitions(shard, group_id))
            offsets.delete_group(shard, group_id, now_ms(), reply)

        code = await self.run(group_id, operation)
        if not code:
            self.shares.deleted(group_id, state)
        return code

    def describe_group(self, group_id: str) -> DescribeGroupsResponseDescribedGroup:
        return descriptions.describe(self.shard_for(group_id).group(group_id), group_id)

    def list_groups(self) -> tuple[list[ListGroupsResponseListedGroup], bool]:
        """Every group of the loaded partitions, and whether a partition is still loading."""
        listed = [
            descriptions.list_entry(g) for shard in self.shards() for g in shard.groups.values()
        ]
        return listed, self.runtime.loading()

    def validate_consumer_heartbeat(self, request: HeartbeatCall) -> tuple[int, str] | None:
        """(error code, message) for a ConsumerGroupHeartbeat that is wrong in itself."""
        return consumer.validate(request, list(self.settings.consumer_assignors))

    async def consumer_group_heartbeat(
        self, request: HeartbeatCall, client_host: str
    ) -> ConsumerGroupHeartbeatResponse:
        topics = self.topics

        def operation(
            shard: GroupShard, reply: Callable[[ConsumerGroupHeartbeatResponse], None]
        ) -> None:
            # The answer goes once what the heartbeat changed is in the log.
            response = protocols.consumer_heartbeat(shard, request, now_ms(), topics, client_host)
            shard.when_written(
                lambda error: reply(consumer.error_response(error) if error else response)
            )

        return await self.run(request["group_id"], operation)

    def describe_consumer_group(self, group_id: str) -> ConsumerGroupDescribeResponseDescribedGroup:
        group = self.shard_for(group_id).group(group_id)
        return descriptions.describe_consumer_group(group, group_id, self.topics)

    # Share groups (`share_service`)

    async def share_group_heartbeat(
        self, request: ShareHeartbeatCall, client_host: str
    ) -> ShareGroupHeartbeatResponse:
        return await self.shares.heartbeat(request, client_host)

    def describe_share_group(self, group_id: str) -> ShareGroupDescribeResponseDescribedGroup:
        return self.shares.describe(group_id)

    async def describe_share_group_offsets(
        self, group_id: str, wanted: list[tuple[str, list[int]]] | None
    ) -> list[DescribeShareGroupOffsetsResponseTopic]:
        return await self.shares.describe_offsets(group_id, wanted)

    async def alter_share_group_offsets(
        self, group_id: str, offsets: dict[str, dict[int, int]]
    ) -> dict[str, dict[int, int]]:
        return await self.shares.alter_offsets(group_id, offsets)

    async def delete_share_group_offsets(
        self, group_id: str, names: list[str]
    ) -> list[tuple[str, bytes, int, str | None]]:
        return await self.shares.delete_offsets(group_id, names)

    # Streams groups (`streams_service`)

    async def streams_group_heartbeat(
        self, request: StreamsHeartbeatCall, client_host: str, may_create: MayCreate
    ) -> StreamsGroupHeartbeatResponse:
        return await self.streams.heartbeat(request, client_host, may_create)

    def describe_streams_group(
        self, group_id: str, with_description: bool
    ) -> StreamsGroupDescribeResponseDescribedGroup:
        return self.streams.describe(group_id, with_description)

    # Timers

    def tick(self, now: int) -> None:
        expire = now - self._last_expiry >= self._retention_check_ms
        if expire:
            self._last_expiry = now
        shards = self.shards()
        # Without a loaded shard there is nothing to delete (nor, before the controller
        # starts, a view to look at).
        deleted = self._deleted_topics(now) if shards else set()
        for shard in shards:
            for group in list(shard.groups.values()):
                protocols.tick(shard, group, now, self.topics)
            if expire:
                offsets.expire_offsets(shard, now)
            if deleted:
                offsets.delete_topics(shard, deleted)
                share_offsets.forget_topics(shard, deleted)
            self.flush(shard)

    def _deleted_topics(self, now: int) -> set[str]:
        """The topics deleted since the last look (once a second): gone from the cluster's
        view, or there again under a new id. Kafka's coordinator is told of them by its
        metadata publisher; here the view is compared with itself, as the replica manager
        does to drop the replicas of deleted topics."""
        if now - self._last_topic_check < DELETED_TOPICS_CHECK_MS:
            return set()
        self._last_topic_check = now
        current = self.topics.ids()
        previous, self._topic_ids = self._topic_ids, current
        if previous is None:
            return set()
        return {name for name, topic_id in previous.items() if current.get(name) != topic_id}


def _unloaded(shard: GroupShard) -> None:
    """Another broker coordinates these groups now (or this one stops): members waiting for a
    rebalance are told NOT_COORDINATOR and look for the new coordinator."""
    for group in shard.groups.values():
        membership.fail_waiting(group, errors.NotCoordinatorError.code)


# Kafka's translation of a failed append into what a group client understands: it looks for
# the coordinator again (NOT_COORDINATOR), retries (COORDINATOR_NOT_AVAILABLE), or learns that
# the commit is too big (INVALID_COMMIT_OFFSET_SIZE).
_APPEND_ERRORS = {
    errors.NotCoordinatorError.code: errors.NotCoordinatorError.code,
    errors.NotLeaderOrFollowerError.code: errors.NotCoordinatorError.code,
    errors.KafkaStorageError.code: errors.NotCoordinatorError.code,
    errors.MessageTooLargeError.code: errors.InvalidCommitOffsetSizeError.code,
    errors.RecordListTooLargeError.code: errors.InvalidCommitOffsetSizeError.code,
}


def append_error(code: int) -> int:
    """What a group client is told of an append that failed with `code`."""
    return _APPEND_ERRORS.get(code, errors.CoordinatorNotAvailableError.code)
