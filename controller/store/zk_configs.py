"""Config entities in ZooKeeper (`ZkStore`'s quota, broker and group config calls), in Kafka's
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
import urllib.parse
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kazoo.client import KazooClient
from kazoo.exceptions import BadVersionError, NodeExistsError, NoNodeError, NotEmptyError
from kazoo.protocol.states import WatchedEvent

from ..quota.entity import CLIENT_ID, USER, ClientQuotaEntity, QuotaTable
from ..scram import BY_NAME as SCRAM_MECHANISMS
from ..scram import ScramChanges, ScramCredential, ScramTable
from . import zk_notifications as notifications
from . import zk_paths as paths
from .base import BrokerConfigs, GroupConfigs

Watcher = Callable[[WatchedEvent], None]
MechanismChanges = Mapping[str, ScramCredential | None]
V = TypeVar("V")


@dataclass(frozen=True)
class ConfigChanges:
    """What the notifications since the last read changed. `full`: everything was read, so
    `quotas` is the whole quota table and `brokers` has every wanted broker entity; otherwise
    they hold the changed entities only, an empty config meaning it was removed. `scram`:
    the SCRAM credentials of the users, `groups` the group configs, likewise."""

    full: bool
    quotas: QuotaTable = field(default_factory=dict)
    brokers: BrokerConfigs = field(default_factory=dict)
    scram: ScramTable = field(default_factory=dict)
    groups: GroupConfigs = field(default_factory=dict)


def read_changes(
    client: KazooClient,
    watch: Watcher | None,
    after: str | bool | None,
    brokers: Collection[int | None],
) -> tuple[str | None, ConfigChanges | None]:
    """The newest notification and what changed since `after` (the newest one seen before,
    None if there was none, False to read everything), for the broker entities `brokers`;
    None when nothing did."""
    names = notifications.names(client, paths.CONFIG_CHANGES, paths.CONFIG_CHANGE_PREFIX, watch)
    latest = names[-1] if names else None
    if after is False:
        quotas, scram = read_entities(client)
        brokers_read = read_broker_configs(client, brokers)
        everything = ConfigChanges(True, quotas, brokers_read, scram, read_group_configs(client))
        return latest, everything
    new = [n for n in names if after is None or n > str(after)]
    if not new:
        return latest, None
    pending = [client.get_async(f"{paths.CONFIG_CHANGES}/{n}") for n in new]
    entity_paths: set[str] = set()
    for read in pending:
        with contextlib.suppress(NoNodeError):  # purged meanwhile: older than any we miss
            entity_paths.add(decode_config_change(read.get()[0]))
    entity_reads = []
    broker_reads = []
    group_reads = []
    for entity_path in sorted(entity_paths):
        group = group_of_path(entity_path)
        if group is not None:
            group_reads.append((group, client.get_async(f"/config/{entity_path}")))
        entity = quota_entity_of_path(entity_path)
        if entity is not None:
            user = scram_user_of_path(entity_path)
            entity_reads.append((entity, user, client.get_async(f"/config/{entity_path}")))
        broker = broker_of_path(entity_path)
        if broker is not False and broker in brokers:
            assert not isinstance(broker, bool)
            broker_reads.append((broker, client.get_async(f"/config/{entity_path}")))
    quotas = {}
    scram = {}
    for entity, user, read in entity_reads:
        data = _data(read, bytes)
        quotas[entity] = decode_quota_config(data)
        if user is not None:
            scram[user] = decode_scram_config(data)
    configs = {broker: _data(read, paths.decode_topic_config) for broker, read in broker_reads}
    groups = {group: _data(read, paths.decode_topic_config) for group, read in group_reads}
    return latest, ConfigChanges(False, quotas, configs, scram, groups)


def _data(read: Any, decode: Callable[[bytes], V]) -> V:
    """The decoded data of an async read; a missing znode reads as empty."""
    try:
        data = read.get()[0]
    except NoNodeError:
        data = b""
    return decode(data)


def read_quotas(client: KazooClient) -> QuotaTable:
    return read_entities(client)[0]


def read_scram(client: KazooClient, users: Collection[str] | None = None) -> ScramTable:
    """Every user's SCRAM credentials, or those of `users` (one read each)."""
    if users is None:
        return read_entities(client)[1]
    pending = [(u, client.get_async(f"/config/{scram_user_path(u)}")) for u in users]
    found = {user: _data(read, decode_scram_config) for user, read in pending}
    return {user: credentials for user, credentials in found.items() if credentials}


