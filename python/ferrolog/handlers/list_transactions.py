"""ListTransactions (key 66), v0-2: the transactional ids this broker coordinates, filtered by
state (Kafka's names: "Ongoing", "PrepareCommit", ...), producer id, v1 how long the
transaction has been running (`kafka-transactions list`, and `find-hanging`'s check of what
the coordinator knows) and v2 a regular expression the whole id must match (KIP-1152; Python's
`re`, which reads the patterns people write for ids as Java's does; null or empty: no filter,
and one that does not compile answers INVALID_REGULAR_EXPRESSION). Filters Kafka does not know
come back in `unknown_state_filters`."""

from __future__ import annotations

import re

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.controller.coordinator.api import TxnState
from ferrolog.handlers._txn import coordinator
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    ListTransactionsRequest,
    ListTransactionsResponse,
    ListTransactionsResponseTransactionState,
)

API_KEY = ApiKey.LIST_TRANSACTIONS
MIN_VERSION = 0
MAX_VERSION = 2


async def handle(ctx: RequestContext, request: ListTransactionsRequest) -> ListTransactionsResponse:
    txn = coordinator(ctx)
    wanted: set[TxnState] = set()
    unknown: list[str] = []
    for label in request["state_filters"]:
        state = TxnState.from_label(label)
        if state is None:
            unknown.append(label)
        else:
            wanted.add(state)
    response: ListTransactionsResponse = {
        "throttle_time_ms": 0,
        "error_code": 0,
        "unknown_state_filters": unknown,
        "transaction_states": [],
    }
    if txn.loading():
        return {**response, "error_code": errors.CoordinatorLoadInProgressError.code}
    try:
        pattern = re.compile(request.get("transactional_id_pattern") or "")
    except re.error:
        return {**response, "error_code": errors.InvalidRegularExpressionError.code}
    if unknown and not wanted:
        # Only unknown states asked for: nothing can match.
        return response
    producer_ids = set(request["producer_id_filters"])
    min_duration = request.get("duration_filter", -1)
    now = now_ms()
    listed: list[ListTransactionsResponseTransactionState] = []
    for meta in txn.transactions():
        if meta.state == TxnState.DEAD:
            continue
        if wanted and meta.state not in wanted:
            continue
        if producer_ids and meta.producer_id not in producer_ids:
            continue
        if min_duration >= 0 and now - meta.start_ms < min_duration:
            continue
        if pattern.pattern and not pattern.fullmatch(meta.transactional_id):
            continue
        listed.append(
            {
                "transactional_id": meta.transactional_id,
                "producer_id": meta.producer_id,
                "transaction_state": meta.state.label,
            }
        )
    # As Kafka: only the transactional ids the principal may DESCRIBE.
    ids = [t["transactional_id"] for t in listed]
    visible = ctx.authorized(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, ids)
    listed = [t for t in listed if t["transactional_id"] in visible]
    return {**response, "transaction_states": listed}
