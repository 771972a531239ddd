"""ACLs in ZooKeeper (`ZkStore`'s ACL calls), in Kafka's layout (`zk_paths`): one znode per
resource pattern under `/kafka-acl` (literal) and `/kafka-acl-extended/prefixed`, and a
sequential change notification per changed pattern under `/kafka-acl-changes` or
`/kafka-acl-extended-changes`, which every broker watches.

As for config entities (`zk_configs`), a broker re-reads only the patterns the notifications
newer than the last one it saw name, and reads everything on its first pass and after a
connection state change. Kafka's `AclAuthorizer` writes and reads the same znodes, so the tree
reads as Kafka's in `zkCli.sh`."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from kazoo.client import KazooClient
from kazoo.exceptions import BadVersionError, NodeExistsError, NoNodeError, NotEmptyError
from kazoo.protocol.states import WatchedEvent

from ..acl.model import (
    AccessControlEntry,
    AclChanges,
    AclOperation,
    AclPermissionType,
    AclTable,
    PatternType,
    ResourcePattern,
    camel_name,
    parse_name,
)
from ..acl.model import ResourceType as AclResourceType
from . import zk_notifications as notifications
from . import zk_paths as paths

log = logging.getLogger(__name__)

Watcher = Callable[[WatchedEvent], None]
CHANGE_ROOTS = (paths.ACL_LITERAL_CHANGES, paths.ACL_EXTENDED_CHANGES)
PREFIX = paths.ACL_CHANGE_PREFIX
# The newest notification seen under each change root (None: there was none).
Seen = dict[str, str | None]
Entries = frozenset[AccessControlEntry]


def read_all(client: KazooClient) -> AclTable:
    """Every ACL, one read per resource pattern."""
    reads = []
    for root, pattern_type in (
        (paths.ACL_LITERAL, PatternType.LITERAL),
        (paths.ACL_PREFIXED, PatternType.PREFIXED),
    ):
        with contextlib.suppress(NoNodeError):
            for type_name in client.get_children(root):
                try:
                    resource_type = parse_name(AclResourceType, type_name)
                except ValueError:
                    continue  # a resource type ferrolog does not know: not ours to judge
                type_path = f"{root}/{type_name}"
                for name in client.get_children(type_path):
                    pattern = ResourcePattern(resource_type, name, pattern_type)
                    reads.append((pattern, client.get_async(f"{type_path}/{name}")))
    table: AclTable = {}
    for pattern, read in reads:
        entries = _entries(read)
        if entries:
            table[pattern] = entries
    return table


def _entries(read: Any) -> frozenset[AccessControlEntry]:
    try:
        data = read.get()[0]
    except NoNodeError:
        return frozenset()
    return decode_acls(data)


def read_changes(
    client: KazooClient, watch: Watcher | None, seen: Seen | None
) -> tuple[Seen, AclTable | None, bool]:
    """(the newest notification of each root, what changed since `seen` or everything when
    `seen` is None, whether that is everything); None when nothing changed."""
    names = {root: notifications.names(client, root, PREFIX, watch) for root in CHANGE_ROOTS}
    latest: Seen = {root: (n[-1] if n else None) for root, n in names.items()}
    if seen is None:
        return latest, read_all(client), True
    pending = []
    for root, children in names.items():
        after = seen.get(root)
        for name in children:
            if after is None or name > after:
                pending.append((root, client.get_async(f"{root}/{name}")))
    if not pending:
        return latest, None, False
    patterns: set[ResourcePattern] = set()
    for root, read in pending:
        try:
            patterns.add(decode_acl_change(root, read.get()[0]))
        except NoNodeError:
            continue  # purged meanwhile: older than any we miss
        except (ValueError, KeyError) as exc:
            log.warning("ignoring an ACL change notification that is not Kafka's: %r", exc)
    reads = [(p, client.get_async(acl_path(p))) for p in patterns]
    return latest, {p: _entries(read) for p, read in reads}, False


def alter(client: KazooClient, additions: AclChanges, removals: AclChanges) -> AclTable:
    """Read, change, compare-and-set of each named pattern's znode (any broker may write
    one), then one change notification per pattern that changed."""
    written: AclTable = {}
    changed = []
    for pattern in set(additions) | set(removals):
        add = frozenset(additions.get(pattern, ()))
        remove = frozenset(removals.get(pattern, ()))
        entries, did_change = _update(client, acl_path(pattern), add, remove)
        written[pattern] = entries
        if did_change:
            changed.append(pattern)
    for pattern in changed:
        client.create(
            f"{acl_changes_path(pattern.pattern_type)}/{paths.ACL_CHANGE_PREFIX}",
            encode_acl_change(pattern),
            sequence=True,
            makepath=True,
        )
    if changed:
        for root in CHANGE_ROOTS:
            notifications.purge(client, root, PREFIX)
    return written


def _update(client: KazooClient, path: str, add: Entries, remove: Entries) -> tuple[Entries, bool]:
    while True:
        try:
            data, stat = client.get(path)
        except NoNodeError:
            entries = add - remove
            if not entries:
                return frozenset(), False
            with contextlib.suppress(NodeExistsError):
                client.create(path, encode_acls(entries), makepath=True)
                return entries, True
            continue
        current = decode_acls(data)
        entries = (current | add) - remove
        if entries == current:
            return current, False
        try:
            if entries:
                client.set(path, encode_acls(entries), version=stat.version)
            else:
                client.delete(path, version=stat.version)
            return entries, True
        except (BadVersionError, NoNodeError, NotEmptyError):
            continue


# ACLs (Kafka's `ZkAclStore`, `ResourceZNode` and `ZkAclChangeStore`)


def acl_root(pattern_type: PatternType) -> str:
    return paths.ACL_LITERAL if pattern_type == PatternType.LITERAL else paths.ACL_PREFIXED


def acl_path(pattern: ResourcePattern) -> str:
    return f"{acl_root(pattern.pattern_type)}/{camel_name(pattern.resource_type)}/{pattern.name}"


def acls_json(entries: frozenset[AccessControlEntry]) -> dict[str, Any]:
    """Kafka's JSON of a resource pattern's ACLs (`AclEntry.toJsonCompatibleMap`)."""
    acls = [
        {
            "principal": e.principal,
            "permissionType": camel_name(e.permission_type),
            "operation": camel_name(e.operation),
            "host": e.host,
        }
        for e in sorted(entries)
    ]
    return {"version": 1, "acls": acls}


def encode_acls(entries: frozenset[AccessControlEntry]) -> bytes:
    return paths.dumps(acls_json(entries))


def decode_acls(data: bytes) -> frozenset[AccessControlEntry]:
    return acls_from_json(paths.loads(data)) if data else frozenset()


def acls_from_json(value: dict[str, Any]) -> frozenset[AccessControlEntry]:
    return frozenset(
        AccessControlEntry(
            principal=a["principal"],
            host=a["host"],
            operation=parse_name(AclOperation, a["operation"]),
            permission_type=parse_name(AclPermissionType, a["permissionType"]),
        )
        for a in value.get("acls", [])
    )


def acl_changes_path(pattern_type: PatternType) -> str:
    if pattern_type == PatternType.LITERAL:
        return paths.ACL_LITERAL_CHANGES
    return paths.ACL_EXTENDED_CHANGES


def encode_acl_change(pattern: ResourcePattern) -> bytes:
    """Kafka's change notification: `TOPIC:<name>` for a literal pattern, JSON for others."""
    if pattern.pattern_type == PatternType.LITERAL:
        return f"{pattern.resource_type.name}:{pattern.name}".encode()
    return paths.dumps(
        {
            "version": 1,
            "resourceType": pattern.resource_type.name,
            "name": pattern.name,
            "patternType": pattern.pattern_type.name,
        }
    )


def decode_acl_change(changes_path: str, data: bytes) -> ResourcePattern:
    """Raises ValueError (or KeyError) for a notification that is not Kafka's."""
    if changes_path == paths.ACL_LITERAL_CHANGES:
        resource_type, sep, name = data.decode().partition(":")
        if not sep:
            raise ValueError(f"not a resource type and name: {data!r}")
        resource = parse_name(AclResourceType, resource_type)
        return ResourcePattern(resource, name, PatternType.LITERAL)
    event = paths.loads(data)
    return ResourcePattern(
        parse_name(AclResourceType, event["resourceType"]),
        event["name"],
        parse_name(PatternType, event["patternType"]),
    )
