"""`AclControlManager`: the ACLs this broker knows, kept in the metadata store (in a cluster,
ZooKeeper's `/kafka-acl` and `/kafka-acl-extended` in Kafka's layout) and pushed whole to the
native authorizer, which every request is checked against.

Writes go to the store first (in a cluster, ZooKeeper, whose change notification tells every
other broker), then to the cache and the native authorizer of this broker. A broker in a
cluster takes the resources a change notification names (`update`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Protocol

from ferrolog.errors import KafkaError

from .model import (
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    AclChanges,
    AclTable,
    ResourcePattern,
    native_acls,
    validate_binding,
)

log = logging.getLogger(__name__)

# What the native core takes (`ferrolog_native.Server.set_acls`).
AclSink = Callable[[list[tuple[int, int, str, str, str, int, int]]], None]


class AclControlManager:
    def __init__(self, store: AclStore, sink: AclSink | None = None) -> None:
        self._store = store
        self._sink = sink
        self._acls: AclTable = {}
        # One change at a time: each starts from the ACLs the previous one left.
        self._lock = asyncio.Lock()

    @property
    def acls(self) -> AclTable:
        return dict(self._acls)

    async def load(self) -> None:
        self.replace(await self._store.acls())

    def replace(self, acls: AclTable) -> None:
        """Takes `acls` as every ACL and pushes them to the native authorizer."""
        acls = {pattern: entries for pattern, entries in acls.items() if entries}
        if acls == self._acls:
            return
        self._acls = acls
        log.info("acls: %d resource patterns", len(acls))
        if self._sink is not None:
            self._sink(native_acls(acls))

    def update(self, changes: AclTable, full: bool) -> None:
        """Takes the resource patterns in `changes` as the store has them (empty: no ACL
        left); `full`: `changes` is every ACL."""
        acls = {} if full else dict(self._acls)
        acls.update(changes)
        self.replace(acls)

    def describe(self, acl_filter: AclBindingFilter) -> list[AclBinding]:
        """The ACLs the filter matches (raises what Kafka answers for a bad filter)."""
        acl_filter.validate()
        return sorted(
            AclBinding(pattern, entry)
            for pattern, entries in self._acls.items()
            if acl_filter.matches_pattern(pattern)
            for entry in entries
            if acl_filter.matches_entry(entry)
        )

    async def create(self, bindings: Sequence[AclBinding]) -> list[KafkaError | None]:
        """Creates every valid binding (an existing one is no error), answering each one's
        error as Kafka does."""
        results: list[KafkaError | None] = []
        additions: dict[ResourcePattern, set[AccessControlEntry]] = {}
        for binding in bindings:
            try:
                validate_binding(binding)
            except KafkaError as error:
                results.append(error)
                continue
            results.append(None)
            additions.setdefault(binding.pattern, set()).add(binding.entry)
        if additions:
            async with self._lock:
                written = await self._store.alter_acls(additions, {})
                self.update(written, full=False)
            for pattern, entries in additions.items():
                log.info("created %d acls of %s", len(entries), pattern)
        return results

    async def delete(
        self, filters: Sequence[AclBindingFilter]
    ) -> list[list[AclBinding] | KafkaError]:
        """Deletes the ACLs each filter matches; each filter's deleted bindings, or its
        error."""
        async with self._lock:
            results: list[list[AclBinding] | KafkaError] = []
            removals: dict[ResourcePattern, set[AccessControlEntry]] = {}
            for acl_filter in filters:
                try:
                    matched = self.describe(acl_filter)
                except KafkaError as error:
                    results.append(error)
                    continue
                results.append(matched)
                for binding in matched:
                    removals.setdefault(binding.pattern, set()).add(binding.entry)
            if removals:
                written = await self._store.alter_acls({}, removals)
                self.update(written, full=False)
                for pattern, entries in removals.items():
                    log.info("deleted %d acls of %s", len(entries), pattern)
            return results


class AclStore(Protocol):
    """What the manager needs of the metadata store (`MetadataStore` has it)."""

    async def acls(self) -> AclTable: ...

    async def alter_acls(self, additions: AclChanges, removals: AclChanges) -> AclTable:
        """Adds and removes entries of each resource pattern named (read, change, write, so
        concurrent writers on other brokers are not lost), lets every broker know, and
        returns the stored entries of those patterns now."""
        ...
