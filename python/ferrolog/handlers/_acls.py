"""What DescribeAcls, CreateAcls and DeleteAcls share: the wire's codes turned into Kafka's ACL
types, and the answers Kafka gives before looking at any ACL."""

from __future__ import annotations

import enum
from typing import TypeVar

from ferrolog.controller.api import (
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from ferrolog.errors import ClusterAuthorizationFailedError, KafkaError, SecurityDisabledError
from ferrolog.handlers.context import RequestContext

E = TypeVar("E", bound=enum.IntEnum)


def code(kind: type[E], value: int) -> E:
    """The member with wire code `value`; UNKNOWN (0) for a code Kafka does not have."""
    try:
        return kind(value)
    except ValueError:
        return kind(0)


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
