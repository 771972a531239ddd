"""The coordinators' service interfaces: what request handlers call on the group and the
transaction coordinator (`ctx.broker.group_coordinator`, `ctx.broker.txn_coordinator`), as they
call `ControllerApi` for the cluster, and the few coordinator types and answers a handler
needs. Handlers import this module of the coordinators and nothing else (tests/broker/
test_layers.py), so what a coordinator keeps inside (shards, the runtime, the membership state
machines) can change without them.

A request to a partition this broker does not lead, or still loads, raises NotCoordinatorError
or CoordinatorLoadInProgressError; the handler answers those as every other KafkaError."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

from ferrolog.controller.coordinator.group.consumer import HeartbeatCall
from ferrolog.controller.coordinator.group.consumer import (
    error_response as consumer_heartbeat_error,
)
from ferrolog.controller.coordinator.group.descriptions import (
    consumer_describe_error,
    describe_error,
    share_describe_error,
    streams_describe_error,
)
from ferrolog.controller.coordinator.group.membership import JoinCall
from ferrolog.controller.coordinator.group.responses import join_response, sync_response
from ferrolog.controller.coordinator.group.share import ShareHeartbeatCall, valid_member_id
from ferrolog.controller.coordinator.group.share import error_response as share_heartbeat_error
from ferrolog.controller.coordinator.group.streams_messages import (
    MayCreate,
    StreamsHeartbeatCall,
    topology_refusal,
    topology_topics,
)
from ferrolog.controller.coordinator.group.streams_messages import (
    error_response as streams_heartbeat_error,
)
from ferrolog.controller.coordinator.partitioning import partition_for
from ferrolog.controller.coordinator.share.coordinator import Outcome as ShareOutcome
from ferrolog.controller.coordinator.share.coordinator import (
    coordinator_key,
    parse_coordinator_key,
)
from ferrolog.controller.coordinator.share.records import SharePartitionKey
from ferrolog.controller.coordinator.share.state import ShareState, StateBatch
from ferrolog.controller.coordinator.txn.markers import Marker
from ferrolog.controller.coordinator.txn.state import TopicPartition, TxnMetadata, TxnState
from ferrolog.protocol.messages import (
    Api,
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

__all__ = [
    "GroupCoordinatorApi",
    "HeartbeatCall",
    "JoinCall",
    "Marker",
    "MayCreate",
    "ShareCoordinatorApi",
    "ShareHeartbeatCall",
    "ShareOutcome",
    "SharePartitionKey",
    "SharePersisterApi",
    "ShareState",
    "StateBatch",
    "StreamsHeartbeatCall",
    "TopicPartition",
    "TransactionCoordinatorApi",
    "TxnMetadata",
    "TxnState",
    "consumer_describe_error",
    "consumer_heartbeat_error",
    "coordinator_key",
    "describe_error",
    "join_response",
    "parse_coordinator_key",
    "partition_for",
    "share_describe_error",
    "share_heartbeat_error",
    "streams_describe_error",
    "streams_heartbeat_error",
    "sync_response",
    "topology_refusal",
    "topology_topics",
    "valid_member_id",
]


class GroupCoordinatorApi(Protocol):
    """Kafka's group APIs, classic (JoinGroup ... DescribeGroups), KIP-848 (Consumer-
    GroupHeartbeat, ConsumerGroupDescribe) and KIP-932 (ShareGroupHeartbeat, ShareGroup-
    Describe); which protocol a group speaks is the coordinator's business. Each is
    answered once what it changed is in `__consumer_offsets`."""

    async def join_group(self, request: JoinCall, client_host: str) -> JoinGroupResponse: ...

    async def sync_group(self, request: SyncGroupRequest) -> SyncGroupResponse: ...

    async def heartbeat(self, request: HeartbeatRequest) -> int:
        """The heartbeat's error code."""
        ...

    async def leave_group(
        self, group_id: str, leaving: list[tuple[str, str | None]]
    ) -> tuple[int, list[int]]:
        """(the group's error code, each (member id, instance id) leaving's error code)."""
        ...

    async def commit_offsets(
        self, request: OffsetCommitRequest, exists: Callable[[str, int], bool], version: int
    ) -> OffsetCommitResponse: ...

    async def commit_txn_offsets(
        self, request: TxnOffsetCommitRequest, exists: Callable[[str, int], bool]
    ) -> TxnOffsetCommitResponse: ...

    def fetch_offsets(
        self,
        group_id: str,
        topics: Sequence[OffsetFetchRequestTopic] | None,
        require_stable: bool,
        member: tuple[str | None, int],
    ) -> tuple[int, list[OffsetFetchResponseTopics]]: ...

    async def delete_offsets(
        self, group_id: str, topics: list[OffsetDeleteRequestTopic]
    ) -> OffsetDeleteResponse: ...

    async def delete_group(self, group_id: str) -> int: ...

    def describe_group(self, group_id: str) -> DescribeGroupsResponseDescribedGroup: ...

    def list_groups(self) -> tuple[list[ListGroupsResponseListedGroup], bool]: ...

    def validate_consumer_heartbeat(self, request: HeartbeatCall) -> tuple[int, str] | None: ...

    async def consumer_group_heartbeat(
        self, request: HeartbeatCall, client_host: str
    ) -> ConsumerGroupHeartbeatResponse: ...

    def describe_consumer_group(
        self, group_id: str
    ) -> ConsumerGroupDescribeResponseDescribedGroup: ...

    async def share_group_heartbeat(
        self, request: ShareHeartbeatCall, client_host: str
    ) -> ShareGroupHeartbeatResponse:
        """Answered once the heartbeat's changes are written; partitions whose share state
        is still to be created come in a later heartbeat."""
        ...

    def describe_share_group(self, group_id: str) -> ShareGroupDescribeResponseDescribedGroup: ...

    async def describe_share_group_offsets(
        self, group_id: str, wanted: list[tuple[str, list[int]]] | None
    ) -> list[DescribeShareGroupOffsetsResponseTopic]:
        """Start offsets, leader epochs and lags of the partitions `wanted` (None: all the
        group's initialized ones)."""
        ...

    async def alter_share_group_offsets(
        self, group_id: str, offsets: dict[str, dict[int, int]]
    ) -> dict[str, dict[int, int]]:
        """Each partition's error code; raises GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, ..."""
        ...

    async def delete_share_group_offsets(
        self, group_id: str, names: list[str]
    ) -> list[tuple[str, bytes, int, str | None]]:
        """Each topic's (name, id, error code, message); raises GROUP_ID_NOT_FOUND, ..."""
        ...

    async def streams_group_heartbeat(
        self, request: StreamsHeartbeatCall, client_host: str, may_create: MayCreate
    ) -> StreamsGroupHeartbeatResponse:
        """Answered once the heartbeat's changes are written; the internal topics the group
        lacks are created in the background when `may_create(names)` (the caller may CREATE
        them)."""
        ...

    def describe_streams_group(
        self, group_id: str, with_description: bool
    ) -> StreamsGroupDescribeResponseDescribedGroup: ...


