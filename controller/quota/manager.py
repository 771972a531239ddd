"""`ClientQuotaControlManager`: the client quotas this broker knows, kept in the metadata
store and pushed whole to the native core, which enforces them.

Writes go to the store first (in a cluster, ZooKeeper, whose change notification tells every
other broker), then to the cache and the native core of this broker. A broker in a cluster
takes the entities a change notification names (`update`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence

from ferrolog.errors import InvalidRequestError, KafkaError

from ..entity_manager import EntityConfigManager
from ..store.base import MetadataStore
from ..store.entities import EntityType
from .entity import (
    AlterResults,
    ClientQuotaEntity,
    QuotaTable,
    apply_ops,
    entity_of_stored,
    quota_config,
    quota_filter,
    quotas_of_config,
    stored_entity,
    validate_entity,
)

log = logging.getLogger(__name__)

# What the native core takes (`ferrolog_native.Server.set_client_quotas`).
NativeQuotas = list[tuple[dict[str, str | None], dict[str, float]]]
QuotaSink = Callable[[NativeQuotas], None]
# One AlterClientQuotas entry: the entity's (type, name) pairs and its ops (key, value or None
# to remove).
Alteration = tuple[Sequence[tuple[str, str | None]], Sequence[tuple[str, float | None]]]


class ClientQuotaControlManager(EntityConfigManager[ClientQuotaEntity, dict[str, float]]):
    entity_types = (EntityType.CLIENTS, EntityType.USERS)

    def __init__(self, store: MetadataStore, sink: QuotaSink | None = None) -> None:
        super().__init__(store)
        self._sink = sink

    def key(self, entity_type: EntityType, name: str) -> ClientQuotaEntity | None:
        return entity_of_stored(entity_type, name)

    def entity(self, key: ClientQuotaEntity) -> tuple[EntityType, str]:
        return stored_entity(key)

    def decode(self, config: Mapping[str, str]) -> dict[str, float]:
        return quotas_of_config(config)

    def encode(self, value: dict[str, float]) -> dict[str, str]:
        return quota_config(value)

    @property
    def quotas(self) -> QuotaTable:
        return {entity: dict(q) for entity, q in self._table.items()}

    async def published(self) -> None:
        """Pushes the whole configuration to the native core."""
        log.info("client quotas: %d entities", len(self._table))
        if self._sink is not None:
            self._sink([(entity.as_dict(), dict(q)) for entity, q in self._table.items()])

    def describe(
        self, components: Iterable[tuple[str, int, str | None]], strict: bool
    ) -> QuotaTable:
        """The entities the DescribeClientQuotas filter matches; raises what Kafka answers for
        a bad filter."""
        matcher = quota_filter(components, strict)
        matched = sorted(
            (e for e in self._table if matcher.matches(e)), key=ClientQuotaEntity.sort_key
        )
        return {e: dict(self._table[e]) for e in matched}

    async def alter(self, alterations: Sequence[Alteration], validate_only: bool) -> AlterResults:
        """Applies every valid entry (an entry's ops all or none) and answers each entry's
        error, as Kafka's controller does; with `validate_only` only answers."""
        async with self._lock:
            results: AlterResults = []
            changes: dict[ClientQuotaEntity, dict[str, float]] = {}
            seen: set[ClientQuotaEntity] = set()
            for pairs, ops in alterations:
                try:
                    entity = validate_entity(pairs)
                    if entity in seen:
                        raise InvalidRequestError(f"Ignoring duplicate entity {entity}")
                    seen.add(entity)
                    current = changes.get(entity, self._table.get(entity, {}))
                    updated = apply_ops(current, ops)
                except KafkaError as error:
                    results.append(error)
                    continue
                results.append(None)
                if updated != self._table.get(entity, {}):
                    changes[entity] = updated
            if validate_only or not changes:
                return results
            await self.write(changes)
            for entity, updated in changes.items():
                log.info("altered client quotas of %s: %s", entity, updated or "none")
            return results
