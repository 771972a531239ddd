"""SyncGroup (key 14), v0-5: the leader hands out the assignment; every member waits for it
(see `ferrolog.controller.coordinator.group.membership`)."""

from __future__ import annotations

from typing import Any

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.coordinator.group import membership, responses
from ferrolog.handlers._groups import coordinator
from ferrolog.handlers.context import RequestContext

API_KEY = 14
MIN_VERSION = 0
MAX_VERSION = 5


async def handle(ctx: RequestContext, request: dict[str, Any]) -> dict[str, Any]:
    try:
        response: dict[str, Any] = await coordinator(ctx).run(
            request["group_id"],
            lambda shard, reply: membership.sync(shard, request, now_ms(), reply),
        )
    except errors.KafkaError as exc:
        response = responses.sync_response(exc.code)
    return response
