"""The streams groups of the group coordinator (KIP-1071): what its service does for them beyond
one shard's state machine (`streams`): answering heartbeats once their changes are in the log,
and creating the internal topics (repartition and changelog topics) a topology lacks, as Kafka's
AutoTopicCreationManager does for them: in the background, one creation at a time per topic,
each failure remembered for a while and told to the members in their heartbeat status."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.api import TopicSpec
from ferrolog.controller.coordinator.group import descriptions, protocols
from ferrolog.controller.coordinator.group.consumer_state import Topics
from ferrolog.controller.coordinator.group.shard import GroupShard
from ferrolog.controller.coordinator.group.streams_messages import (
    MayCreate,
    StreamsHeartbeatCall,
    error_response,
    validate,
)
from ferrolog.controller.coordinator.group.streams_topology import (
    MISSING_INTERNAL_TOPICS,
    InternalTopic,
    summarize,
)
from ferrolog.protocol.messages import (
    StreamsGroupDescribeResponseDescribedGroup,
    StreamsGroupHeartbeatResponse,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

# Creates topics; each outcome is the created topic or the KafkaError that refused it.
CreateTopics = Callable[[Sequence[TopicSpec]], Awaitable[Sequence[object]]]


async def _cannot_create(specs: Sequence[TopicSpec]) -> Sequence[object]:
    return [errors.CoordinatorNotAvailableError("no controller") for _ in specs]


class Shards(Protocol):
    """What of the group coordinator the streams groups use."""

    topics: Topics

    def shard_for(self, group_id: str) -> GroupShard: ...

    async def run(
        self, group_id: str, operation: Callable[[GroupShard, Callable[[T], None]], None]
    ) -> T: ...


class StreamsGroups:
    def __init__(self, coordinator: Shards) -> None:
        self._coordinator = coordinator
        # How topics are created (the controller, set by the broker).
        self.create_topics: CreateTopics = _cannot_create
        self._creating: set[str] = set()
        # Topic -> (why its creation failed, until when that is told).
        self._failed: dict[str, tuple[str, int]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    async def heartbeat(
        self, request: StreamsHeartbeatCall, client_host: str, may_create: MayCreate
    ) -> StreamsGroupHeartbeatResponse:
        """A StreamsGroupHeartbeat; `may_create(names)`: whether the caller may create the
        internal topics its group lacks (CREATE on the cluster or on each of them)."""
        topics = self._coordinator.topics
        invalid = validate(request)
        if invalid is not None:
            return error_response(*invalid)
        to_create: list[InternalTopic] = []

        def operation(
            shard: GroupShard, reply: Callable[[StreamsGroupHeartbeatResponse], None]
        ) -> None:
            try:
                outcome = protocols.streams_heartbeat(shard, request, now_ms(), topics, client_host)
            except errors.KafkaError as exc:
                reply(error_response(exc.code, exc.message))
                return
            to_create.extend(outcome.to_create)
            shard.when_written(
                lambda error: reply(error_response(error) if error else outcome.response)
            )

        response = await self._coordinator.run(request["group_id"], operation)
        if to_create and not response["error_code"]:
            allowed = may_create([t.name for t in to_create])
            self._report(response, to_create, allowed)
            if allowed:
                self._create(to_create, request)
        return response

    def _report(
        self, response: StreamsGroupHeartbeatResponse, topics: list[InternalTopic], allowed: bool
    ) -> None:
        """Adds to the MISSING_INTERNAL_TOPICS status why the topics are not there yet, as
        Kafka's KafkaApis does."""
        now = now_ms()
        if allowed:
            failed = [
                f"{t.name} ({why})"
                for t in topics
                if (entry := self._failed.get(t.name)) and (why := entry[0]) and entry[1] > now
            ]
            if not failed:
                return
            extra = "; Creation failed: " + ", ".join(failed[:3])
            if len(failed) > 3:
                extra += f" and {len(failed) - 3} more."
            else:
                extra += "."
        else:
            extra = "; Unauthorized to CREATE on topics " + summarize(t.name for t in topics) + "."
        for status in response["status"] or []:
            if status["status_code"] == MISSING_INTERNAL_TOPICS:
                status["status_detail"] += extra

    def _create(self, topics: list[InternalTopic], request: StreamsHeartbeatCall) -> None:
        now = now_ms()
        wanted = [
            t
            for t in topics
            if t.name not in self._creating and self._failed.get(t.name, ("", 0))[1] <= now
        ]
        if not wanted:
            return
        self._creating.update(t.name for t in wanted)
        # As Kafka: a failure is remembered for two heartbeat intervals.
        remember_ms = 2 * self._coordinator.shard_for(request["group_id"]).settings.streams(
            request["group_id"], "heartbeat.interval.ms"
        )
        task = asyncio.ensure_future(self._create_now(wanted, remember_ms))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _create_now(self, topics: list[InternalTopic], remember_ms: int) -> None:
        specs = [
            TopicSpec(t.name, t.partitions, t.replication_factor, None, dict(t.configs))
            for t in topics
        ]
        # One creation per topic: Kafka sends them as one CreateTopics, whose batch a topology
        # on a few thousand partitions takes over the controller's 10,000-record limit
        # (POLICY_VIOLATION); each alone fits.
        created = await asyncio.gather(
            *(self.create_topics([spec]) for spec in specs), return_exceptions=True
        )
        self._creating.difference_update(t.name for t in topics)
        outcomes = [c if isinstance(c, BaseException) else c[0] for c in created]
        until = now_ms() + remember_ms
        for topic, outcome in zip(topics, outcomes, strict=True):
            if isinstance(outcome, errors.TopicAlreadyExistsError):
                continue
            if isinstance(outcome, BaseException):
                self._failed[topic.name] = (str(outcome), until)
                log.info("internal topic %s not created: %s", topic.name, outcome)
            else:
                log.info("created internal topic %s for a streams group", topic.name)

    def describe(
        self, group_id: str, with_description: bool
    ) -> StreamsGroupDescribeResponseDescribedGroup:
        group = self._coordinator.shard_for(group_id).group(group_id)
        return descriptions.describe_streams_group(group, group_id, with_description)