def read_entities(client: KazooClient) -> tuple[QuotaTable, ScramTable]:
    """Every entity with quotas (`/config/clients/*`, `/config/users/*` and
    `/config/users/*/clients/*`) and every user with SCRAM credentials, in one pass."""
    reads: list[tuple[ClientQuotaEntity, str]] = []
    for name in client.get_children(paths.CONFIG_CLIENTS):
        reads.append((quota_entity(False, name), f"{paths.CONFIG_CLIENTS}/{name}"))
    for user in client.get_children(paths.CONFIG_USERS):
        user_path = f"{paths.CONFIG_USERS}/{user}"
        reads.append((quota_entity(user, False), user_path))
        with contextlib.suppress(NoNodeError):
            for name in client.get_children(f"{user_path}/clients"):
                reads.append((quota_entity(user, name), f"{user_path}/clients/{name}"))
    pending = [(entity, path, client.get_async(path)) for entity, path in reads]
    quotas: QuotaTable = {}
    scram: ScramTable = {}
    for entity, path, read in pending:
        data = _data(read, bytes)
        if config := decode_quota_config(data):
            quotas[entity] = config
        user = scram_user_of_path(path.removeprefix("/config/"))
        if user is not None and (credentials := decode_scram_config(data)):
            scram[user] = credentials
    return quotas, scram


def read_broker_configs(client: KazooClient, brokers: Collection[int | None]) -> BrokerConfigs:
    """The dynamic configs of each of `brokers` that has any."""
    pending = [(b, client.get_async(f"/config/{broker_entity_path(b)}")) for b in brokers]
    configs = {broker: _data(read, paths.decode_topic_config) for broker, read in pending}
    return {broker: config for broker, config in configs.items() if config}


def read_group_configs(client: KazooClient) -> GroupConfigs:
    """The configs of every group that has any."""
    pending = [
        (desanitize(name), client.get_async(f"{paths.CONFIG_GROUPS}/{name}"))
        for name in client.get_children(paths.CONFIG_GROUPS)
    ]
    configs = {group: _data(read, paths.decode_topic_config) for group, read in pending}
    return {group: config for group, config in configs.items() if config}


def write_group_configs(client: KazooClient, group: str, configs: dict[str, str]) -> None:
    """Writes a group's configs (removing the znode when none are left), then its change
    notification."""
    entity_path = group_entity_path(group)
    _write(client, entity_path, paths.encode_topic_config(configs), configs)
    notify(client, [entity_path])


def write_quotas(
    client: KazooClient, changes: Mapping[ClientQuotaEntity, dict[str, float]]
) -> None:
    """Replaces each entity's quotas, keeping a user's SCRAM credentials (removing the znode
    of one left with nothing), then one change notification per entity."""
    for entity, quotas in changes.items():

        def replace(config: dict[str, str], quotas: dict[str, float] = quotas) -> dict[str, str]:
            kept = {k: v for k, v in config.items() if is_scram_key(k)}
            return {**kept, **quota_config(quotas)}

        _update_entity(client, quota_entity_path(entity), replace)
    notify(client, [quota_entity_path(entity) for entity in changes])


def write_scram(client: KazooClient, changes: ScramChanges) -> None:
    """Sets or removes each user's credential of each mechanism named, keeping the rest of
    its config (its quotas, its other mechanism), then one change notification per user."""
    for user, mechanisms in changes.items():

        def alter(
            config: dict[str, str], mechanisms: MechanismChanges = mechanisms
        ) -> dict[str, str]:
            altered = dict(config)
            for name, credential in mechanisms.items():
                if credential is None:
                    altered.pop(name, None)
                else:
                    altered[name] = credential.to_config()
            return altered

        _update_entity(client, scram_user_path(user), alter)
    notify(client, [scram_user_path(user) for user in changes])


def _update_entity(
    client: KazooClient, entity_path: str, change: Callable[[dict[str, str]], dict[str, str]]
) -> None:
    """Read, change, compare-and-set of an entity's config map: quotas and SCRAM credentials
    share a user's znode and any broker may write either, so a write that lost a race is
    redone on what won it rather than overwriting it."""
    path = f"/config/{entity_path}"
    while True:
        try:
            data, stat = client.get(path)
        except NoNodeError:
            config = change({})
            if not config:
                return
            with contextlib.suppress(NodeExistsError):
                client.create(path, encode_entity_config(config), makepath=True)
                return
            continue
        config = change(decode_entity_config(data))
        encoded = encode_entity_config(config)
        try:
            if config:
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


def write_broker_configs(client: KazooClient, broker: int | None, configs: dict[str, str]) -> None:
    """Writes a broker entity's dynamic configs (removing the znode when none are left),
    then its change notification."""
    entity_path = broker_entity_path(broker)
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
            encode_config_change(entity_path),
            sequence=True,
        )
    notifications.purge(client, paths.CONFIG_CHANGES, paths.CONFIG_CHANGE_PREFIX)


# /config/users, /config/clients and /config/changes (client quotas)


def sanitize(name: str) -> str:
    """Kafka's `Sanitizer.sanitize`: URL encoding, with `*` and spaces encoded too, so any
    name is one znode name and none is `<default>`. Beyond Kafka, "." and ".." are encoded
    too: ZooKeeper refuses them as znode names (`ferrolog fuzz` found a user ".." failing
    AlterUserScramCredentials), and nothing else can be stored under them anyway."""
    if name in (".", ".."):
        return name.replace(".", "%2E")
    return urllib.parse.quote(name, safe="-_.").replace("~", "%7E")


