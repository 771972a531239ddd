"""DescribeTransactions (key 65), v0: a transactional id's state as its coordinator holds it
(`kafka-transactions describe`). An id this broker does not coordinate answers
NOT_COORDINATOR; one it does not know (or that expired) TRANSACTIONAL_ID_NOT_FOUND."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers._txn import coordinator, grouped
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeTransactionsRequest,
    DescribeTransactionsResponse,
    DescribeTransactionsResponseTransactionState,
)

API_KEY = ApiKey.DESCRIBE_TRANSACTIONS
MIN_VERSION = 0
MAX_VERSION = 0


def _describe(
    ctx: RequestContext, transactional_id: str
) -> DescribeTransactionsResponseTransactionState:
    answer: DescribeTransactionsResponseTransactionState = {
        "error_code": 0,
        "transactional_id": transactional_id,
        "transaction_state": "",
        "transaction_timeout_ms": 0,
        "transaction_start_time_ms": 0,
        "producer_id": 0,
        "producer_epoch": 0,
        "topics": [],
    }
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, transactional_id):
        return {**answer, "error_code": errors.TransactionalIdAuthorizationFailedError.code}
    try:
        meta = coordinator(ctx).describe(transactional_id)
    except errors.KafkaError as exc:
        return {**answer, "error_code": exc.code}
    if meta is None:
        return {**answer, "error_code": errors.TransactionalIdNotFoundError.code}
    # As Kafka: only the topics the principal may DESCRIBE.
    visible = ctx.authorized(
        AclOperation.DESCRIBE, ResourceType.TOPIC, [t for t, _ in meta.partitions]
    )
    partitions = dict.fromkeys(sorted(tp for tp in meta.partitions if tp[0] in visible), 0)
    return {
        **answer,
        "transaction_state": meta.state.label,
        "transaction_timeout_ms": meta.timeout_ms,
        "transaction_start_time_ms": meta.start_ms,
        "producer_id": meta.producer_id,
        "producer_epoch": meta.producer_epoch,
        "topics": [
            {"topic": topic, "partitions": [p for p, _ in parts]}
            for topic, parts in grouped(partitions).items()
        ],
    }


async def handle(
    ctx: RequestContext, request: DescribeTransactionsRequest
) -> DescribeTransactionsResponse:
    return {
        "throttle_time_ms": 0,
        "transaction_states": [_describe(ctx, t) for t in request["transactional_ids"]],
    }
