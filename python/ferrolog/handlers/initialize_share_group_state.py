"""InitializeShareGroupState (key 83), v0: the group coordinator of a share group asks the
share coordinator to create the state of share-partitions new to the group (start offset -1:
the partition leader applies share.auto.offset.reset on first read). Brokers send it:
CLUSTER_ACTION is needed (`_share_state`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ferrolog.controller.coordinator.api import ShareCoordinatorApi, SharePartitionKey
from ferrolog.handlers._share_state import Result, serve
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    InitializeShareGroupStateRequest,
    InitializeShareGroupStateResponse,
)

API_KEY = ApiKey.INITIALIZE_SHARE_GROUP_STATE
MIN_VERSION = 0
MAX_VERSION = 0


async def _initialize(
    share: ShareCoordinatorApi, key: SharePartitionKey, p: Mapping[str, Any]
) -> Result:
    outcome = await share.initialize(key, p["state_epoch"], p["start_offset"])
    return {"error_code": outcome.code, "error_message": outcome.message}


async def handle(
    ctx: RequestContext, request: InitializeShareGroupStateRequest
) -> InitializeShareGroupStateResponse:
    results: Any = await serve(ctx, request, _initialize)
    return {"results": results}
