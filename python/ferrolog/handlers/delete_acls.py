"""DeleteAcls (key 31), v1-3 (Kafka 4's range): removes the ACLs each filter matches
(`kafka-acls --remove`) and answers them per filter. Needs ALTER on the cluster."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation
from ferrolog.handlers._acls import binding_filter, refusal
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    DeleteAclsRequest,
    DeleteAclsResponse,
    DeleteAclsResponseDeleteAclsFilterResult,
)

API_KEY = ApiKey.DELETE_ACLS
MIN_VERSION = 1
MAX_VERSION = 3


async def handle(ctx: RequestContext, request: DeleteAclsRequest) -> DeleteAclsResponse:
    filters = request["filters"]
    refused = refusal(ctx, AclOperation.ALTER)
    if refused is not None:
        return {
            "throttle_time_ms": 0,
            "filter_results": [
                {"error_code": refused.code, "error_message": refused.message, "matching_acls": []}
                for _ in filters
            ],
        }
    deleted = await ctx.broker.controller.acls.delete(
        [
            binding_filter(
                f["resource_type_filter"],
                f["resource_name_filter"],
                f.get("pattern_type_filter", 3),
                f["principal_filter"],
                f["host_filter"],
                f["operation"],
                f["permission_type"],
            )
            for f in filters
        ]
    )
    results: list[DeleteAclsResponseDeleteAclsFilterResult] = []
    for outcome in deleted:
        if not isinstance(outcome, list):
            results.append(
                {"error_code": outcome.code, "error_message": outcome.message, "matching_acls": []}
            )
            continue
        results.append(
            {
                "error_code": 0,
                "error_message": None,
                "matching_acls": [
                    {
                        "error_code": 0,
                        "error_message": None,
                        "resource_type": b.pattern.resource_type,
                        "resource_name": b.pattern.name,
                        "pattern_type": b.pattern.pattern_type,
                        "principal": b.entry.principal,
                        "host": b.entry.host,
                        "operation": b.entry.operation,
                        "permission_type": b.entry.permission_type,
                    }
                    for b in outcome
                ],
            }
        )
    return {"throttle_time_ms": 0, "filter_results": results}
