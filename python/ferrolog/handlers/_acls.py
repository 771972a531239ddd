"""What DescribeAcls, CreateAcls and DeleteAcls share: the wire's codes turned into Kafka's ACL
types, and the answers Kafka gives before looking at any ACL."""

from __future__ import annotations

import enum
from typing import TypeVar

from ferrolog.controller.api import (
    CLUSTER_NAME,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from ferrolog.errors import (
    ClusterAuthorizationFailedError,
    GroupAuthorizationFailedError,
    KafkaError,
    SecurityDisabledError,
    TopicAuthorizationFailedError,
)
from ferrolog.handlers._resources import ConfigResourceType
from ferrolog.handlers.context import RequestContext

E = TypeVar("E", bound=enum.IntEnum)


# The operations that apply to a topic and to the cluster (Kafka's `AclEntry.supportedOperations`):
# the authorized-operations bit fields are made of these, each bit an AclOperation code.
TOPIC_OPERATIONS = (
    AclOperation.READ,
    AclOperation.WRITE,
    AclOperation.CREATE,
    AclOperation.DELETE,
    AclOperation.ALTER,
    AclOperation.DESCRIBE,
    AclOperation.DESCRIBE_CONFIGS,
    AclOperation.ALTER_CONFIGS,
)
CLUSTER_OPERATIONS = (
    AclOperation.CREATE,
    AclOperation.ALTER,
    AclOperation.DESCRIBE,
    AclOperation.CLUSTER_ACTION,
    AclOperation.DESCRIBE_CONFIGS,
    AclOperation.ALTER_CONFIGS,
    AclOperation.IDEMPOTENT_WRITE,
)


def code(kind: type[E], value: int) -> E:
    """The member with wire code `value`; UNKNOWN (0) for a code Kafka does not have."""
    try:
        return kind(value)
    except ValueError:
        return kind(0)


def require_config_access(
    ctx: RequestContext, operation: AclOperation, resource_type: int, name: str
) -> None:
    """Kafka's check of a config resource (DescribeConfigs: DESCRIBE_CONFIGS; AlterConfigs and
    IncrementalAlterConfigs: ALTER_CONFIGS): on the topic for a topic (else
    TOPIC_AUTHORIZATION_FAILED), on the group for a group (else GROUP_AUTHORIZATION_FAILED),
    on the cluster for a broker or broker logger (else CLUSTER_AUTHORIZATION_FAILED)."""
    if resource_type == ConfigResourceType.TOPIC:
        if not ctx.authorize(operation, ResourceType.TOPIC, name):
            raise TopicAuthorizationFailedError()
    elif resource_type == ConfigResourceType.GROUP:
        if not ctx.authorize(operation, ResourceType.GROUP, name):
            raise GroupAuthorizationFailedError()
    elif resource_type in (
        ConfigResourceType.BROKER,
        ConfigResourceType.BROKER_LOGGER,
    ) and not ctx.authorize_cluster(operation):
        raise ClusterAuthorizationFailedError()


def refusal(ctx: RequestContext, operation: AclOperation) -> KafkaError | None:
    """SECURITY_DISABLED without an authorizer ("No Authorizer is configured.", as Kafka),
    CLUSTER_AUTHORIZATION_FAILED without `operation` on the cluster; None to go on."""
    if not ctx.broker.authorizer_enabled:
        return SecurityDisabledError("No Authorizer is configured.")
    if not ctx.authorize_cluster(operation):
        return ClusterAuthorizationFailedError()
    return None


def binding_filter(
    resource_type: int,
    name: str | None,
    pattern_type: int,
    principal: str | None,
    host: str | None,
    operation: int,
    permission_type: int,
) -> AclBindingFilter:
    return AclBindingFilter(
        resource_type=code(ResourceType, resource_type),
        name=name,
        pattern_type=code(PatternType, pattern_type),
        principal=principal,
        host=host,
        operation=code(AclOperation, operation),
        permission_type=code(AclPermissionType, permission_type),
    )


# An authorized-operations field the client did not ask for (the schemas' default).
NOT_REQUESTED = -(2**31)


def authorized_operations(
    ctx: RequestContext,
    resource_type: ResourceType,
    names: list[str],
    operations: tuple[AclOperation, ...],
) -> dict[str, int]:
    """Each resource's authorized operations as Kafka's bit field (bit n: AclOperation n);
    every operation that applies, with the authorizer off, as Kafka answers without one."""
    fields = dict.fromkeys(names, 0)
    for operation in operations:
        for name in ctx.authorized(operation, resource_type, names):
            fields[name] |= 1 << operation
    return fields


def cluster_operations(ctx: RequestContext) -> int:
    """The cluster's authorized operations bit field (Metadata, DescribeCluster): 0 without
    DESCRIBE on the cluster, as Kafka answers."""
    if not ctx.authorize_cluster(AclOperation.DESCRIBE):
        return 0
    ops = authorized_operations(ctx, ResourceType.CLUSTER, [CLUSTER_NAME], CLUSTER_OPERATIONS)
    return ops[CLUSTER_NAME]
