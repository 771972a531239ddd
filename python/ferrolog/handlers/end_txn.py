"""EndTxn (key 26), v0-5: commits or aborts the producer's transaction. Answered once the
PrepareCommit/PrepareAbort state is durable in `__transaction_state`; the coordinator then
writes the markers to every partition of the transaction and records its completion. v4 only
tells that the client knows TRANSACTION_ABORTABLE, which this API does not answer. v5 is
transaction version 2 (KIP-890), chosen by the request's version as Kafka 4.4 chooses it:
every end bumps the producer's epoch, and the answer carries the producer id and epoch to go
on with."""

from __future__ import annotations

from ferrolog.errors import TransactionalIdAuthorizationFailedError
from ferrolog.handlers._txn import coordinator, for_version, may_write
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, EndTxnRequest, EndTxnResponse

API_KEY = ApiKey.END_TXN
MIN_VERSION = 0
MAX_VERSION = 5

FENCED_VERSION = 2
TRANSACTION_V2_VERSION = 5


async def handle(ctx: RequestContext, request: EndTxnRequest) -> EndTxnResponse:
    if not may_write(ctx, request["transactional_id"]):
        code = TransactionalIdAuthorizationFailedError.code
        return {"throttle_time_ms": 0, "error_code": code, "producer_id": -1, "producer_epoch": -1}
    end = (
        request["transactional_id"],
        request["producer_id"],
        request["producer_epoch"],
        bool(request["committed"]),
    )
    if ctx.api_version >= TRANSACTION_V2_VERSION:
        code, producer_id, epoch = await coordinator(ctx).end_txn_v2(*end)
        return {
            "throttle_time_ms": 0,
            "error_code": code,
            "producer_id": producer_id,
            "producer_epoch": epoch,
        }
    code = await coordinator(ctx).end_txn(*end)
    return {"throttle_time_ms": 0, "error_code": for_version(code, ctx.api_version, FENCED_VERSION)}
