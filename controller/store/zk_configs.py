"""Config entities in ZooKeeper (`ZkStore`'s quota and broker config calls), in Kafka's layout
(`zk_paths`): one config znode per entity (`/config/clients/<id>`, `/config/users/...`,
`/config/brokers/<id>`, `/config/brokers/<default>`), and a sequential change notification per
changed entity, naming it, that every broker watches. A change reaches every broker within a
watch round trip, without a restart.

A broker processes the notifications newer than the last one it saw and re-reads only the
entities they name (Kafka's `ZkNodeChangeNotificationListener`), so a change costs each broker
one read per changed entity, however many entities exist. It reads everything only on its
first pass and after a connection state change, when it may have missed a notification that
has since expired.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError, NotEmptyError
from kazoo.protocol.states import WatchedEvent

from ..quota.entity import ClientQuotaEntity, QuotaTable
from . import zk_paths as paths
from .base import BrokerConfigs

Watcher = Callable[[WatchedEvent], None]
V = TypeVar("V")


@dataclass(frozen=True)
class ConfigChanges:
    """What the notifications since the last read changed. `full`: everything was read, so
    `quotas` is the whole quota table and `brokers` has every wanted broker entity; otherwise
    they hold the changed entities only, an empty config meaning it was removed."""

    full: bool
    quotas: QuotaTable = field(default_factory=dict)
    brokers: BrokerConfigs = field(default_factory=dict)


def _notifications(client: KazooClient, watch: Watcher | None) -> list[str]:
    """The change notifications, oldest first; `watch` fires on the next one."""
    children = client.get_children(paths.CONFIG_CHANGES, watch=watch)
    return sorted(c for c in children if c.startswith(paths.CONFIG_CHANGE_PREFIX))


def read_changes(
    client: KazooClient,
    watch: Watcher | None,
    after: str | bool | None,
    brokers: Collection[int | None],
) -> tuple[str | None, ConfigChanges | None]:
    """The newest notification and what changed since `after` (the newest one seen before,
    None if there was none, False to read everything), for the broker entities `brokers`;
    None when nothing did."""
    names = _notifications(client, watch)
    latest = names[-1] if names else None
    if after is False:
        everything = ConfigChanges(True, read_quotas(client), read_broker_configs(client, brokers))
        return latest, everything
    new = [n for n in names if after is None or n > str(after)]
    if not new:
        return latest, None
    pending = [client.get_async(f"{paths.CONFIG_CHANGES}/{n}") for n in new]
    entity_paths: set[str] = set()
    for read in pending:
        with contextlib.suppress(NoNodeError):  # purged meanwhile: older than any we miss
            entity_paths.add(paths.decode_config_change(read.get()[0]))
    quota_reads = []
    broker_reads = []
    for entity_path in sorted(entity_paths):
        entity = paths.quota_entity_of_path(entity_path)
        if entity is not None:
            quota_reads.append((entity, client.get_async(f"/config/{entity_path}")))
        broker = paths.broker_of_path(entity_path)
        if broker is not False and broker in brokers:
            assert not isinstance(broker, bool)
            broker_reads.append((broker, client.get_async(f"/config/{entity_path}")))
    quotas = {entity: _data(read, paths.decode_quota_config) for entity, read in quota_reads}
    configs = {broker: _data(read, paths.decode_topic_config) for broker, read in broker_reads}
    return latest, ConfigChanges(False, quotas, configs)


def _data(read: Any, decode: Callable[[bytes], V]) -> V:
    """The decoded data of an async read; a missing znode reads as empty."""
    try:
        data = read.get()[0]
    except NoNodeError:
        data = b""
    return decode(data)


def read_quotas(client: KazooClient) -> QuotaTable:
    """Every entity with quotas: `/config/clients/*`, `/config/users/*` and
    `/config/users/*/clients/*`."""
    reads: list[tuple[ClientQuotaEntity, str]] = []
    for name in client.get_children(paths.CONFIG_CLIENTS):
        reads.append((paths.quota_entity(False, name), f"{paths.CONFIG_CLIENTS}/{name}"))
    for user in client.get_children(paths.CONFIG_USERS):
        user_path = f"{paths.CONFIG_USERS}/{user}"
        reads.append((paths.quota_entity(user, False), user_path))
        with contextlib.suppress(NoNodeError):
            for name in client.get_children(f"{user_path}/clients"):
                reads.append((paths.quota_entity(user, name), f"{user_path}/clients/{name}"))
    pending = [(entity, client.get_async(path)) for entity, path in reads]
    quotas: QuotaTable = {}
    for entity, read in pending:
        config = _data(read, paths.decode_quota_config)
        if config:
            quotas[entity] = config
    return quotas


def read_broker_configs(client: KazooClient, brokers: Collection[int | None]) -> BrokerConfigs:
    """The dynamic configs of each of `brokers` that has any."""
    pending = [(b, client.get_async(f"/config/{paths.broker_entity_path(b)}")) for b in brokers]
    configs = {broker: _data(read, paths.decode_topic_config) for broker, read in pending}
    return {broker: config for broker, config in configs.items() if config}


def write_quotas(
    client: KazooClient, changes: Mapping[ClientQuotaEntity, dict[str, float]]
) -> None:
    """Writes each entity's quotas (removing the znode of one left without any), then one
    change notification per entity."""
    for entity, quotas in changes.items():
        _write(client, paths.quota_entity_path(entity), paths.encode_quota_config(quotas), quotas)
    notify(client, [paths.quota_entity_path(entity) for entity in changes])


def write_broker_configs(client: KazooClient, broker: int | None, configs: dict[str, str]) -> None:
    """Writes a broker entity's dynamic configs (removing the znode when none are left),
    then its change notification."""
    entity_path = paths.broker_entity_path(broker)
    _write(client, entity_path, paths.encode_topic_config(configs), configs)
    notify(client, [entity_path])


def _write(client: KazooClient, entity_path: str, data: bytes, keep: Mapping[str, object]) -> None:
    path = f"/config/{entity_path}"
    if keep:
        try:
            client.set(path, data)
        except NoNodeError:
            client.create(path, data, makepath=True)
        return
    # A user znode that still holds client entities stays, emptied, as Kafka leaves it.
    with contextlib.suppress(NoNodeError):
        try:
            client.delete(path)
        except NotEmptyError:
            client.set(path, data)


def notify(client: KazooClient, entity_paths: Collection[str]) -> None:
    """One change notification per entity, then purges expired notifications."""
    for entity_path in entity_paths:
        client.create(
            f"{paths.CONFIG_CHANGES}/{paths.CONFIG_CHANGE_PREFIX}",
            paths.encode_config_change(entity_path),
            sequence=True,
        )
    _purge_changes(client)


def _purge_changes(client: KazooClient) -> None:
    """Deletes notifications older than Kafka's expiry, keeping the newest (brokers compare
    against it)."""
    children = _notifications(client, None)
    expired_before = time.time() * 1000 - paths.CONFIG_CHANGE_EXPIRATION_MS
    for name in children[:-1]:
        path = f"{paths.CONFIG_CHANGES}/{name}"
        with contextlib.suppress(NoNodeError):
            stat = client.exists(path)
            if stat is None or stat.ctime >= expired_before:
                break  # sequential: the rest are newer
            client.delete(path)
