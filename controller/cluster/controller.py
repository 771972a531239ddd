"""The controller: the one place that decides topic layout, partition leadership, replica
moves and producer ids. Request handlers reach it through `ferrolog.controller.api.ControllerApi`
(which this class implements) and never see the store.

This class is the single-node controller: it validates, writes the store (`LocalStore`), and
applies the result to the local native core through the `ReplicaManager`. In cluster mode its
subclass `ZkController` does the same topic writes, while leadership and replica moves are
decided by the active controller (`ActiveController`) from requests it finds in ZooKeeper.
Either way the eligibility rules are those of the pure `election` module. Errors are
`ferrolog.errors.KafkaError` subclasses carrying Kafka's code and a message.

It keeps a cache of topics and partition states, updated on each of its own writes, so
Metadata requests are answered without touching the store."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ferrolog.controller.api import ConfigChange, PartitionResults, TopicPartition, TopicSpec
from ferrolog.controller.cluster import election, reassignment
from ferrolog.controller.cluster.election import ElectionType
from ferrolog.controller.cluster.topics import (
    EXCESSIVE_OPERATION,
    MAX_RECORDS_PER_OPERATION,
    internal_topic_spec,
    is_internal,
    plan,
    plan_partitions,
    records_of,
)
from ferrolog.controller.store.base import (
    BrokerRegistration,
    FinalizedFeatures,
    MetadataStore,
    PartitionState,
    TopicExistsError,
    TopicRecord,
)
from ferrolog.controller.store.entities import EntityType, key_changes
from ferrolog.errors import (
    ElectionNotNeededError,
    InvalidReplicaAssignmentError,
    InvalidTopicError,
    KafkaError,
    PolicyViolationError,
    TopicAlreadyExistsError,
    TopicDeletionDisabledError,
    UnknownTopicOrPartitionError,
)

from ..acl.manager import AclControlManager, AclSink

# Relative, so the type checker resolves the base class (it sees this folder as `controller`,
# not as `ferrolog.controller`).
from ..broker_configs import DynamicBrokerConfigManager
from ..entity_manager import EntityConfigManager
from ..features import FeatureControlManager, FeatureUpdate
from ..group_configs import GroupConfigManager
from ..producer_ids import ProducerIdAllocator
from ..quota.manager import ClientQuotaControlManager, QuotaSink
from ..scram.manager import ScramControlManager
from ..tokens.manager import DelegationTokenManager
from .cache import MetadataCache

if TYPE_CHECKING:
    from ferrolog.config import BrokerConfig
    from ferrolog.controller.cluster.replica_manager import ReplicaManager

log = logging.getLogger(__name__)


class Controller(MetadataCache):
    # The managers of ControllerApi, each the one place of its entities.
    client_quotas: ClientQuotaControlManager
    acls: AclControlManager
    scram_credentials: ScramControlManager
    delegation_tokens: DelegationTokenManager
    broker_configs: DynamicBrokerConfigManager
    group_configs: GroupConfigManager

    def __init__(
        self,
        store: MetadataStore,
        config: BrokerConfig,
        replicas: ReplicaManager | None = None,
        rng: random.Random | None = None,
        quota_sink: QuotaSink | None = None,
        acl_sink: AclSink | None = None,
    ) -> None:
        super().__init__(config.node_id)
        self.store = store
        self.client_quotas = ClientQuotaControlManager(store, quota_sink)
        self.acls = AclControlManager(store, acl_sink)
        self.scram_credentials = ScramControlManager(store)
        self.delegation_tokens = DelegationTokenManager(store, config)
        self.broker_configs = DynamicBrokerConfigManager(store, config)
        self.group_configs = GroupConfigManager(store, config)
        self.config = config
        self._replicas = replicas
        if replicas is not None:
            local = replicas
            self.broker_configs.subscribe(
                lambda changed: local.apply_broker_defaults(self._topics.values(), changed)
            )
        self._rng = rng or random.Random()
        # One admin operation at a time: two CreateTopics for one name must not both pass the
        # existence check.
        self._lock = asyncio.Lock()
        self._producer_ids = ProducerIdAllocator(store)
        self._loading: asyncio.Future[None] | None = None
        # The last layout queued for the local replicas (see `_apply_in_order`).
        self._applied: asyncio.Future[None] | None = None
        self._feature_control = FeatureControlManager(
            store, config.node_id, config.get_bool("unstable.feature.versions.enable")
        )

    def entity_managers(self) -> list[EntityConfigManager[Any, Any]]:
        """The managers of config entities, in the order they load and take changes."""
        return [self.client_quotas, self.scram_credentials, self.broker_configs, self.group_configs]

    async def start(self, registration: BrokerRegistration) -> None:
        """Registers this broker, then begins a new leadership term for every partition it
        leads and opens its local replicas."""
        await self.store.register_broker(registration)
        self._set_brokers(await self.store.brokers())
        await self.delegation_tokens.load()
        await self.acls.load()
        # Before the local replicas open, so they open with the dynamic topic defaults.
        for manager in self.entity_managers():
            await manager.load()
        await self._feature_control.load()
        topics = await self.store.topics()
        states = {name: await self.store.partition_states(name) for name in topics}
        # Issued together so the store writes them in one go, not one fsync per partition.
        assignments = {name: topic.assignment for name, topic in topics.items()}
        terms = election.restart_terms(assignments, states, self.node_id)
        written = await asyncio.gather(
            *(
                self.store.update_partition_state(name, partition, bumped, state.version)
                for name, partition, state, bumped in terms
            )
        )
        for (name, partition, _, _), state in zip(terms, written, strict=True):
            states[name][partition] = state
        self._topics = dict(topics)
        self._states = states
        # The local replicas load in the background: Metadata and every other request are
        # answered meanwhile, and each partition is served as soon as its log is open.
        layouts = [(topic, states[name]) for name, topic in sorted(topics.items())]
        self._loading = self._apply_in_order(layouts)
        log.info("controller started node_id=%d topics=%d", self.node_id, len(topics))

    def finalized_features(self) -> FinalizedFeatures:
        return self._feature_control.finalized

    def subscribe_features(self, listener: Callable[[FinalizedFeatures], None]) -> None:
        self._feature_control.subscribe(listener)

    async def update_features(
        self, updates: Mapping[str, FeatureUpdate], validate_only: bool = False
    ) -> None:
        """UpdateFeatures (`FeatureControlManager.update`)."""
        await self._feature_control.update(updates, validate_only)

    async def loaded(self) -> None:
        """Returns once the local replicas found at start, and those of every topic created
        since, are open and serving; raises what opening those found at start raised."""
        if self._loading is not None:
            await self._loading
        await self._settled()

    # Admin operations

    async def create_topic(
        self,
        name: str,
        num_partitions: int,
        replication_factor: int,
        assignment: dict[int, list[int]] | None,
        configs: dict[str, str],
        validate_only: bool = False,
    ) -> TopicRecord:
        """-1 for num_partitions / replication_factor means the broker default
        (`num.partitions`, `default.replication.factor`). Raises TopicAlreadyExistsError,
        InvalidTopicError, InvalidPartitionsError, InvalidReplicationFactorError,
        InvalidReplicaAssignmentError, InvalidConfigError."""
        spec = TopicSpec(name, num_partitions, replication_factor, assignment, configs)
        [outcome] = await self.create_topics([spec], validate_only)
        if isinstance(outcome, KafkaError):
            raise outcome
        return outcome

    async def create_topics(
        self,
        specs: Sequence[TopicSpec],
        validate_only: bool = False,
        admit: Callable[[int], None] | None = None,
    ) -> list[TopicRecord | KafkaError]:
        """Creates several topics as one batch: each is validated on its own (an invalid one
        fails alone, with its Kafka error), the valid ones go to the store together (one
        metadata write where the store allows). Returns each topic's record or error, in order,
        once the metadata is written: as a Kafka broker does after its controller commits, the
        local replicas then open in the background (one native command), each partition
        served as soon as its log is open; until then a client is told to retry."""
        if sum(records_of(spec, self.config) for spec in specs) > MAX_RECORDS_PER_OPERATION:
            return [PolicyViolationError(EXCESSIVE_OPERATION) for _ in specs]
        async with self._lock:
            outcomes: list[TopicRecord | KafkaError] = []
            for spec in specs:
                try:
                    planned_topic = await self._plan_topic(spec)
                    # As Kafka, only a topic that would be created counts against the quota.
                    if admit is not None and not validate_only:
                        admit(len(planned_topic.assignment))
                    outcomes.append(planned_topic)
                except KafkaError as exc:
                    outcomes.append(exc)
            planned = [o for o in outcomes if isinstance(o, TopicRecord)]
            if validate_only or not planned:
                return outcomes
            states = {t.name: self._initial_states(t) for t in planned}
            written = await asyncio.gather(
                *(self.store.create_topic(t, states[t.name]) for t in planned),
                return_exceptions=True,
            )
            created: list[tuple[TopicRecord, dict[int, PartitionState]]] = []
            for topic, result in zip(planned, written, strict=True):
                if isinstance(result, TopicExistsError):
                    outcomes[outcomes.index(topic)] = TopicAlreadyExistsError(
                        f"topic {topic.name!r} already exists"
                    )
                elif isinstance(result, BaseException):
                    raise result
                else:
                    self._topics[topic.name] = topic
                    self._states[topic.name] = states[topic.name]
                    created.append((topic, states[topic.name]))
            for topic, _ in created:
                log.info("created topic topic=%s partitions=%d", topic.name, len(topic.assignment))
            if created:
                self._apply_in_order(created).add_done_callback(_log_failure)
            return outcomes

    async def ensure_topic(
        self, name: str, num_partitions: int, replication_factor: int, configs: dict[str, str]
    ) -> TopicRecord:
        """Creates the topic unless it exists (internal topics, auto-creation); returns it."""
        existing = self._topics.get(name)
        if existing is not None:
            return existing
        spec = TopicSpec(name, num_partitions, replication_factor, None, configs)
        [outcome] = await self.create_topics([spec])
        if isinstance(outcome, TopicRecord):
            # Internal and auto-created topics are used right away, by this broker too.
            await self._settled()
            return outcome
        if not isinstance(outcome, TopicAlreadyExistsError):
            raise outcome
        # Created meanwhile: by a concurrent request here, or in cluster mode by another
        # broker a moment ago (then the cache has not seen it yet).
        created = self._topics.get(name) or (await self.store.topics()).get(name)
        if created is None:
            raise outcome
        self._topics[name] = created
        return created

    async def ensure_internal_topic(self, name: str) -> TopicRecord:
        """Creates `__consumer_offsets` or `__transaction_state` with the settings Kafka
        derives from the broker config, unless it exists; returns it."""
        partitions, factor, configs = internal_topic_spec(name, self.config)
        return await self.ensure_topic(name, partitions, factor, configs)

    async def auto_create_topic(self, name: str) -> TopicRecord:
        """Auto-creation (Metadata, `auto.create.topics.enable`): internal topics with their
        own settings, others with the broker defaults; unless the topic exists."""
        if is_internal(name):
            return await self.ensure_internal_topic(name)
        return await self.ensure_topic(name, -1, -1, {})

    async def _plan_topic(self, spec: TopicSpec) -> TopicRecord:
        """Validates `spec` and lays the topic out over the live brokers; writes nothing."""
        if spec.name in self._topics:
            raise TopicAlreadyExistsError(f"topic {spec.name!r} already exists")
        # Placement uses the store's live brokers, not the cache: in cluster mode the cache
        # may not have seen a broker that registered a moment ago.
        self._set_brokers(await self.store.brokers())
        return plan(spec, self._topics, sorted(self._brokers), self.config, self._rng)

    def _initial_states(self, topic: TopicRecord) -> dict[int, PartitionState]:
        return {p: election.initial_state(r, self._brokers) for p, r in topic.assignment.items()}

    async def delete_topic(self, name: str) -> None:
        """Raises UnknownTopicOrPartitionError, TopicDeletionDisabledError, InvalidTopicError
        (internal topics)."""
        async with self._lock:
            if not self.config.get_bool("delete.topic.enable"):
                raise TopicDeletionDisabledError("topic deletion is disabled (delete.topic.enable)")
            topic = self._topics.get(name)
            if topic is None:
                raise UnknownTopicOrPartitionError(f"topic {name!r} does not exist")
            if is_internal(name):
                raise InvalidTopicError(f"internal topic {name!r} cannot be deleted")
            await self.store.delete_topic(name)
            del self._topics[name]
            self._states.pop(name, None)
            if self._replicas is not None:
                await self._settled()
                await self._replicas.delete(topic)
            log.info("deleted topic topic=%s", name)

    async def create_partitions(
        self,
        name: str,
        total_count: int,
        assignment: list[list[int]] | None,
        validate_only: bool = False,
    ) -> None:
        """Grows the topic to `total_count` partitions. Raises UnknownTopicOrPartitionError,
        InvalidPartitionsError, InvalidReplicaAssignmentError."""
        async with self._lock:
            topic = self._topics.get(name)
            if topic is None:
                raise UnknownTopicOrPartitionError(f"topic {name!r} does not exist")
            self._set_brokers(await self.store.brokers())
            added = plan_partitions(
                topic, total_count, assignment, sorted(self._brokers), self._rng
            )
            if validate_only:
                return
            states = {p: election.initial_state(r, self._brokers) for p, r in added.items()}
            await self.store.add_partitions(name, added, states)
            grown = TopicRecord(
                name=name,
                topic_id=topic.topic_id,
                assignment={**topic.assignment, **added},
                configs=topic.configs,
            )
            self._topics[name] = grown
            self._states[name] = {**self._states.get(name, {}), **states}
            await self._apply_in_order([(grown, states)])
            log.info("added partitions topic=%s partitions=%d", name, total_count)

    async def alter_topic_configs(
        self, name: str, change: ConfigChange, validate_only: bool = False
    ) -> None:
        """Replaces the topic's overrides by `change(current overrides)`, validated against
        the config table, and pushes the resolved config to the native core. Under the admin
        lock, so two changes of one topic never both start from the same overrides. Raises
        UnknownTopicOrPartitionError, InvalidConfigError, and what `change` raises."""
        async with self._lock:
            topic = self._topics.get(name)
            if topic is None:
                raise UnknownTopicOrPartitionError(f"topic {name!r} does not exist")
            changed = change(dict(topic.configs))
            overrides = {k: v for k, v in changed.items() if v is not None}
            self.config.topic_config(overrides)
            if validate_only:
                return
            changes = key_changes(topic.configs, overrides)
            await self.store.alter_entity_configs(EntityType.TOPICS, {name: changes})
            updated = TopicRecord(
                name=name, topic_id=topic.topic_id, assignment=topic.assignment, configs=overrides
            )
            self._topics[name] = updated
            if self._replicas is not None:
                await self._settled()
                await self._replicas.update_config(updated)

    async def allocate_producer_id(self) -> int:
        """The next producer id, from a block reserved in the store."""
        return await self._producer_ids.next_id()

    # Leadership and replica moves asked for by admins

    async def elect_leaders(
        self, kind: ElectionType, partitions: Collection[TopicPartition] | None, timeout_ms: int
    ) -> PartitionResults:
        """ElectLeaders: each partition answered by `election.requested`; the elections it
        allows are carried out (`_carry_out`) before this returns. With `partitions` None every
        partition is asked for and, as in Kafka, those needing no election are left out."""
        everything = [(n, p) for n, t in sorted(self._topics.items()) for p in sorted(t.assignment)]
        results: PartitionResults = {}
        decided: dict[TopicPartition, PartitionState] = {}
        for tp in everything if partitions is None else partitions:
            outcome = self.requested_election(kind, tp)
            if isinstance(outcome, KafkaError):
                results[tp] = outcome
            else:
                decided[tp] = outcome
        if decided:
            results.update(await self._carry_out(kind, set(decided), timeout_ms))
        if partitions is None:
            return {tp: e for tp, e in results.items() if not isinstance(e, ElectionNotNeededError)}
        return results

    async def _carry_out(
        self, kind: ElectionType, partitions: set[TopicPartition], timeout_ms: int
    ) -> PartitionResults:
        """Single node: this controller is the one that decides, so it writes the new states
        and applies them, deciding again under the admin lock on the states it writes over."""
        results: PartitionResults = {}
        async with self._lock:
            for tp in sorted(partitions):
                name, partition = tp
                decided = self.requested_election(kind, tp)
                if isinstance(decided, KafkaError):
                    results[tp] = decided
                    continue
                state = await self.store.update_partition_state(
                    name, partition, decided, decided.version
                )
                self._states[name][partition] = state
                await self._apply_in_order([(self._topics[name], {partition: state})])
                results[tp] = None
        return results

    async def alter_partition_reassignments(
        self,
        targets: Mapping[TopicPartition, list[int] | None],
        allow_replication_factor_change: bool = True,
    ) -> PartitionResults:
        """AlterPartitionReassignments: targets checked by `reassignment.check`; the moves
        that pass are started (`_start_moves`), not awaited."""
        checked = reassignment.check(
            targets,
            self._topics,
            self.reassignments(),
            self._brokers,
            allow_replication_factor_change,
        )
        results: PartitionResults = {}
        accepted: dict[TopicPartition, list[int] | None] = {}
        for tp, outcome in checked.items():
            if isinstance(outcome, KafkaError):
                results[tp] = outcome
            else:
                accepted[tp] = outcome
        if accepted:
            results.update(await self._start_moves(accepted))
        return results

    async def _start_moves(
        self, accepted: dict[TopicPartition, list[int] | None]
    ) -> PartitionResults:
        """Single node: the checks leave only this broker as a target replica, which is what a
        partition has already, so such a move is complete once accepted (Kafka's answer for a
        one-broker cluster too). A partition left assigned to another broker id (the node id
        changed) cannot be moved without a cluster."""
        results: PartitionResults = {}
        for (name, partition), target in accepted.items():
            current = self._topics[name].assignment[partition]
            results[(name, partition)] = (
                None
                if target is None or target == current
                else InvalidReplicaAssignmentError("a single node cannot move replicas")
            )
        return results

    def _apply_in_order(
        self, layouts: list[tuple[TopicRecord, dict[int, PartitionState]]]
    ) -> asyncio.Future[None]:
        """Queues `layouts` for the local replicas, to be applied after every layout queued
        before it (a delete or a config change waits for them: see `_settled`), and returns
        its completion, which raises what applying it raised."""
        previous = self._applied

        async def after_previous() -> None:
            if previous is not None:
                # Its outcome is for whoever queued it.
                await asyncio.wait([previous])
            await self._apply(layouts)

        self._applied = asyncio.ensure_future(after_previous())
        return self._applied

    async def _settled(self) -> None:
        """Returns once every layout queued so far is applied (or failed)."""
        if self._applied is not None:
            await asyncio.wait([self._applied])

    async def _apply(self, layouts: list[tuple[TopicRecord, dict[int, PartitionState]]]) -> None:
        """Single node: the local replicas take the layouts' roles (one native command), then
        the coordinators hear which partitions of their topics this broker leads."""
        if self._replicas is None:
            return
        await self._replicas.apply(layouts)
        for topic, states in layouts:
            for partition, state in sorted(states.items()):
                self.notify_leadership(
                    topic.name, partition, state.leader_epoch, state.leader == self.node_id
                )


def _log_failure(opened: asyncio.Future[None]) -> None:
    if not opened.cancelled() and (exc := opened.exception()) is not None:
        log.error("opening the replicas of created topics failed: %s", exc, exc_info=exc)
