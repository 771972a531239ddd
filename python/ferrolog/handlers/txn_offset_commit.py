"""TxnOffsetCommit (key 28), v0-3: a transactional producer commits a group's offsets as part
of its transaction (send_offsets_to_transaction, after AddOffsetsToTxn). The group
coordinator appends them as a transactional batch of the producer and holds them pending:
the transaction's COMMIT marker makes them the group's committed offsets, ABORT drops them.
v3 carries the consumer's member id and generation (KIP-447), checked like OffsetCommit's."""

from __future__ import annotations

from typing import Any

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.coordinator.group import offsets
from ferrolog.handlers._groups import coordinator
from ferrolog.handlers.context import RequestContext
from ferrolog.handlers.offset_commit import all_failed, partition_exists

API_KEY = 28
MIN_VERSION = 0
MAX_VERSION = 3


async def handle(ctx: RequestContext, request: dict[str, Any]) -> dict[str, Any]:
    producer = (request["producer_id"], request["producer_epoch"])
    exists = partition_exists(ctx)
    try:
        response: dict[str, Any] = await coordinator(ctx).run(
            request["group_id"],
            lambda shard, reply: offsets.commit(
                shard, request, now_ms(), reply, exists, producer=producer
            ),
        )
    except errors.KafkaError as exc:
        response = all_failed(request, exc.code)
    return response
