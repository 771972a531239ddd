"""ReadShareGroupState (key 84), v0: a partition leader loading a share-partition reads its
state (start offset and the in-flight records' delivery states and counts); its leader epoch
is recorded, fencing older leaders. Brokers send it: CLUSTER_ACTION is needed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ferrolog.controller.coordinator.api import ShareCoordinatorApi, SharePartitionKey
from ferrolog.handlers._share_state import Result, serve
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    ReadShareGroupStateRequest,
    ReadShareGroupStateResponse,
)

API_KEY = ApiKey.READ_SHARE_GROUP_STATE
MIN_VERSION = 0
MAX_VERSION = 0


async def _read(share: ShareCoordinatorApi, key: SharePartitionKey, p: Mapping[str, Any]) -> Result:
    outcome, state = await share.read(key, p["leader_epoch"])
    result: Result = {
        "error_code": outcome.code,
        "error_message": outcome.message,
        "state_epoch": 0,
        "start_offset": -1,
        "state_batches": [],
    }
    if state is not None:
        result["state_epoch"] = state.state_epoch
        result["start_offset"] = state.start_offset
        result["state_batches"] = [b._asdict() for b in state.batches]
    return result


async def handle(
    ctx: RequestContext, request: ReadShareGroupStateRequest
) -> ReadShareGroupStateResponse:
    results: Any = await serve(ctx, request, _read)
    return {"results": results}
