"""The controller as request handlers see it: the one interface through which they reach the
cluster (`ctx.broker.controller`).

Handlers translate: they turn a request into calls on `ControllerApi` and its results (or the
`KafkaError`s it raises or returns) into a response. Every decision about topics, partitions,
leaders, replicas and producer ids is made behind this interface, over whichever metadata store
the broker runs with (`LocalStore` on a single node, ZooKeeper in a cluster); handlers never
see the store. The names re-exported here (records, the topic-name rules, the election types)
are what a handler needs to read the answers, so that this module is all they import from the
cluster side.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ferrolog.controller.acl.manager import AclControlManager
from ferrolog.controller.acl.model import (
    CLUSTER_NAME,
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from ferrolog.controller.broker_configs import DynamicBrokerConfigManager
from ferrolog.controller.cluster.election import ElectionType
from ferrolog.controller.cluster.topics import (
    CONSUMER_OFFSETS,
    SHARE_GROUP_STATE,
    TRANSACTION_STATE,
    is_internal,
    validate_topic_name,
)
from ferrolog.controller.features import FeatureUpdate, UpgradeType
from ferrolog.controller.group_configs import GroupConfigManager
from ferrolog.controller.quota.manager import ClientQuotaControlManager
from ferrolog.controller.scram.manager import ScramControlManager
from ferrolog.controller.scram.model import Deletion, Upsertion
from ferrolog.controller.store.base import (
    BrokerRegistration,
    FinalizedFeatures,
    PartitionState,
    TopicRecord,
)
from ferrolog.controller.store.view import TopicPartition
from ferrolog.controller.tokens.manager import DelegationTokenManager
from ferrolog.controller.tokens.model import TokenInfo
from ferrolog.errors import KafkaError

__all__ = [
    "CLUSTER_NAME",
    "CONSUMER_OFFSETS",
    "SHARE_GROUP_STATE",
    "TRANSACTION_STATE",
    "AccessControlEntry",
    "AclBinding",
    "AclBindingFilter",
    "AclControlManager",
    "AclOperation",
    "AclPermissionType",
    "BrokerRegistration",
    "ClientQuotaControlManager",
    "ConfigChange",
    "ControllerApi",
    "DelegationTokenManager",
    "Deletion",
    "DynamicBrokerConfigManager",
    "ElectionType",
    "FeatureUpdate",
    "FinalizedFeatures",
    "PartitionResults",
    "PartitionState",
    "PatternType",
    "ReassignmentStatus",
    "ResourcePattern",
    "ResourceType",
    "ScramControlManager",
    "TokenInfo",
    "TopicPartition",
    "TopicRecord",
    "TopicSpec",
    "UpgradeType",
    "Upsertion",
    "is_internal",
    "validate_topic_name",
]

# Per partition: None for success, else the error that answers it.
PartitionResults = dict[TopicPartition, KafkaError | None]
# Maps a topic's current config overrides to the new ones (raising KafkaError to refuse).
ConfigChange = Callable[[dict[str, str]], Mapping[str, str]]


@dataclass(frozen=True)
class TopicSpec:
    """One topic of a CreateTopics request: -1 for num_partitions / replication_factor means
    the broker default; `assignment` (partition -> brokers) replaces both when given."""

    name: str
    num_partitions: int
    replication_factor: int
    assignment: dict[int, list[int]] | None
    configs: dict[str, str]


@dataclass(frozen=True)
class ReassignmentStatus:
    """A pending reassignment as ListPartitionReassignments reports it."""

    topic: str
    partition: int
    replicas: list[int]  # assigned now (during a move: the target plus the old replicas)
    adding: list[int]
    removing: list[int]


class ControllerApi(Protocol):
    """Reads answer from the controller's cache of the cluster metadata (no store I/O); admin
    operations are coroutines that raise `KafkaError`s for what a request gets wrong."""

    @property
    def client_quotas(self) -> ClientQuotaControlManager:
        """The client quotas: DescribeClientQuotas and AlterClientQuotas."""

    @property
    def scram_credentials(self) -> ScramControlManager:
        """The users' SCRAM credentials: DescribeUserScramCredentials and
        AlterUserScramCredentials."""

    @property
    def delegation_tokens(self) -> DelegationTokenManager:
        """The delegation tokens: CreateDelegationToken, RenewDelegationToken,
        ExpireDelegationToken, DescribeDelegationToken, and SCRAM's `tokenauth`."""

    @property
    def acls(self) -> AclControlManager:
        """The ACLs: DescribeAcls, CreateAcls and DeleteAcls."""

    @property
    def broker_configs(self) -> DynamicBrokerConfigManager:
        """This broker's dynamic configs and the cluster default: AlterConfigs and
        IncrementalAlterConfigs of BROKER resources."""

    @property
    def group_configs(self) -> GroupConfigManager:
        """The group configs: DescribeConfigs and IncrementalAlterConfigs of GROUP
        resources."""

    @property
    def controller_id(self) -> int:
        """The active controller's broker id (-1 while a cluster elects one)."""

    def finalized_features(self) -> FinalizedFeatures:
        """The cluster's finalized features and their epoch, as this broker last read them."""

    def subscribe_features(self, listener: Callable[[FinalizedFeatures], None]) -> None:
        """Calls `listener` with the finalized features now and whenever their levels
        change."""

    async def update_features(
        self, updates: Mapping[str, FeatureUpdate], validate_only: bool = False
    ) -> None:
        """UpdateFeatures: all of `updates` or none; raises InvalidUpdateVersionError for a
        refused one, NotControllerError on a broker that is not the active controller."""

    def topics(self) -> dict[str, TopicRecord]: ...

    def topic(self, name: str) -> TopicRecord | None: ...

    def topic_by_id(self, topic_id: bytes) -> TopicRecord | None: ...

    def partition_states(self, name: str) -> dict[int, PartitionState]: ...

    def brokers(self) -> dict[int, BrokerRegistration]:
        """The registered (live) brokers."""

    def offline_replicas(self, tp: TopicPartition) -> Collection[int]:
        """Brokers whose replica of `tp` is on an offline log directory."""

    async def create_topic(
        self,
        name: str,
        num_partitions: int,
        replication_factor: int,
        assignment: dict[int, list[int]] | None,
        configs: dict[str, str],
        validate_only: bool = False,
    ) -> TopicRecord:
        """-1 for a count means the broker default; raises TopicAlreadyExistsError,
        InvalidTopicError, InvalidPartitionsError, InvalidReplicationFactorError,
        InvalidReplicaAssignmentError, InvalidRequestError, InvalidConfigError."""

    async def create_topics(
        self,
        specs: Sequence[TopicSpec],
        validate_only: bool = False,
        admit: Callable[[int], None] | None = None,
    ) -> list[TopicRecord | KafkaError]:
        """CreateTopics as one batch: each topic validated alone (answered with its Kafka
        error), the valid ones written and opened together; each topic's outcome, in order.
        `admit(partitions)` is asked for each valid topic before it is written (the client's
        controller mutation quota, Kafka's `applyPartitionChangeQuota`); a KafkaError it
        raises fails that topic alone."""

    async def auto_create_topic(self, name: str) -> TopicRecord:
        """Creates `name` as auto-creation does (internal topics with their own settings,
        others with the broker defaults) unless it exists; returns it."""

    async def ensure_internal_topic(self, name: str) -> TopicRecord:
        """Creates the internal topic `name` with its settings unless it exists."""

    async def delete_topic(self, name: str) -> None:
        """Raises UnknownTopicOrPartitionError, TopicDeletionDisabledError, InvalidTopicError."""

    async def create_partitions(
        self,
        name: str,
        total_count: int,
        assignment: list[list[int]] | None,
        validate_only: bool = False,
    ) -> None:
        """Raises UnknownTopicOrPartitionError, InvalidPartitionsError,
        InvalidReplicaAssignmentError."""

    async def alter_topic_configs(
        self, name: str, change: ConfigChange, validate_only: bool = False
    ) -> None:
        """Applies `change` to the topic's overrides, atomically with respect to other config
        changes of this broker. Raises UnknownTopicOrPartitionError, InvalidConfigError and
        whatever `change` raises."""

    async def elect_leaders(
        self, kind: ElectionType, partitions: Collection[TopicPartition] | None, timeout_ms: int
    ) -> PartitionResults:
        """Preferred-leader or unclean elections (ElectLeaders), answered once the outcome is in
        the cluster metadata or `timeout_ms` has passed (REQUEST_TIMED_OUT). `None` asks for
        every partition, and then the answer leaves out those that need no election."""

    async def alter_partition_reassignments(
        self,
        targets: Mapping[TopicPartition, list[int] | None],
        allow_replication_factor_change: bool = True,
    ) -> PartitionResults:
        """Starts moving partitions to new replica lists (None cancels a pending move), each
        keeping its number of replicas unless `allow_replication_factor_change`. Answers once
        the move is accepted, not finished."""

    def list_partition_reassignments(
        self, partitions: Collection[TopicPartition] | None
    ) -> list[ReassignmentStatus]:
        """The pending reassignments (of `partitions`, or all), ordered by partition."""

    async def allocate_producer_id(self) -> int:
        """A producer id never handed out before, across restarts and brokers. Raises
        whatever the store raises when it cannot reserve one."""
