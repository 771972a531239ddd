"""`EntityConfigManager`: what the managers of config entities share (client quotas, SCRAM
credentials, dynamic broker configs, group configs). Each keeps a table of its own model,
decoded from the entity configs of the metadata store (`store.entities`): it loads the table
whole, takes the changes a change notification brings, writes its alterations to the store
before taking them (one at a time, each starting from what the previous one left), and tells
the rest of the broker (the native core, listeners) when the table changed.

A manager names which entities and which keys of them are its own; it writes only those keys,
so a user's quotas and its SCRAM credentials, one config entity, never overwrite each other."""

from __future__ import annotations

import abc
import asyncio
from collections.abc import Collection, Mapping
from typing import ClassVar, Generic, TypeVar

from .store.base import MetadataStore
from .store.entities import ConfigChanges, EntityConfigs, EntityType, key_changes

K = TypeVar("K")
V = TypeVar("V")


class EntityConfigManager(abc.ABC, Generic[K, V]):
    # The entity types whose configs hold this manager's values.
    entity_types: ClassVar[tuple[EntityType, ...]]

    def __init__(self, store: MetadataStore) -> None:
        self._store = store
        self._table: dict[K, V] = {}
        # One alteration at a time: each starts from the table the previous one left.
        self._lock = asyncio.Lock()

    # What a manager says about its entities

    @abc.abstractmethod
    def key(self, entity_type: EntityType, name: str) -> K | None:
        """The table key of a stored entity; None: not one of this manager's."""

    @abc.abstractmethod
    def entity(self, key: K) -> tuple[EntityType, str]:
        """The stored entity of a table key."""

    @abc.abstractmethod
    def decode(self, config: Mapping[str, str]) -> V:
        """This manager's value in an entity's config (empty: none there)."""

    @abc.abstractmethod
    def encode(self, value: V) -> dict[str, str]:
        """The config keys of a value."""

    def names(self, entity_type: EntityType) -> Collection[str] | None:
        """The entities of `entity_type` a load reads (None: every one stored)."""
        return None

    async def published(self) -> None:
        """Called once the table changed (loaded, updated or altered)."""

    # The table

    async def load(self) -> None:
        entities = {
            t: await self._store.entity_configs(t, self.names(t)) for t in self.entity_types
        }
        await self.update(ConfigChanges(True, entities))

    async def update(self, changes: ConfigChanges) -> None:
        """Takes the entities `changes` brings as the store has them (`full`: and none other)."""
        table = {} if changes.full else dict(self._table)
        for entity_type in self.entity_types:
            self._take(table, entity_type, changes.entities.get(entity_type, {}))
        await self._replace(table)

    async def reread(self, keys: Collection[K]) -> None:
        """Takes the stored values of `keys` (another broker may have just written them)."""
        by_type: dict[EntityType, list[str]] = {}
        for key in keys:
            entity_type, name = self.entity(key)
            by_type.setdefault(entity_type, []).append(name)
        table = dict(self._table)
        for entity_type, names in by_type.items():
            self._take(table, entity_type, await self._store.entity_configs(entity_type, names))
        await self._replace(table)

    async def write(self, values: Mapping[K, V]) -> None:
        """Stores each key's new value (empty: removes it), then takes them. The caller holds
        `_lock`, so the values it computed from the table are still current."""
        by_type: dict[EntityType, dict[str, dict[str, str | None]]] = {}
        for key, value in values.items():
            entity_type, name = self.entity(key)
            current = self.encode(self._table[key]) if key in self._table else {}
            by_type.setdefault(entity_type, {})[name] = key_changes(
                current, self.encode(value) if value else {}
            )
        for entity_type, changes in by_type.items():
            await self._store.alter_entity_configs(entity_type, changes)
        table = dict(self._table)
        for key, value in values.items():
            if value:
                table[key] = value
            else:
                table.pop(key, None)
        await self._replace(table)

    def _take(self, table: dict[K, V], entity_type: EntityType, configs: EntityConfigs) -> None:
        for name, config in configs.items():
            key = self.key(entity_type, name)
            if key is None:
                continue
            value = self.decode(config)
            if value:
                table[key] = value
            else:
                table.pop(key, None)

    async def _replace(self, table: dict[K, V]) -> None:
        if table == self._table:
            return
        self._table = table
        await self.published()
