"""DescribeAcls (key 29), v1-3 (Kafka 4's range): the ACLs a filter matches, grouped by
resource pattern (`kafka-acls --list`). Needs DESCRIBE on the cluster."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation, ResourcePattern
from ferrolog.errors import KafkaError
from ferrolog.handlers._acls import binding_filter, refusal
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeAclsRequest,
    DescribeAclsResponse,
    DescribeAclsResponseDescribeAclsResource,
)

API_KEY = ApiKey.DESCRIBE_ACLS
MIN_VERSION = 1
MAX_VERSION = 3


def _error(error: KafkaError) -> DescribeAclsResponse:
    return {
        "throttle_time_ms": 0,
        "error_code": error.code,
        "error_message": error.message,
        "resources": [],
    }


async def handle(ctx: RequestContext, request: DescribeAclsRequest) -> DescribeAclsResponse:
    refused = refusal(ctx, AclOperation.DESCRIBE)
    if refused is not None:
        return _error(refused)
    acl_filter = binding_filter(
        request["resource_type_filter"],
        request["resource_name_filter"],
        request.get("pattern_type_filter", 3),
        request["principal_filter"],
        request["host_filter"],
        request["operation"],
        request["permission_type"],
    )
    try:
        bindings = ctx.broker.controller.acls.describe(acl_filter)
    except KafkaError as error:
        return _error(error)
    resources: dict[ResourcePattern, DescribeAclsResponseDescribeAclsResource] = {}
    for binding in bindings:
        pattern, entry = binding.pattern, binding.entry
        resource = resources.setdefault(
            pattern,
            {
                "resource_type": pattern.resource_type,
                "resource_name": pattern.name,
                "pattern_type": pattern.pattern_type,
                "acls": [],
            },
        )
        resource["acls"].append(
            {
                "principal": entry.principal,
                "host": entry.host,
                "operation": entry.operation,
                "permission_type": entry.permission_type,
            }
        )
    return {
        "throttle_time_ms": 0,
        "error_code": 0,
        "error_message": None,
        "resources": list(resources.values()),
    }
