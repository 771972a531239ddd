"""TxnOffsetCommit (key 28), v0-3: a transactional producer commits a group's offsets as part
of its transaction (send_offsets_to_transaction, after AddOffsetsToTxn). The group
coordinator appends them as a transactional batch of the producer and holds them pending:
the transaction's COMMIT marker makes them the group's committed offsets, ABORT drops them.
v3 carries the consumer's member id and generation (KIP-447), checked like OffsetCommit's."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.coordinator.group import offsets
from ferrolog.handlers._groups import coordinator
from ferrolog.handlers.context import RequestContext
from ferrolog.handlers.offset_commit import partition_exists
from ferrolog.protocol.messages import TxnOffsetCommitRequest, TxnOffsetCommitResponse

API_KEY = 28
MIN_VERSION = 0
MAX_VERSION = 3


async def handle(ctx: RequestContext, request: TxnOffsetCommitRequest) -> TxnOffsetCommitResponse:
    producer = (request["producer_id"], request["producer_epoch"])
    exists = partition_exists(ctx)
    try:
        response: TxnOffsetCommitResponse = await coordinator(ctx).run(
            request["group_id"],
            lambda shard, reply: offsets.commit(
                shard, request, now_ms(), reply, exists, producer=producer
            ),
        )
    except errors.KafkaError as exc:
        response = {
            "throttle_time_ms": 0,
            "topics": [
                {
                    "name": t["name"],
                    "partitions": [
                        {"partition_index": p["partition_index"], "error_code": exc.code}
                        for p in t["partitions"]
                    ],
                }
                for t in request["topics"]
            ],
        }
    return response
