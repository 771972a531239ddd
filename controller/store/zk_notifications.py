"""Kafka's change notifications in ZooKeeper (`ZkNodeChangeNotificationListener`): sequential
znodes under a change root, each naming one changed entity (a config entity, an ACL resource
pattern, a delegation token), which every broker watches to re-read only what changed. Old
ones are purged after `CONFIG_CHANGE_EXPIRATION_MS`, keeping the newest (brokers compare
against it)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError
from kazoo.protocol.states import WatchedEvent

from . import zk_paths as paths

Watcher = Callable[[WatchedEvent], None]


def names(client: KazooClient, root: str, prefix: str, watch: Watcher | None) -> list[str]:
    """The notifications under `root`, oldest first; `watch` fires on the next one."""
    children = client.get_children(root, watch=watch)
    return sorted(c for c in children if c.startswith(prefix))


def notify(client: KazooClient, root: str, prefix: str, data: bytes) -> None:
    """Writes one notification, then purges the expired ones."""
    client.create(f"{root}/{prefix}", data, sequence=True)
    purge(client, root, prefix)


def purge(client: KazooClient, root: str, prefix: str) -> None:
    """Deletes notifications older than Kafka's expiry, keeping the newest."""
    children = names(client, root, prefix, None)
    expired_before = time.time() * 1000 - paths.CONFIG_CHANGE_EXPIRATION_MS
    for name in children[:-1]:
        path = f"{root}/{name}"
        with contextlib.suppress(NoNodeError):
            stat = client.exists(path)
            if stat is None or stat.ctime >= expired_before:
                break  # sequential: the rest are newer
            client.delete(path)
