"""Client quotas in ZooKeeper (`ZkStore`'s quota calls), in Kafka's layout (`zk_paths`): one
config znode per entity, and a sequential change notification per write that every broker
watches, so a change reaches every broker within a watch round trip, without a restart.

Brokers re-read the whole quota tree when the newest notification differs from the one they
last saw: quota entities are few, and a level-triggered read cannot miss a change the way
processing notifications one by one could.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError, NotEmptyError
from kazoo.protocol.states import WatchedEvent

from ..quota.entity import ClientQuotaEntity, QuotaTable
from . import zk_paths as paths

Watcher = Callable[[WatchedEvent], None]


def latest_change(client: KazooClient, watch: Watcher | None) -> str | None:
    """The newest change notification's name (None: there is none); `watch` fires on the
    next one."""
    children = client.get_children(paths.CONFIG_CHANGES, watch=watch)
    changes = [c for c in children if c.startswith(paths.CONFIG_CHANGE_PREFIX)]
    return max(changes) if changes else None


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
        try:
            config = paths.decode_quota_config(read.get()[0])
        except NoNodeError:
            continue
        if config:
            quotas[entity] = config
    return quotas


def write_quotas(
    client: KazooClient, changes: Mapping[ClientQuotaEntity, dict[str, float]]
) -> None:
    """Writes each entity's quotas (removing the znode of one left without any), then one
    change notification per entity, then purges expired notifications."""
    for entity, quotas in changes.items():
        path = f"/config/{paths.quota_entity_path(entity)}"
        if quotas:
            data = paths.encode_quota_config(quotas)
            try:
                client.set(path, data)
            except NoNodeError:
                client.create(path, data, makepath=True)
        else:
            # A user znode that still holds client entities stays, emptied, as Kafka leaves it.
            with contextlib.suppress(NoNodeError):
                try:
                    client.delete(path)
                except NotEmptyError:
                    client.set(path, paths.encode_quota_config({}))
    for entity in changes:
        client.create(
            f"{paths.CONFIG_CHANGES}/{paths.CONFIG_CHANGE_PREFIX}",
            paths.encode_config_change(paths.quota_entity_path(entity)),
            sequence=True,
        )
    _purge_changes(client)


def _purge_changes(client: KazooClient) -> None:
    """Deletes notifications older than Kafka's expiry, keeping the newest (brokers compare
    against it)."""
    children = sorted(
        c
        for c in client.get_children(paths.CONFIG_CHANGES)
        if c.startswith(paths.CONFIG_CHANGE_PREFIX)
    )
    expired_before = time.time() * 1000 - paths.CONFIG_CHANGE_EXPIRATION_MS
    for name in children[:-1]:
        path = f"{paths.CONFIG_CHANGES}/{name}"
        with contextlib.suppress(NoNodeError):
            stat = client.exists(path)
            if stat is None or stat.ctime >= expired_before:
                break  # sequential: the rest are newer
            client.delete(path)
