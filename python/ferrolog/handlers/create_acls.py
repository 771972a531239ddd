"""CreateAcls (key 30), v1-3 (Kafka 4's range): adds ACLs (`kafka-acls --add`), each
creation answered on its own. Needs ALTER on the cluster."""

from __future__ import annotations

from ferrolog.controller.api import (
    AccessControlEntry,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from ferrolog.handlers._acls import code, refusal
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    CreateAclsRequest,
    CreateAclsRequestAclCreation,
    CreateAclsResponse,
)

API_KEY = ApiKey.CREATE_ACLS
MIN_VERSION = 1
MAX_VERSION = 3


def _binding(creation: CreateAclsRequestAclCreation) -> AclBinding:
    return AclBinding(
        ResourcePattern(
            code(ResourceType, creation["resource_type"]),
            creation["resource_name"],
            code(PatternType, creation.get("resource_pattern_type", 3)),
        ),
        AccessControlEntry(
            creation["principal"],
            creation["host"],
            code(AclOperation, creation["operation"]),
            code(AclPermissionType, creation["permission_type"]),
        ),
    )


async def handle(ctx: RequestContext, request: CreateAclsRequest) -> CreateAclsResponse:
    creations = request["creations"]
    refused = refusal(ctx, AclOperation.ALTER)
    if refused is not None:
        return {
            "throttle_time_ms": 0,
            "results": [
                {"error_code": refused.code, "error_message": refused.message} for _ in creations
            ],
        }
    results = await ctx.broker.controller.acls.create([_binding(c) for c in creations])
    return {
        "throttle_time_ms": 0,
        "results": [
            {"error_code": 0, "error_message": None}
            if error is None
            else {"error_code": error.code, "error_message": error.message}
            for error in results
        ],
    }