class ShareCoordinatorApi(Protocol):
    """Kafka's share-state APIs (InitializeShareGroupState ... ReadShareGroupStateSummary),
    one share-partition (group, topic id, partition) at a time; each answers with an
    `Outcome` (error code, message) once what it wrote is committed."""

    async def initialize(
        self, key: SharePartitionKey, state_epoch: int, start_offset: int
    ) -> ShareOutcome: ...

    async def read(
        self, key: SharePartitionKey, leader_epoch: int
    ) -> tuple[ShareOutcome, ShareState | None]: ...

    async def write(
        self,
        key: SharePartitionKey,
        state_epoch: int,
        leader_epoch: int,
        start_offset: int,
        delivery_complete_count: int,
        batches: list[StateBatch],
    ) -> ShareOutcome: ...

    async def delete(self, key: SharePartitionKey) -> ShareOutcome: ...

    async def summary(self, key: SharePartitionKey) -> tuple[ShareOutcome, ShareState | None]: ...


class SharePersisterApi(Protocol):
    """Reaches the share coordinator of each share-partition, here or on another broker."""

    async def route(
        self,
        group_id: str,
        topic_id: bytes,
        partitions: Sequence[int],
        local: Callable[[int], Awaitable[dict[str, Any]]],
        entry: Callable[[int], dict[str, Any]],
        api: Api[Any, Any],
        version: int,
    ) -> dict[int, dict[str, Any]]:
        """Each partition's answer: `local(p)` where this broker coordinates it, else from a
        request (each partition as `entry(p)`) to the broker that does."""
        ...


class TransactionCoordinatorApi(Protocol):
    """Kafka's transaction APIs; each returns the Kafka error code its client is answered."""

    async def init_producer_id(
        self, transactional_id: str, timeout_ms: int, producer_id: int, epoch: int
    ) -> tuple[int, int, int]:
        """(error code, producer id, epoch)."""
        ...

    async def add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        epoch: int,
        partitions: Iterable[TopicPartition],
        client_version: int = 0,
    ) -> int: ...

    async def verify(
        self,
        transactional_id: str,
        producer_id: int,
        epoch: int,
        partitions: list[TopicPartition],
        forward: bool,
    ) -> dict[TopicPartition, int]: ...

    async def add_for_producer(
        self,
        transactional_id: str,
        producer_id: int,
        epoch: int,
        partitions: list[TopicPartition],
        forward: bool,
    ) -> dict[TopicPartition, int]: ...

    async def end_txn(
        self, transactional_id: str, producer_id: int, epoch: int, commit: bool
    ) -> int: ...

    async def end_txn_v2(
        self, transactional_id: str, producer_id: int, epoch: int, commit: bool
    ) -> tuple[int, int, int]: ...

    def describe(self, transactional_id: str) -> TxnMetadata | None: ...

    def transactions(self) -> Iterable[TxnMetadata]: ...

    def loading(self) -> bool: ...
