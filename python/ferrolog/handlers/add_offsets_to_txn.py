"""AddOffsetsToTxn (key 25), v0-3: adds the group's `__consumer_offsets` partition to the
producer's transaction, so that the TxnOffsetCommit that follows is ended by the
transaction's marker (send_offsets_to_transaction)."""

from __future__ import annotations

from ferrolog.controller.api import CONSUMER_OFFSETS
from ferrolog.controller.coordinator.partitioning import partition_for
from ferrolog.handlers._txn import coordinator, for_version
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import AddOffsetsToTxnRequest, AddOffsetsToTxnResponse

API_KEY = 25
MIN_VERSION = 0
MAX_VERSION = 3

FENCED_VERSION = 2


async def handle(ctx: RequestContext, request: AddOffsetsToTxnRequest) -> AddOffsetsToTxnResponse:
    topic = ctx.broker.controller.topic(CONSUMER_OFFSETS)
    count = (
        len(topic.assignment)
        if topic is not None
        else ctx.broker.config.get_int("offsets.topic.num.partitions")
    )
    partition = partition_for(request["group_id"], count)
    code = await coordinator(ctx).add_partitions(
        request["transactional_id"],
        request["producer_id"],
        request["producer_epoch"],
        [(CONSUMER_OFFSETS, partition)],
    )
    return {"throttle_time_ms": 0, "error_code": for_version(code, ctx.api_version, FENCED_VERSION)}
