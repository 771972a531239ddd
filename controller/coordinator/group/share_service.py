"""The share groups of the group coordinator (KIP-932): what its service does for them beyond
one shard's state machine (`share`, `share_offsets`): asking the share coordinator, through the
persister, to create, describe and delete share-partition state, and the partition leaders
for the high watermarks a share group's lag needs. The groups live on the group coordinator's
shards, beside the classic and consumer groups whose ids they share."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.coordinator.group import descriptions, protocols, share, share_offsets
from ferrolog.controller.coordinator.group.consumer_state import Topics
from ferrolog.controller.coordinator.group.shard import GroupShard
from ferrolog.controller.coordinator.group.share import (
    NO_SHARE_STATE,
    ShareHeartbeatCall,
    ShareStateInitializer,
)
from ferrolog.protocol import ZERO_UUID
from ferrolog.protocol.messages import (
    DescribeShareGroupOffsetsResponsePartition,
    DescribeShareGroupOffsetsResponseTopic,
    ShareGroupDescribeResponseDescribedGroup,
    ShareGroupHeartbeatResponse,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

EndOffsets = Callable[
    [list[tuple[str, int]]], Awaitable[dict[tuple[str, int], int | tuple[int, str | None]]]
]


async def _no_end_offsets(
    partitions: list[tuple[str, int]],
) -> dict[tuple[str, int], int | tuple[int, str | None]]:
    return {}


def _no_offset(partition: int) -> DescribeShareGroupOffsetsResponsePartition:
    """A partition without a start offset (no share state), as Kafka reports it."""
    return {
        "partition_index": partition,
        "start_offset": -1,
        "leader_epoch": 0,
        "lag": -1,
        "error_code": 0,
        "error_message": None,
    }


class Shards(Protocol):
    """What of the group coordinator the share groups use."""

    topics: Topics

    def shard_for(self, group_id: str) -> GroupShard: ...

    def flush(self, shard: GroupShard) -> None: ...

    async def run(
        self, group_id: str, operation: Callable[[GroupShard, Callable[[T], None]], None]
    ) -> T: ...


class ShareGroups:
    def __init__(self, coordinator: Shards) -> None:
        self._coordinator = coordinator
        # Where share-partition state is created (the share coordinator, set by the broker).
        self.share_state: ShareStateInitializer = NO_SHARE_STATE
        # The high watermarks of partitions, from their leaders (set by the broker): a share
        # group's lag. Each is an offset, or (error code, message).
        self.end_offsets: EndOffsets = _no_end_offsets
        self._tasks: set[asyncio.Task[Any]] = set()

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def deleted(self, group_id: str, state: dict[str, set[int]]) -> None:
        """The group is deleted: as Kafka, its share-partitions' state goes too."""
        if state:
            self._spawn(self._delete_state(group_id, state))

    async def heartbeat(
        self, request: ShareHeartbeatCall, client_host: str
    ) -> ShareGroupHeartbeatResponse:
        topics = self._coordinator.topics
        invalid = share.validate(request)
        if invalid is not None:
            return share.error_response(*invalid)
        to_initialize: list[share.InitializeState] = []

        def operation(
            shard: GroupShard, reply: Callable[[ShareGroupHeartbeatResponse], None]
        ) -> None:
            outcome = protocols.share_heartbeat(shard, request, now_ms(), topics, client_host)
            to_initialize.extend(outcome.to_initialize)
            shard.when_written(
                lambda error: reply(share.error_response(error) if error else outcome.response)
            )

        response = await self._coordinator.run(request["group_id"], operation)
        if to_initialize and not response["error_code"]:
            # As Kafka: answered first; the partitions are assigned once their state exists.
            self._spawn(self._initialize(to_initialize))
        return response

    async def _initialize(self, states: list[share.InitializeState]) -> dict[tuple[str, int], int]:
        """Asks the share coordinator to create the share-partition state of `states`, then
        records on the group's shard which partitions have it; returns the error code of each
        (topic, partition) that did not get it."""
        failures: dict[tuple[str, int], int] = {}
        for state in states:
            try:
                failed = await self.share_state.initialize(state)
            except Exception:  # logged; a later heartbeat asks again
                log.warning("initializing %s failed", state, exc_info=True)
                failed = dict.fromkeys(state.partitions, errors.UnknownServerError.code)
            failures.update(((state.topic, p), code) for p, code in failed.items())
            try:
                shard = self._coordinator.shard_for(state.group_id)
            except errors.KafkaError:
                continue  # moved away: the new coordinator asks again
            done = [p for p in state.partitions if p not in failed]
            share.initialized(shard, state.group_id, state.topic, done, sorted(failed))
            self._coordinator.flush(shard)
        return failures

    async def describe_offsets(
        self, group_id: str, wanted: list[tuple[str, list[int]]] | None
    ) -> list[DescribeShareGroupOffsetsResponseTopic]:
        """Each partition's start offset, leader epoch and lag (what is left to deliver:
        the high watermark less the start offset and the records done with beyond it), as
        the share coordinator and the partition leaders tell them; `wanted` None: every
        initialized partition. As Kafka, the group need not exist: a partition without state
        answers start offset -1."""
        if wanted is None:
            shard = self._coordinator.shard_for(group_id)
            wanted = list(share_offsets.initialized_partitions(shard, group_id).items())
            wanted = [(t, ps) for t, ps in wanted if self._coordinator.topics.id_of(t) is not None]
        unknown: list[DescribeShareGroupOffsetsResponseTopic] = []
        described: list[tuple[str, bytes, list[int], dict[int, share.Summary]]] = []
        for name, partitions in wanted:
            topic_id = self._coordinator.topics.id_of(name)
            if topic_id is None:
                unknown.append(
                    {
                        "topic_name": name,
                        "topic_id": ZERO_UUID,
                        "partitions": [_no_offset(p) for p in partitions],
                    }
                )
                continue
            summaries = await self.share_state.summary(group_id, topic_id, partitions)
            described.append((name, topic_id, partitions, summaries))
        lagging = [
            (name, p)
            for name, _, partitions, summaries in described
            for p in partitions
            if (s := summaries.get(p)) is not None
            and not s.error_code
            and s.start_offset >= 0
            and s.delivery_complete_count >= 0
        ]
        ends = await self.end_offsets(lagging) if lagging else {}
        out: list[DescribeShareGroupOffsetsResponseTopic] = []
        for name, topic_id, partitions, summaries in described:
            rows: list[DescribeShareGroupOffsetsResponsePartition] = []
            for p in partitions:
                found = summaries.get(p)
                if found is None or found.error_code or found.start_offset < 0:
                    rows.append(_no_offset(p))  # as Kafka: a share coordinator's error is hidden
                    continue
                row = _no_offset(p)
                row["start_offset"] = found.start_offset
                row["leader_epoch"] = found.leader_epoch
                end = ends.get((name, p))
                if isinstance(end, int):
                    lag = end - found.start_offset - found.delivery_complete_count
                    row["lag"] = max(lag, 0)
                elif end is not None:
                    # As Kafka: the leader's error, without the share coordinator's answer.
                    row = _no_offset(p)
                    row["start_offset"] = row["leader_epoch"] = 0
                    row["error_code"], row["error_message"] = end
                rows.append(row)
            out.append({"topic_name": name, "topic_id": topic_id, "partitions": rows})
        return out + unknown

    async def alter_offsets(
        self, group_id: str, offsets: dict[str, dict[int, int]]
    ) -> dict[str, dict[int, int]]:
        """Start offsets for an empty share group (made if none): each partition's error code.
        Raises GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP or the coordinator's errors."""
        topics = self._coordinator.topics
        states: list[share.InitializeState] = []

        def operation(
            shard: GroupShard, reply: Callable[[dict[str, dict[int, int]]], None]
        ) -> None:
            codes, to_initialize = share_offsets.alter_offsets(
                shard, group_id, offsets, topics, now_ms()
            )
            states.extend(to_initialize)
            shard.when_written(lambda error: reply({} if error else codes))

        codes = await self._coordinator.run(group_id, operation)
        if not codes and offsets:
            raise errors.CoordinatorNotAvailableError()
        for (topic, p), code in (await self._initialize(states)).items():
            codes[topic][p] = code
        return codes

    async def delete_offsets(
        self, group_id: str, names: list[str]
    ) -> list[tuple[str, bytes, int, str | None]]:
        """The share-partitions' state of these topics goes, for an empty share group: each
        topic's (name, id, error code, message). Raises GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP
        or the coordinator's errors."""
        topics = self._coordinator.topics
        begun: list[Any] = []

        def operation(shard: GroupShard, reply: Callable[[int], None]) -> None:
            begun.append(
                share_offsets.begin_delete_offsets(shard, group_id, names, topics, now_ms())
            )
            shard.when_written(reply)

        error = await self._coordinator.run(group_id, operation)
        if error:
            raise errors.for_code(error)()
        refused, to_delete = begun[0]
        out: list[tuple[str, bytes, int, str | None]] = []
        deleted = []
        for name, (topic_id, partitions) in to_delete.items():
            failed = await self.share_state.delete(group_id, topic_id, partitions)
            if failed:
                code = next(iter(failed.values()))
                out.append((name, topic_id, code, errors.for_code(code)().message))
            else:
                deleted.append(name)
                out.insert(0, (name, topic_id, 0, None))
        if deleted:

            def finish(shard: GroupShard, reply: Callable[[int], None]) -> None:
                share_offsets.end_delete_offsets(shard, group_id, deleted)
                shard.when_written(reply)

            await self._coordinator.run(group_id, finish)
        out.extend((name, ZERO_UUID, code, message) for name, (code, message) in refused.items())
        return out

    def describe(self, group_id: str) -> ShareGroupDescribeResponseDescribedGroup:
        group = self._coordinator.shard_for(group_id).group(group_id)
        return descriptions.describe_share_group(group, group_id, self._coordinator.topics)

    async def _delete_state(self, group_id: str, state: dict[str, set[int]]) -> None:
        for topic, partitions in state.items():
            topic_id = self._coordinator.topics.id_of(topic)
            if topic_id is None:
                continue  # the topic is gone, and its share-partitions with it
            try:
                failed = await self.share_state.delete(group_id, topic_id, sorted(partitions))
            except Exception:  # logged; the state stays behind
                log.warning(
                    "deleting %s's share state of %s failed", group_id, topic, exc_info=True
                )
                continue
            if failed:
                log.warning(
                    "%s's share state of %s-%s was not deleted", group_id, topic, sorted(failed)
                )
