"""Config entities as Kafka keeps them: one string map per entity, named by its type (Kafka's
`ConfigType`, a folder under `/config` in ZooKeeper) and its name there (`ConfigEntityZNode`).
Client quotas, SCRAM credentials, dynamic broker configs and group configs are all entity
configs; each manager reads and writes only its own keys, so two features that share an entity
(a user's quotas and its SCRAM credentials) never overwrite each other.

Names are stored as Kafka writes them: user and client ids sanitized (`sanitize`), `<default>`
for a default entity, and `<user>/clients/<client>` for a user's client (a znode under the
user's). A change notification names an entity by its path, `<type>/<name>`."""

from __future__ import annotations

import enum
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_ENTITY = "<default>"


class EntityType(enum.StrEnum):
    TOPICS = "topics"
    CLIENTS = "clients"
    USERS = "users"
    BROKERS = "brokers"
    IPS = "ips"
    GROUPS = "groups"


# The configs of entities of one type, by name (an empty map: the entity has none).
EntityConfigs = dict[str, dict[str, str]]
# Per entity: each key's new value, or None to remove it; keys not named stay as they are.
EntityChanges = Mapping[str, Mapping[str, str | None]]


@dataclass(frozen=True)
class ConfigChanges:
    """What changed since a broker last looked, by entity type. `full`: everything was read,
    so each type holds every entity the broker wants; otherwise only the changed ones, an empty
    map meaning the entity has no configs left."""

    full: bool
    entities: dict[EntityType, EntityConfigs] = field(default_factory=dict)


def entity_path(entity_type: EntityType, name: str) -> str:
    """`<type>/<name>`: the path under `/config`, as a change notification names it."""
    return f"{entity_type}/{name}"


def of_entity_path(path: str) -> tuple[EntityType, str] | None:
    """The (type, name) of a notification's entity path; None for a type ferrolog does not
    know."""
    kind, _, name = path.partition("/")
    if not name or kind not in EntityType.__members__.values():
        return None
    return EntityType(kind), name


def key_changes(current: Mapping[str, str], updated: Mapping[str, str]) -> dict[str, str | None]:
    """The key changes that turn `current` into `updated` (None: removed)."""
    changes: dict[str, str | None] = {k: None for k in current if k not in updated}
    changes.update({k: v for k, v in updated.items() if current.get(k) != v})
    return changes


def apply_key_changes(
    config: Mapping[str, str], changes: Mapping[str, str | None]
) -> dict[str, str]:
    altered = dict(config)
    for key, value in changes.items():
        if value is None:
            altered.pop(key, None)
        else:
            altered[key] = value
    return altered


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


def entity_name(name: str | None) -> str:
    """The stored name of a user or client id (None: the default entity)."""
    return DEFAULT_ENTITY if name is None else sanitize(name)


def name_of_entity(stored: str) -> str | None:
    """The user or client id of a stored name (None: the default entity)."""
    return None if stored == DEFAULT_ENTITY else desanitize(stored)
