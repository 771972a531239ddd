"""DescribeGroups (key 15), v0-5: each group's state, protocol and members (with their
subscription and assignment once stable). An unknown group is reported as Dead, as Kafka
does before v6."""

from __future__ import annotations

from typing import Any

from ferrolog import errors
from ferrolog.controller.coordinator.group import offsets
from ferrolog.handlers._groups import coordinator
from ferrolog.handlers.context import RequestContext

API_KEY = 15
MIN_VERSION = 0
MAX_VERSION = 5


def _describe(ctx: RequestContext, group_id: str) -> dict[str, Any]:
    try:
        shard = coordinator(ctx).shard_for(group_id)
    except errors.KafkaError as exc:
        result: dict[str, Any] = offsets.describe(None, group_id)
        result.update(error_code=exc.code, group_state="")
        return result
    described: dict[str, Any] = offsets.describe(shard.group(group_id), group_id)
    return described


async def handle(ctx: RequestContext, request: dict[str, Any]) -> dict[str, Any]:
    return {
        "throttle_time_ms": 0,
        "groups": [_describe(ctx, group_id) for group_id in request.get("groups") or []],
    }
