"""DeleteShareGroupState (key 86), v0: the group coordinator removes the state of a share
group's share-partitions (the group or its offsets of a topic are deleted). Brokers send it:
CLUSTER_ACTION is needed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ferrolog.controller.coordinator.api import ShareCoordinatorApi, SharePartitionKey
from ferrolog.handlers._share_state import Result, serve
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    DeleteShareGroupStateRequest,
    DeleteShareGroupStateResponse,
)

API_KEY = ApiKey.DELETE_SHARE_GROUP_STATE
MIN_VERSION = 0
MAX_VERSION = 0


async def _delete(
    share: ShareCoordinatorApi, key: SharePartitionKey, p: Mapping[str, Any]
) -> Result:
    outcome = await share.delete(key)
    return {"error_code": outcome.code, "error_message": outcome.message}


async def handle(
    ctx: RequestContext, request: DeleteShareGroupStateRequest
) -> DeleteShareGroupStateResponse:
    results: Any = await serve(ctx, request, _delete)
    return {"results": results}
