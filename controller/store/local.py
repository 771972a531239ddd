"""`LocalStore`: the single-node metadata store, one JSON file in the data directory.

Every write replaces the whole file atomically (temp file, fsync, rename, fsync of the
directory), so a crash leaves either the old or the new metadata, never a torn file. Writes
run on a worker thread so a slow disk does not stall the event loop, and one lock serializes
them so each write sees the one before.

Broker registrations are not persisted: like ZooKeeper's ephemeral nodes they live as long as
the process that made them.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import os
import uuid
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from ferrolog.features import NEW_CLUSTER_LEVELS

# Relative, so the type checker resolves it whether it sees this folder as `controller` (the
# source tree) or `ferrolog.controller` (the installed package).
from ..acl.model import AclChanges, AclTable, PatternType, ResourcePattern, ResourceType, parse_name
from ..quota.entity import ClientQuotaEntity, quota_config, stored_entity
from ..tokens.model import TokenInfo
from . import zk_acls, zk_tokens
from . import zk_paths as paths
from .base import (
    BadVersionError,
    BrokerRegistration,
    FinalizedFeatures,
    MetadataStore,
    PartitionState,
    TopicExistsError,
    TopicRecord,
)
from .entities import EntityChanges, EntityConfigs, EntityType, apply_key_changes, sanitize

FILE_NAME = "ferrolog-metadata.json"
T = TypeVar("T")
FORMAT_VERSION = 1


def new_cluster_id() -> str:
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()


class LocalStore(MetadataStore):
    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        self._dir = Path(data_dir)
        self._path = self._dir / FILE_NAME
        self._data: dict[str, Any] = {}  # what the file holds: reads come from here
        self._head: dict[str, Any] = {}  # `_data` plus mutations not yet written
        self._generation = 0  # count of mutations applied to `_head`
        self._written = 0  # generation the file holds
        self._failed = 0  # generations up to this one were lost to a failed write
        self._error: BaseException | None = None
        self._flush: asyncio.Future[None] | None = None
        self._brokers: dict[int, BrokerRegistration] = {}
        self._started = False

    @property
    def path(self) -> Path:
        return self._path

    async def start(self) -> None:
        self._dir.mkdir(parents=True, exist_ok=True)
        if self._path.exists():
            data = json.loads(self._path.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT_VERSION:
                raise RuntimeError(f"{self._path}: unknown format {data.get('format')!r}")
            _migrate_entity_configs(data)
        else:
            data = {
                "format": FORMAT_VERSION,
                "cluster_id": new_cluster_id(),
                "next_producer_id": 0,
                "topics": {},
                "features": {"levels": dict(NEW_CLUSTER_LEVELS), "epoch": 0},
            }
            await asyncio.to_thread(_atomic_write, self._path, _dump(data))
        self._data = data
        self._head = copy.deepcopy(data)
        self._started = True

    async def close(self) -> None:
        if self._flush is not None:
            await asyncio.wait([self._flush])
        self._started = False

    def _check(self) -> None:
        if not self._started:
            raise RuntimeError("LocalStore is not started")

    async def _apply(self, mutate: Callable[[dict[str, Any]], T]) -> T:
        """Applies `mutate` to the newest state and returns once it is on disk.

        `mutate` validates before it changes anything (it raises with `_head` untouched) and
        runs without awaiting, so it sees every earlier mutation: compare-and-set stays
        exact. Mutations that arrive while a write is under way go to disk together in the
        next one (group commit), so a burst of updates costs one fsync, not one each."""
        self._check()
        result = mutate(self._head)
        self._generation += 1
        generation = self._generation
        while self._written < generation:
            if self._failed >= generation:
                raise OSError(f"metadata write to {self._path} failed: {self._error}")
            if self._flush is None or self._flush.done():
                self._flush = asyncio.ensure_future(self._write_head())
            await asyncio.wait([self._flush])
        return result

    async def _write_head(self) -> None:
        generation, text = self._generation, _dump(self._head)
        try:
            await asyncio.to_thread(_atomic_write, self._path, text)
        except Exception as exc:
            # Memory goes back to what the file holds; every mutation not yet written fails.
            self._error = exc
            self._failed = self._generation
            self._head = copy.deepcopy(self._data)
            return
        self._data = json.loads(text)
        self._written = generation

    # Reads (from memory: the file is only ever written by this process)

    async def cluster_id(self) -> str:
        self._check()
        return str(self._data["cluster_id"])

    async def topics(self) -> dict[str, TopicRecord]:
        self._check()
        return {name: _topic_from_json(name, raw) for name, raw in self._data["topics"].items()}

    async def partition_states(self, name: str) -> dict[int, PartitionState]:
        self._check()
        raw = self._data["topics"].get(name)
        if raw is None:
            return {}
        return {int(p): _state_from_json(s) for p, s in raw["states"].items()}

    async def brokers(self) -> dict[int, BrokerRegistration]:
        self._check()
        return dict(self._brokers)

    async def acls(self) -> AclTable:
        self._check()
        # Kept as Kafka writes them to ZooKeeper: each pattern's znode path and data.
        table: AclTable = {}
        for path, data in self._data.get("acls", {}).items():
            pattern = _acl_pattern(path)
            if pattern is not None:
                table[pattern] = zk_acls.acls_from_json(data)
        return table

    async def entity_configs(
        self, entity_type: EntityType, names: Collection[str] | None = None
    ) -> EntityConfigs:
        self._check()
        # Kept as in ZooKeeper: by type, then by the entity's name below it; a topic's with
        # its record.
        stored = _entities(self._data, entity_type)
        if names is None:
            return {name: dict(config) for name, config in stored.items()}
        return {name: dict(stored.get(name, {})) for name in names}

    async def delegation_tokens(self) -> dict[str, TokenInfo]:
        self._check()
        stored = self._data.get("delegation_tokens", {})
        # Kept as Kafka's token znode is, so one codec serves both stores.
        return {t: zk_tokens.decode(json.dumps(raw).encode()) for t, raw in stored.items()}

    async def finalized_features(self) -> FinalizedFeatures:
        self._check()
        return _features_from_json(self._data)

    # Writes

    async def create_topic(self, topic: TopicRecord, states: dict[int, PartitionState]) -> None:
        def mutate(data: dict[str, Any]) -> None:
            if topic.name in data["topics"]:
                raise TopicExistsError(topic.name)
            data["topics"][topic.name] = {
                "topic_id": topic.topic_id.hex(),
                "assignment": {str(p): list(r) for p, r in topic.assignment.items()},
                "configs": dict(topic.configs),
                "states": {str(p): _state_to_json(s) for p, s in states.items()},
            }

        await self._apply(mutate)

    async def delete_topic(self, name: str) -> None:
        await self._apply(lambda data: data["topics"].pop(name, None))

    async def add_partitions(
        self, name: str, assignment: dict[int, list[int]], states: dict[int, PartitionState]
    ) -> None:
        def mutate(data: dict[str, Any]) -> None:
            raw = _topic(data, name)
            for partition in assignment:
                if str(partition) in raw["assignment"]:
                    raise ValueError(f"{name}-{partition} already exists")
            for partition, replicas in assignment.items():
                raw["assignment"][str(partition)] = list(replicas)
            for partition, state in states.items():
                raw["states"][str(partition)] = _state_to_json(state)

        await self._apply(mutate)

    async def update_partition_state(
        self, name: str, partition: int, state: PartitionState, expected_version: int
    ) -> PartitionState:
        def mutate(data: dict[str, Any]) -> PartitionState:
            states = _topic(data, name)["states"]
            current = states.get(str(partition))
            if current is None:
                raise KeyError(f"{name}-{partition}")
            if current["version"] != expected_version:
                raise BadVersionError(
                    f"{name}-{partition}: version {current['version']}, expected {expected_version}"
                )
            # Not stored: KIP-966's lists (one broker's one replica is never below its minimum).
            written = replace(state, isr=list(state.isr), version=expected_version + 1)
            states[str(partition)] = _state_to_json(written)
            return written

        return await self._apply(mutate)

    async def alter_entity_configs(self, entity_type: EntityType, changes: EntityChanges) -> None:
        def mutate(data: dict[str, Any]) -> None:
            if entity_type is EntityType.TOPICS:
                for name, key_changes in changes.items():
                    topic = _topic(data, name)
                    topic["configs"] = apply_key_changes(topic["configs"], key_changes)
                return
            stored = data.setdefault("configs", {}).setdefault(entity_type, {})
            for name, key_changes in changes.items():
                config = apply_key_changes(stored.get(name, {}), key_changes)
                if config:
                    stored[name] = config
                else:
                    stored.pop(name, None)

        await self._apply(mutate)

    async def alter_acls(self, additions: AclChanges, removals: AclChanges) -> AclTable:
        def mutate(data: dict[str, Any]) -> AclTable:
            stored = data.setdefault("acls", {})
            written: AclTable = {}
            for pattern in set(additions) | set(removals):
                path = zk_acls.acl_path(pattern)
                current = zk_acls.acls_from_json(stored.get(path, {}))
                entries = (current | frozenset(additions.get(pattern, ()))) - frozenset(
                    removals.get(pattern, ())
                )
                written[pattern] = entries
                if entries:
                    stored[path] = zk_acls.acls_json(entries)
                else:
                    stored.pop(path, None)
            return written

        return await self._apply(mutate)

    async def alter_delegation_token(self, token_id: str, token: TokenInfo | None) -> None:
        def mutate(data: dict[str, Any]) -> None:
            stored = data.setdefault("delegation_tokens", {})
            if token is None:
                stored.pop(token_id, None)
            else:
                stored[token_id] = json.loads(zk_tokens.encode(token))

        await self._apply(mutate)

    async def update_finalized_features(
        self, levels: Mapping[str, int], expected_epoch: int
    ) -> FinalizedFeatures:
        def mutate(data: dict[str, Any]) -> FinalizedFeatures:
            current = _features_from_json(data)
            if current.epoch != expected_epoch:
                raise BadVersionError(
                    f"finalized features: epoch {current.epoch}, expected {expected_epoch}"
                )
            written = FinalizedFeatures(
                {n: level for n, level in sorted(levels.items()) if level > 0}, current.epoch + 1
            )
            data["features"] = {"levels": dict(written.levels), "epoch": written.epoch}
            return written

        return await self._apply(mutate)

    async def register_broker(self, registration: BrokerRegistration) -> None:
        self._check()
        self._brokers[registration.node_id] = registration

    async def allocate_producer_ids(self, count: int) -> int:
        if count < 1:
            raise ValueError("count must be positive")

        def mutate(data: dict[str, Any]) -> int:
            first = int(data["next_producer_id"])
            data["next_producer_id"] = first + count
            return first

        # The block is reserved on disk before anyone can use it, so a crash can skip ids but
        # never repeat them.
        return await self._apply(mutate)


def _entities(data: dict[str, Any], entity_type: EntityType) -> dict[str, dict[str, str]]:
    if entity_type is EntityType.TOPICS:
        return {name: raw["configs"] for name, raw in data["topics"].items()}
    stored: dict[str, dict[str, str]] = data.get("configs", {}).get(entity_type, {})
    return stored


def _topic(data: dict[str, Any], name: str) -> dict[str, Any]:
    raw = data["topics"].get(name)
    if raw is None:
        raise KeyError(name)
    assert isinstance(raw, dict)
    return raw


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, indent=1)


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _state_to_json(state: PartitionState) -> dict[str, Any]:
    return {
        "leader": state.leader,
        "leader_epoch": state.leader_epoch,
        "isr": list(state.isr),
        "controller_epoch": state.controller_epoch,
        "version": state.version,
    }


def _state_from_json(raw: dict[str, Any]) -> PartitionState:
    return PartitionState(
        leader=int(raw["leader"]),
        leader_epoch=int(raw["leader_epoch"]),
        isr=[int(b) for b in raw["isr"]],
        controller_epoch=int(raw["controller_epoch"]),
        version=int(raw["version"]),
    )


def _topic_from_json(name: str, raw: dict[str, Any]) -> TopicRecord:
    return TopicRecord(
        name=name,
        topic_id=bytes.fromhex(raw["topic_id"]),
        assignment={int(p): [int(b) for b in r] for p, r in raw["assignment"].items()},
        configs=dict(raw["configs"]),
    )


def _features_from_json(data: dict[str, Any]) -> FinalizedFeatures:
    # A store written before features existed has none finalized, at epoch 0, as Kafka's
    # ZooKeeper-mode controller enables `/feature` empty in a cluster from before them.
    raw = data.get("features", {"levels": {}, "epoch": 0})
    return FinalizedFeatures({str(n): int(v) for n, v in raw["levels"].items()}, int(raw["epoch"]))


def _migrate_entity_configs(data: dict[str, Any]) -> None:
    """Moves what files written before config entities had (a section per feature) into
    `configs`, named as ZooKeeper names them."""
    configs = data.setdefault("configs", {})

    def put(entity_type: EntityType, name: str, config: dict[str, str]) -> None:
        if config:
            configs.setdefault(entity_type, {}).setdefault(name, {}).update(config)

    for e in data.pop("client_quotas", []):
        entity = ClientQuotaEntity(tuple(sorted(e["entity"].items())))
        put(*stored_entity(entity), quota_config(e["quotas"]))
    for user, held in data.pop("scram_credentials", {}).items():
        put(EntityType.USERS, sanitize(user), dict(held))
    for name, config in data.pop("broker_configs", {}).items():
        put(EntityType.BROKERS, name, dict(config))
    for group, config in data.pop("group_configs", {}).items():
        put(EntityType.GROUPS, sanitize(group), dict(config))


def _acl_pattern(path: str) -> ResourcePattern | None:
    """The resource pattern of a `zk_zk_acls.acl_path`."""
    for root, pattern_type in (
        (paths.ACL_PREFIXED, PatternType.PREFIXED),
        (paths.ACL_LITERAL, PatternType.LITERAL),
    ):
        if path.startswith(root + "/"):
            type_name, _, name = path[len(root) + 1 :].partition("/")
            return ResourcePattern(parse_name(ResourceType, type_name), name, pattern_type)
    return None
