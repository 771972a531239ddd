"""AlterClientQuotas (key 49), v0-1: sets and removes client quotas of user and client-id
entities (`kafka-configs --alter --entity-type users|clients --add-config ...`); each entry is
answered with its own error, as Kafka validates it, and `validate_only` changes nothing."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation
from ferrolog.errors import ClusterAuthorizationFailedError, KafkaError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    AlterClientQuotasRequest,
    AlterClientQuotasResponse,
    AlterClientQuotasResponseEntryData,
    ApiKey,
)

API_KEY = ApiKey.ALTER_CLIENT_QUOTAS
MIN_VERSION = 0
MAX_VERSION = 1


async def handle(
    ctx: RequestContext, request: AlterClientQuotasRequest
) -> AlterClientQuotasResponse:
    entries = request.get("entries") or []
    alterations = [
        (
            [(e["entity_type"], e.get("entity_name")) for e in entry.get("entity") or []],
            [
                (op["key"], None if op.get("remove") else float(op["value"]))
                for op in entry.get("ops") or []
            ],
        )
        for entry in entries
    ]
    results: list[KafkaError | None]
    if ctx.authorize_cluster(AclOperation.ALTER_CONFIGS):
        results = await ctx.broker.controller.client_quotas.alter(
            alterations, bool(request.get("validate_only"))
        )
    else:  # As Kafka: ALTER_CONFIGS on the cluster.
        results = [ClusterAuthorizationFailedError() for _ in entries]
    out: list[AlterClientQuotasResponseEntryData] = [
        {
            "error_code": 0 if error is None else error.code,
            "error_message": None if error is None else error.message,
            "entity": [
                {"entity_type": e["entity_type"], "entity_name": e.get("entity_name")}
                for e in entry.get("entity") or []
            ],
        }
        for entry, error in zip(entries, results, strict=True)
    ]
    return {"throttle_time_ms": 0, "entries": out}
