"""EndTxn (key 26), v0-4: commits or aborts the producer's transaction. Answered once the
PrepareCommit/PrepareAbort state is durable in `__transaction_state`; the coordinator then
writes the markers to every partition of the transaction and records its completion. v4 only
tells that the client knows TRANSACTION_ABORTABLE, which this API does not answer; v5 is
transaction version 2 (the epoch bumped by every end), not served yet."""

from __future__ import annotations

from ferrolog.errors import TransactionalIdAuthorizationFailedError
from ferrolog.handlers._txn import coordinator, for_version, may_write
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import EndTxnRequest, EndTxnResponse

API_KEY = 26
MIN_VERSION = 0
MAX_VERSION = 4

FENCED_VERSION = 2


async def handle(ctx: RequestContext, request: EndTxnRequest) -> EndTxnResponse:
    if not may_write(ctx, request["transactional_id"]):
        return {"throttle_time_ms": 0, "error_code": TransactionalIdAuthorizationFailedError.code}
    code = await coordinator(ctx).end_txn(
        request["transactional_id"],
        request["producer_id"],
        request["producer_epoch"],
        bool(request["committed"]),
    )
    return {"throttle_time_ms": 0, "error_code": for_version(code, ctx.api_version, FENCED_VERSION)}
