"""ReadShareGroupStateSummary (key 87), v0-1: a share-partition's start offset and epochs
without its batches, for describing a share group's offsets; v1 adds the count of records
done with. A share-partition never initialized answers start offset -1. Brokers send it:
CLUSTER_ACTION is needed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ferrolog.controller.coordinator.api import ShareCoordinatorApi, SharePartitionKey
from ferrolog.handlers._share_state import Result, serve, state_fields
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    ReadShareGroupStateSummaryRequest,
    ReadShareGroupStateSummaryResponse,
)

API_KEY = ApiKey.READ_SHARE_GROUP_STATE_SUMMARY
MIN_VERSION = 0
MAX_VERSION = 1


async def _summary(
    share: ShareCoordinatorApi, key: SharePartitionKey, p: Mapping[str, Any]
) -> Result:
    outcome, state = await share.summary(key)
    return {"error_code": outcome.code, "error_message": outcome.message, **state_fields(state)}


async def handle(
    ctx: RequestContext, request: ReadShareGroupStateSummaryRequest
) -> ReadShareGroupStateSummaryResponse:
    results: Any = await serve(ctx, request, _summary)
    return {"results": results}
