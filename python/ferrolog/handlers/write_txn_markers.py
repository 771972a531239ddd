"""WriteTxnMarkers (key 27), v0-1: a transaction coordinator (another broker's, or this
one's) has this partition leader append COMMIT or ABORT markers. Each partition answers on
its own: NOT_LEADER_OR_FOLLOWER where this broker does not lead it, INVALID_PRODUCER_EPOCH or
TRANSACTION_COORDINATOR_FENCED for a stale marker, as Kafka does."""

from __future__ import annotations

from typing import Any

from ferrolog.controller.coordinator.txn.markers import Marker
from ferrolog.handlers._txn import by_topic, partitions_of
from ferrolog.handlers.context import RequestContext

API_KEY = 27
MIN_VERSION = 0
MAX_VERSION = 1


async def handle(ctx: RequestContext, request: dict[str, Any]) -> dict[str, Any]:
    writer = ctx.broker.txn_markers
    if writer is None:
        raise RuntimeError("the broker has no marker writer")
    markers = [
        Marker(
            m["producer_id"],
            m["producer_epoch"],
            m["coordinator_epoch"],
            bool(m["transaction_result"]),
            tuple(
                partitions_of(
                    {"name": t["name"], "partitions": t["partition_indexes"]}
                    for t in m.get("topics") or []
                )
            ),
        )
        for m in request.get("markers") or []
    ]
    results = await writer.write(markers)
    return {
        "markers": [
            {
                "producer_id": m.producer_id,
                "topics": by_topic(codes, "partition_index", "error_code"),
            }
            for m, codes in zip(markers, results, strict=True)
        ]
    }
