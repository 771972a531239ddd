"""WriteShareGroupState (key 85), v0-1: a partition leader records what changed in a
share-partition (its start offset, records acknowledged, released or archived, with their
delivery counts); v1 adds the count of records done with. Brokers send it: CLUSTER_ACTION is
needed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ferrolog.controller.coordinator.api import ShareCoordinatorApi, SharePartitionKey, StateBatch
from ferrolog.handlers._share_state import Result, serve
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    WriteShareGroupStateRequest,
    WriteShareGroupStateResponse,
)

API_KEY = ApiKey.WRITE_SHARE_GROUP_STATE
MIN_VERSION = 0
MAX_VERSION = 1


async def _write(
    share: ShareCoordinatorApi, key: SharePartitionKey, p: Mapping[str, Any]
) -> Result:
    batches = [
        StateBatch(b["first_offset"], b["last_offset"], b["delivery_state"], b["delivery_count"])
        for b in p["state_batches"]
    ]
    outcome = await share.write(
        key,
        p["state_epoch"],
        p["leader_epoch"],
        p["start_offset"],
        p.get("delivery_complete_count", -1),
        batches,
    )
    return {"error_code": outcome.code, "error_message": outcome.message}


async def handle(
    ctx: RequestContext, request: WriteShareGroupStateRequest
) -> WriteShareGroupStateResponse:
    results: Any = await serve(ctx, request, _write)
    return {"results": results}
