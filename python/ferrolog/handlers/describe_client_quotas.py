"""DescribeClientQuotas (key 48), v0-1: the stored client quotas of the entities a filter
matches (`kafka-configs --describe --entity-type users|clients`)."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation
from ferrolog.errors import ClusterAuthorizationFailedError, KafkaError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeClientQuotasRequest,
    DescribeClientQuotasResponse,
    DescribeClientQuotasResponseEntryData,
)

API_KEY = ApiKey.DESCRIBE_CLIENT_QUOTAS
MIN_VERSION = 0
MAX_VERSION = 1


async def handle(
    ctx: RequestContext, request: DescribeClientQuotasRequest
) -> DescribeClientQuotasResponse:
    components = [
        (c["entity_type"], c["match_type"], c.get("match")) for c in request.get("components") or []
    ]
    try:
        if not ctx.authorize_cluster(AclOperation.DESCRIBE_CONFIGS):
            raise ClusterAuthorizationFailedError()
        matched = ctx.broker.controller.client_quotas.describe(
            components, bool(request.get("strict"))
        )
    except KafkaError as error:
        return {
            "throttle_time_ms": 0,
            "error_code": error.code,
            "error_message": error.message,
            "entries": None,
        }
    entries: list[DescribeClientQuotasResponseEntryData] = [
        {
            "entity": [{"entity_type": t, "entity_name": n} for t, n in entity.entries],
            "values": [{"key": k, "value": v} for k, v in sorted(quotas.items())],
        }
        for entity, quotas in matched.items()
    ]
    return {"throttle_time_ms": 0, "error_code": 0, "error_message": None, "entries": entries}
