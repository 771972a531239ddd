"""The metadata store interface. `LocalStore` (single node) and a ZooKeeper store implement it;
the controller's logic is the same over either. (Interface fixed; implementations pending.)"""

from __future__ import annotations

import abc
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from ..acl.model import AclChanges, AclTable
from ..tokens.model import TokenInfo
from .entities import EntityChanges, EntityConfigs, EntityType


class TopicExistsError(Exception):
    """A topic with that name already exists."""


class BadVersionError(Exception):
    """A compare-and-set lost: the stored version is not the expected one."""


@dataclass(frozen=True)
class TopicRecord:
    name: str
    topic_id: bytes  # 16 random bytes, persisted: reported in Metadata and partition.metadata
    assignment: dict[int, list[int]]  # partition -> replica broker ids, preferred leader first
    configs: dict[str, str] = field(default_factory=dict)  # topic-level overrides only


@dataclass(frozen=True)
class PartitionState:
    leader: int  # -1: no leader (offline)
    leader_epoch: int
    isr: list[int]
    controller_epoch: int = 0
    version: int = 0  # bumped on every write; compare-and-set token
    # KIP-966: replicas that held every committed record when the ISR shrank below
    # min.insync.replicas, and the last leader once the ISR is empty (`election.with_isr`).
    elr: list[int] = field(default_factory=list)
    last_known_elr: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class FinalizedFeatures:
    """The cluster-wide finalized feature levels (KIP-584), each >= 1 (a feature at level 0 is
    not finalized and not listed), and their epoch: it grows with every write (in ZooKeeper the
    `/feature` znode's version, as in Kafka); -1 while nothing was ever written."""

    levels: Mapping[str, int] = field(default_factory=dict)
    epoch: int = -1


@dataclass(frozen=True)
class Endpoint:
    """One advertised listener of a broker: Kafka's `EndPoint`."""

    listener_name: str
    host: str
    port: int
    security_protocol: str

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.listener_name}://{host}:{self.port}"


@dataclass(frozen=True)
class BrokerRegistration:
    """A live broker. `host` and `port` are the endpoint brokers reach it through (the
    inter-broker listener's); `endpoints` are all its advertised listeners (empty: only
    that one, as PLAINTEXT)."""

    node_id: int
    host: str
    port: int
    rack: str | None = None
    endpoints: tuple[Endpoint, ...] = ()
    # Its log directories were not shut down cleanly before this start (KIP-966: it may have
    # lost what it acknowledged, so it is no eligible leader replica).
    unclean_shutdown: bool = False

    def endpoint(self, listener_name: str) -> Endpoint | None:
        """The broker's endpoint on listener `listener_name`, None if it has none there (Kafka
        leaves such a broker out of the Metadata of a client of that listener)."""
        if not self.endpoints:
            if listener_name.upper() in ("PLAINTEXT", ""):
                return Endpoint("PLAINTEXT", self.host, self.port, "PLAINTEXT")
            return None
        for endpoint in self.endpoints:
            if endpoint.listener_name == listener_name.upper():
                return endpoint
        return None

    def address_on(self, listener_name: str) -> tuple[str, int]:
        """Where another broker reaches this one over the inter-broker listener
        `listener_name`: that endpoint, else (a registration without it) `host` and `port`."""
        endpoint = self.endpoint(listener_name)
        return (self.host, self.port) if endpoint is None else (endpoint.host, endpoint.port)


class MetadataStore(abc.ABC):
    """Cluster metadata. Calls are coarse and rare; all are async because the ZooKeeper store
    does I/O."""

    @abc.abstractmethod
    async def start(self) -> None: ...

    @abc.abstractmethod
    async def close(self) -> None: ...

    @abc.abstractmethod
    async def cluster_id(self) -> str:
        """A persistent cluster id (22-character base64url of 16 random bytes), created once."""

    @abc.abstractmethod
    async def topics(self) -> dict[str, TopicRecord]: ...

    @abc.abstractmethod
    async def create_topic(self, topic: TopicRecord, states: dict[int, PartitionState]) -> None:
        """Raises TopicExistsError."""

    @abc.abstractmethod
    async def delete_topic(self, name: str) -> None: ...

    @abc.abstractmethod
    async def add_partitions(
        self, name: str, assignment: dict[int, list[int]], states: dict[int, PartitionState]
    ) -> None:
        """Adds partitions (their assignment and initial state) to an existing topic."""

    @abc.abstractmethod
    async def partition_states(self, name: str) -> dict[int, PartitionState]: ...

    @abc.abstractmethod
    async def update_partition_state(
        self, name: str, partition: int, state: PartitionState, expected_version: int
    ) -> PartitionState:
        """Compare-and-set: writes `state` if the stored version is `expected_version`;
        returns it with the new version. Raises BadVersionError."""

    @abc.abstractmethod
    async def register_broker(self, registration: BrokerRegistration) -> None: ...

    @abc.abstractmethod
    async def brokers(self) -> dict[int, BrokerRegistration]: ...

    @abc.abstractmethod
    async def allocate_producer_ids(self, count: int) -> int:
        """Reserves `count` producer ids and returns the first; never hands out one twice,
        across restarts and brokers."""

    @abc.abstractmethod
    async def entity_configs(
        self, entity_type: EntityType, names: Collection[str] | None = None
    ) -> EntityConfigs:
        """The configs of the entities `names` of `entity_type` (None: every one stored);
        an entity with none reads as an empty map. A topic's configs are its overrides, also
        in its `TopicRecord`."""

    @abc.abstractmethod
    async def alter_entity_configs(self, entity_type: EntityType, changes: EntityChanges) -> None:
        """Sets or removes each named key of each entity in `changes`, leaving its other keys
        as they are (concurrent writers of other keys are not lost), and lets every broker
        know. A topic's entity is written only for a topic that exists."""

    @abc.abstractmethod
    async def acls(self) -> AclTable:
        """Every ACL: the entries of each resource pattern that has any."""

    @abc.abstractmethod
    async def alter_acls(self, additions: AclChanges, removals: AclChanges) -> AclTable:
        """Adds and removes entries of each resource pattern named (read, change, write:
        concurrent writers are not lost), lets every broker know, and returns the stored
        entries of those patterns now (empty: none left)."""

    @abc.abstractmethod
    async def delegation_tokens(self) -> dict[str, TokenInfo]:
        """Every delegation token, by id (expired ones too, until they are removed)."""

    @abc.abstractmethod
    async def alter_delegation_token(self, token_id: str, token: TokenInfo | None) -> None:
        """Creates or replaces (None: removes) a delegation token, and lets every broker
        know."""

    @abc.abstractmethod
    async def finalized_features(self) -> FinalizedFeatures: ...

    @abc.abstractmethod
    async def update_finalized_features(
        self, levels: Mapping[str, int], expected_epoch: int
    ) -> FinalizedFeatures:
        """Compare-and-set: replaces the finalized features by `levels` if their epoch is
        still `expected_epoch`; returns them with the new epoch. Raises BadVersionError (and,
        in a cluster, ControllerFencedError unless this broker is the controller)."""
