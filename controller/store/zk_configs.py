"""Config entities in ZooKeeper (`ZkStore.entity_configs` and its change stream), in Kafka's
layout (`zk_paths`): one config znode per entity (`/config/clients/<id>`, `/config/users/...`,
`/config/brokers/<id>`, `/config/brokers/<default>`, `/config/groups/<group>`), and a
sequential change notification per changed entity, naming it, that every broker watches. A
change reaches every broker within a watch round trip, without a restart.

A broker processes the notifications newer than the last one it saw and re-reads only the
entities they name (Kafka's `ZkNodeChangeNotificationListener`), so a change costs each broker
one read per changed entity, however many entities exist. It reads everything only on its
first pass and after a connection state change, when it may have missed a notification that
has since expired.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Mapping
from typing import Any

from kazoo.client import KazooClient
from kazoo.exceptions import BadVersionError, NodeExistsError, NoNodeError, NotEmptyError
from kazoo.protocol.states import WatchedEvent

from . import zk_notifications as notifications
from . import zk_paths as paths
from .entities import (
    ConfigChanges,
    EntityChanges,
    EntityConfigs,
    EntityType,
    apply_key_changes,
    entity_path,
    of_entity_path,
)

Watcher = Callable[[WatchedEvent], None]

# The entity types a broker follows through change notifications (topics' configs come with
# the cluster view).
FOLLOWED = (
    EntityType.CLIENTS,
    EntityType.USERS,
    EntityType.IPS,
    EntityType.BROKERS,
    EntityType.GROUPS,
)


def read_changes(
    client: KazooClient,
    watch: Watcher | None,
    after: str | bool | None,
    brokers: Collection[str],
) -> tuple[str | None, ConfigChanges | None]:
    """The newest notification and what changed since `after` (the newest one seen before,
    None if there was none, False to read everything), of the broker entities named `brokers`
    and every entity of the other followed types; None when nothing did."""
    names = notifications.names(client, paths.CONFIG_CHANGES, paths.CONFIG_CHANGE_PREFIX, watch)
    latest = names[-1] if names else None
    if after is False:
        everything = {
            t: read_entities(client, t, brokers if t is EntityType.BROKERS else None)
            for t in FOLLOWED
        }
        return latest, ConfigChanges(True, everything)
    new = [n for n in names if after is None or n > str(after)]
    if not new:
        return latest, None
    pending = [client.get_async(f"{paths.CONFIG_CHANGES}/{n}") for n in new]
    changed: dict[EntityType, set[str]] = {}
    for read in pending:
        with contextlib.suppress(NoNodeError):  # purged meanwhile: older than any we miss
            entity = of_entity_path(decode_config_change(read.get()[0]))
            if entity is None or entity[0] not in FOLLOWED:
                continue
            if entity[0] is EntityType.BROKERS and entity[1] not in brokers:
                continue
            changed.setdefault(entity[0], set()).add(entity[1])
    return latest, ConfigChanges(
        False, {t: read_entities(client, t, sorted(n)) for t, n in changed.items()}
    )


def read_entities(
    client: KazooClient, entity_type: EntityType, names: Collection[str] | None = None
) -> EntityConfigs:
    """The configs of the entities `names` of `entity_type` (None: every one stored, a user's
    clients too), in one round of reads; an entity without a znode reads as empty."""
    if names is None:
        names = _stored_names(client, entity_type)
    pending = [(n, client.get_async(f"/config/{entity_path(entity_type, n)}")) for n in names]
    return {name: _config(read) for name, read in pending}


def _stored_names(client: KazooClient, entity_type: EntityType) -> list[str]:
    root = f"/config/{entity_type}"
    try:
        names = client.get_children(root)
    except NoNodeError:
        return []
    if entity_type is not EntityType.USERS:
        return sorted(names)
    found = []
    for user in sorted(names):
        found.append(user)
        with contextlib.suppress(NoNodeError):
            found += [
                f"{user}/clients/{c}" for c in sorted(client.get_children(f"{root}/{user}/clients"))
            ]
    return found


def _config(read: Any) -> dict[str, str]:
    try:
        data = read.get()[0]
    except NoNodeError:
        data = b""
    return decode_entity_config(data)


def alter_entities(client: KazooClient, entity_type: EntityType, changes: EntityChanges) -> None:
    """Applies each entity's key changes (read, change, compare-and-set: features that share
    an entity, such as a user's quotas and SCRAM credentials, may be written by any broker at
    once, and a write that lost a race is redone on what won it), removing the znode of an
    entity left with nothing, then one change notification per entity."""
    for name, key_changes in changes.items():
        # A topic's config znode stays, emptied, while the topic exists, as in Kafka.
        keep = entity_type is EntityType.TOPICS
        _update_entity(client, entity_path(entity_type, name), key_changes, keep)
    notify(client, [entity_path(entity_type, name) for name in changes])


def _update_entity(
    client: KazooClient,
    path_below_config: str,
    changes: Mapping[str, str | None],
    keep: bool = False,
) -> None:
    path = f"/config/{path_below_config}"
    while True:
        try:
            data, stat = client.get(path)
        except NoNodeError:
            config = apply_key_changes({}, changes)
            if not config and not keep:
                return
            with contextlib.suppress(NodeExistsError):
                client.create(path, encode_entity_config(config), makepath=True)
                return
            continue
        config = apply_key_changes(decode_entity_config(data), changes)
        encoded = encode_entity_config(config)
        try:
            if config or keep:
                client.set(path, encoded, version=stat.version)
                return
            try:
                client.delete(path, version=stat.version)
            except NotEmptyError:
                # A user znode that still holds client entities stays, emptied, as in Kafka.
                client.set(path, encoded, version=stat.version)
            return
        except (BadVersionError, NoNodeError):
            continue


def notify(client: KazooClient, entity_paths: Collection[str]) -> None:
    """One change notification per entity, then purges expired notifications."""
    for path in entity_paths:
        client.create(
            f"{paths.CONFIG_CHANGES}/{paths.CONFIG_CHANGE_PREFIX}",
            encode_config_change(path),
            sequence=True,
        )
    notifications.purge(client, paths.CONFIG_CHANGES, paths.CONFIG_CHANGE_PREFIX)


def encode_entity_config(config: Mapping[str, str]) -> bytes:
    """An entity's config znode, as Kafka writes it."""
    return paths.dumps({"version": 1, "config": dict(config)})


def decode_entity_config(data: bytes) -> dict[str, str]:
    if not data:
        return {}
    return {str(k): str(v) for k, v in paths.loads(data).get("config", {}).items()}


def encode_config_change(path: str) -> bytes:
    return paths.dumps({"version": 2, "entity_path": path})


def decode_config_change(data: bytes) -> str:
    """The entity path a change notification names."""
    return str(paths.loads(data).get("entity_path", ""))
