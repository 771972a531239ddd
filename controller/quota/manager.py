"""`ClientQuotaControlManager`: the client quotas this broker knows, kept in the metadata
store and pushed whole to the native core, which enforces them.

Writes go to the store first (in a cluster, ZooKeeper, whose change notification tells every
other broker), then to the cache and the native core of this broker. A broker in a cluster
takes the entities a change notification names (`update`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence

from ferrolog.errors import InvalidRequestError, KafkaError

from ..store.base import MetadataStore
from .entity import (
    AlterResults,
    ClientQuotaEntity,
    QuotaTable,
    apply_ops,
    quota_filter,
    validate_entity,
)

log = logging.getLogger(__name__)

# What the native core takes (`ferrolog_native.Server.set_client_quotas`).
NativeQuotas = list[tuple[dict[str, str | None], dict[str, float]]]
QuotaSink = Callable[[NativeQuotas], None]
# One AlterClientQuotas entry: the entity's (type, name) pairs and its ops (key, value or None
# to remove).
Alteration = tuple[Sequence[tuple[str, str | None]], Sequence[tuple[str, float | None]]]


class ClientQuotaControlManager:
    def __init__(self, store: MetadataStore, sink: QuotaSink | None = None) -> None:
        self._store = store
        self._sink = sink
        self._quotas: QuotaTable = {}
        # One alteration at a time: each starts from the quotas the previous one left.
        self._lock = asyncio.Lock()

    @property
    def quotas(self) -> QuotaTable:
        return {entity: dict(q) for entity, q in self._quotas.items()}

    async def load(self) -> None:
        self.replace(await self._store.client_quotas())

    def replace(self, quotas: QuotaTable) -> None:
        """Takes `quotas` as the whole configuration and pushes it to the native core."""
        if quotas == self._quotas:
            return
        self._quotas = {entity: dict(q) for entity, q in quotas.items()}
        log.info("client quotas: %d entities", len(quotas))
        if self._sink is not None:
            self._sink([(entity.as_dict(), dict(q)) for entity, q in quotas.items()])

    def update(self, changes: QuotaTable, full: bool) -> None:
        """Takes the entities in `changes` as the store has them (an empty dict: removed);
        `full`: `changes` is the whole configuration."""
        quotas = {} if full else dict(self._quotas)
        quotas.update(changes)
        self.replace({entity: q for entity, q in quotas.items() if q})

    def describe(
        self, components: Iterable[tuple[str, int, str | None]], strict: bool
    ) -> QuotaTable:
        """The entities the DescribeClientQuotas filter matches; raises what Kafka answers for
        a bad filter."""
        matcher = quota_filter(components, strict)
        matched = sorted(
            (e for e in self._quotas if matcher.matches(e)), key=ClientQuotaEntity.sort_key
        )
        return {e: dict(self._quotas[e]) for e in matched}

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
                    current = changes.get(entity, self._quotas.get(entity, {}))
                    updated = apply_ops(current, ops)
                except KafkaError as error:
                    results.append(error)
                    continue
                results.append(None)
                if updated != self._quotas.get(entity, {}):
                    changes[entity] = updated
            if validate_only or not changes:
                return results
            await self._store.alter_client_quotas(changes)
            quotas = dict(self._quotas)
            for entity, updated in changes.items():
                if updated:
                    quotas[entity] = updated
                else:
                    quotas.pop(entity, None)
            for entity, updated in changes.items():
                log.info("altered client quotas of %s: %s", entity, updated or "none")
            self.replace(quotas)
            return results