def desanitize(name: str) -> str:
    return urllib.parse.unquote(name)


def _znode_name(name: str | None) -> str:
    return paths.DEFAULT_ENTITY if name is None else sanitize(name)


def _entity_name(znode: str) -> str | None:
    return None if znode == paths.DEFAULT_ENTITY else desanitize(znode)


def quota_entity_path(entity: ClientQuotaEntity) -> str:
    """`users/<user>/clients/<client-id>`, `users/<user>` or `clients/<client-id>`: the path
    under `/config`, as change notifications name it."""
    parts = entity.as_dict()
    if USER in parts:
        path = f"users/{_znode_name(parts[USER])}"
        if CLIENT_ID in parts:
            path += f"/clients/{_znode_name(parts[CLIENT_ID])}"
        return path
    return f"clients/{_znode_name(parts[CLIENT_ID])}"


def quota_entity_of_path(entity_path: str) -> ClientQuotaEntity | None:
    """The quota entity a change notification names (None: not a quota entity)."""
    parts = entity_path.split("/")
    if len(parts) == 2 and parts[0] == "clients":
        return quota_entity(False, parts[1])
    if len(parts) == 2 and parts[0] == "users":
        return quota_entity(parts[1], False)
    if len(parts) == 4 and parts[0] == "users" and parts[2] == "clients":
        return quota_entity(parts[1], parts[3])
    return None


def quota_entity(user: str | bool, client: str | bool) -> ClientQuotaEntity:
    """The entity of znode names (`False`: no such part)."""
    return ClientQuotaEntity.of(
        user=user if user is False else _entity_name(str(user)),
        client_id=client if client is False else _entity_name(str(client)),
    )


def quota_config(quotas: dict[str, float]) -> dict[str, str]:
    """The config values of quotas, as Kafka writes them (integral rates without a point)."""
    return {k: str(int(v)) if v.is_integer() else repr(v) for k, v in sorted(quotas.items())}


def encode_entity_config(config: dict[str, str]) -> bytes:
    """A quota entity's config map (quotas and, for a user, SCRAM credentials)."""
    return paths.dumps({"version": 1, "config": dict(config)})


def decode_entity_config(data: bytes) -> dict[str, str]:
    if not data:
        return {}
    return {str(k): str(v) for k, v in paths.loads(data).get("config", {}).items()}


def encode_quota_config(quotas: dict[str, float]) -> bytes:
    return encode_entity_config(quota_config(quotas))


def is_scram_key(key: str) -> bool:
    return key in SCRAM_MECHANISMS


def decode_quota_config(data: bytes) -> dict[str, float]:
    """The quotas of an entity's config (its SCRAM credentials left out)."""
    config = decode_entity_config(data)
    return {k: float(v) for k, v in config.items() if not is_scram_key(k)}


def decode_scram_config(data: bytes) -> dict[str, ScramCredential]:
    """The SCRAM credentials of a user's config, by mechanism name."""
    credentials: dict[str, ScramCredential] = {}
    for key, value in decode_entity_config(data).items():
        if is_scram_key(key):
            # One malformed value (written by hand) loses that credential, not the sync of
            # every config entity.
            with contextlib.suppress(ValueError):
                credentials[key] = ScramCredential.from_config(value)
    return credentials


def scram_user_path(user: str) -> str:
    """`users/<sanitized user>`: the path under `/config` of a user's config, as change
    notifications name it."""
    return f"users/{sanitize(user)}"


def scram_user_of_path(entity_path: str) -> str | None:
    """The user whose SCRAM credentials a change notification may have changed (None: the
    entity has none: a client, the default user, a user's client)."""
    parts = entity_path.split("/")
    if len(parts) == 2 and parts[0] == "users" and parts[1] != paths.DEFAULT_ENTITY:
        return desanitize(parts[1])
    return None


def encode_config_change(entity_path: str) -> bytes:
    return paths.dumps({"version": 2, "entity_path": entity_path})


def decode_config_change(data: bytes) -> str:
    """The entity path a change notification names."""
    return str(paths.loads(data).get("entity_path", ""))


# /config/brokers


def broker_entity_path(broker: int | None) -> str:
    """`brokers/<id>`, or `brokers/<default>` for the cluster default (None)."""
    return f"brokers/{paths.DEFAULT_ENTITY if broker is None else broker}"


def broker_of_path(entity_path: str) -> int | bool | None:
    """The broker a change notification names: its id, None for the default, False when it
    names no broker entity."""
    kind, _, name = entity_path.partition("/")
    if kind != "brokers":
        return False
    if name == paths.DEFAULT_ENTITY:
        return None
    return int(name) if name.isdigit() else False


def group_entity_path(group: str) -> str:
    """`groups/<sanitized group>`: the path under `/config` of a group's configs."""
    return f"groups/{sanitize(group)}"


def group_of_path(entity_path: str) -> str | None:
    """The group a change notification names (None: it names no group entity)."""
    kind, _, name = entity_path.partition("/")
    return desanitize(name) if kind == "groups" and name and "/" not in name else None
