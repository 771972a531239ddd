"""Kafka's ACL model with its wire codes and names: resource patterns, access control entries,
bindings, and the filters of DescribeAcls and DeleteAcls (`ResourcePatternFilter`,
`AccessControlEntryFilter`) with Kafka's matching rules.

The decision itself (which ACLs grant a request) is made once, in the native core
(`native/src/acl`); this module only describes, stores and filters ACLs."""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TypeVar

from ferrolog.errors import InvalidRequestError

CLUSTER_NAME = "kafka-cluster"
WILDCARD_RESOURCE = "*"
WILDCARD_PRINCIPAL = "User:*"
WILDCARD_HOST = "*"

E = TypeVar("E", bound=enum.Enum)


class ResourceType(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class AclOperation(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14


class AclPermissionType(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


def camel_name(member: enum.Enum) -> str:
    """Kafka's `SecurityUtils` names (`ClusterAction`, `TransactionalId`, `Allow`): the names
    of the ZooKeeper paths and of the JSON of an ACL znode."""
    return "".join(part.capitalize() for part in member.name.split("_"))


def parse_name(kind: type[E], name: str) -> E:
    """The member `name` denotes, however cased, with or without underscores (Kafka's
    `SecurityUtils` and `fromString` accept both spellings); ValueError otherwise."""
    wanted = name.replace("_", "").upper()
    for member in kind:
        if member.name.replace("_", "") == wanted:
            return member
    raise ValueError(f"unknown {kind.__name__} {name!r}")


@dataclass(frozen=True, order=True)
class ResourcePattern:
    resource_type: ResourceType
    name: str
    pattern_type: PatternType


@dataclass(frozen=True, order=True)
class AccessControlEntry:
    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType


@dataclass(frozen=True, order=True)
class AclBinding:
    pattern: ResourcePattern
    entry: AccessControlEntry


# Every stored ACL: its entries by resource pattern.
AclTable = dict[ResourcePattern, frozenset[AccessControlEntry]]
# Entries to add or remove, by resource pattern.
AclChanges = Mapping[ResourcePattern, Collection[AccessControlEntry]]


def validate_binding(binding: AclBinding) -> None:
    """Kafka's checks of an ACL to create (`AclApis.createAcls` and the request's own
    validation); raises InvalidRequestError."""
    pattern, entry = binding.pattern, binding.entry
    if (
        pattern.resource_type in (ResourceType.UNKNOWN, ResourceType.ANY)
        or pattern.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED)
        or entry.operation in (AclOperation.UNKNOWN, AclOperation.ANY)
        or entry.permission_type not in (AclPermissionType.ALLOW, AclPermissionType.DENY)
    ):
        raise InvalidRequestError("ACL binding contains unknown elements")
    if pattern.resource_type == ResourceType.CLUSTER and pattern.name != CLUSTER_NAME:
        raise InvalidRequestError(f"The only valid name for the CLUSTER resource is {CLUSTER_NAME}")
    if not pattern.name:
        raise InvalidRequestError("Invalid empty resource name specified")
    if "/" in pattern.name or pattern.name in (".", ".."):
        # Kafka's ZooKeeper layout keeps each pattern in a znode named after it, which these
        # names cannot be (a ZooKeeper-mode Kafka fails on them); refused in every mode, so a
        # single broker's ACLs carry over to a cluster.
        raise InvalidRequestError(
            f"Invalid resource name {pattern.name!r}: '/', '.' and '..' cannot name a znode"
        )
    principal_type, sep, principal_name = entry.principal.partition(":")
    if not sep or not principal_type or not principal_name:
        raise InvalidRequestError(f"Could not parse principal from `{entry.principal}`")
    if not entry.host:
        raise InvalidRequestError("Invalid empty host specified")


@dataclass(frozen=True)
class AclBindingFilter:
    """DescribeAcls' and DeleteAcls' filter: None (or ANY) matches everything of a field;
    MATCH as pattern type matches the patterns that would grant the named resource."""

    resource_type: ResourceType
    name: str | None
    pattern_type: PatternType
    principal: str | None
    host: str | None
    operation: AclOperation
    permission_type: AclPermissionType

    def validate(self) -> None:
        """Kafka refuses filters with UNKNOWN elements."""
        if (
            self.resource_type == ResourceType.UNKNOWN
            or self.pattern_type == PatternType.UNKNOWN
            or self.operation == AclOperation.UNKNOWN
            or self.permission_type == AclPermissionType.UNKNOWN
        ):
            raise InvalidRequestError("The filter contains UNKNOWN elements")

    def matches_pattern(self, pattern: ResourcePattern) -> bool:
        """Kafka's `ResourcePatternFilter.matches`."""
        if self.resource_type != ResourceType.ANY and self.resource_type != pattern.resource_type:
            return False
        if self.pattern_type not in (PatternType.ANY, PatternType.MATCH) and (
            self.pattern_type != pattern.pattern_type
        ):
            return False
        if self.name is None:
            return True
        if self.pattern_type in (PatternType.ANY, pattern.pattern_type):
            return self.name == pattern.name
        if pattern.pattern_type == PatternType.LITERAL:
            return self.name == pattern.name or pattern.name == WILDCARD_RESOURCE
        return self.name.startswith(pattern.name)

    def matches_entry(self, entry: AccessControlEntry) -> bool:
        """Kafka's `AccessControlEntryFilter.matches`."""
        return (
            (self.principal is None or self.principal == entry.principal)
            and (self.host is None or self.host == entry.host)
            and self.operation in (AclOperation.ANY, entry.operation)
            and self.permission_type in (AclPermissionType.ANY, entry.permission_type)
        )

    def matches(self, binding: AclBinding) -> bool:
        return self.matches_pattern(binding.pattern) and self.matches_entry(binding.entry)


def native_acls(table: AclTable) -> list[tuple[int, int, str, str, str, int, int]]:
    """The rows `ferrolog_native.Server.set_acls` takes."""
    return [
        (
            int(p.resource_type),
            int(p.pattern_type),
            p.name,
            e.principal,
            e.host,
            int(e.operation),
            int(e.permission_type),
        )
        for p, entries in table.items()
        for e in entries
    ]
