"""WriteTxnMarkers (key 27), v1-2 (Kafka 4.0 dropped v0, KIP-896): a transaction coordinator
(another broker's, or this one's) has this partition leader append COMMIT or ABORT markers.
Each partition answers on its own: NOT_LEADER_OR_FOLLOWER where this broker does not lead it,
INVALID_PRODUCER_EPOCH or TRANSACTION_COORDINATOR_FENCED for a stale marker, as Kafka does.
v2 gives each marker its transaction's version: under version 2 (KIP-890 part 2) the marker's
epoch must be newer than the producer's."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation
from ferrolog.controller.coordinator.api import Marker
from ferrolog.errors import ClusterAuthorizationFailedError
from ferrolog.handlers._txn import grouped
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, WriteTxnMarkersRequest, WriteTxnMarkersResponse

API_KEY = ApiKey.WRITE_TXN_MARKERS
MIN_VERSION = 1
MAX_VERSION = 2


async def handle(ctx: RequestContext, request: WriteTxnMarkersRequest) -> WriteTxnMarkersResponse:
    writer = ctx.broker.txn_markers
    if writer is None:
        raise RuntimeError("the broker has no marker writer")
    markers = [
        Marker(
            m["producer_id"],
            m["producer_epoch"],
            m["coordinator_epoch"],
            m["transaction_result"],
            tuple((t["name"], p) for t in m["topics"] for p in t["partition_indexes"]),
            m.get("transaction_version", 0),
        )
        for m in request["markers"]
    ]
    if ctx.authorize_cluster(AclOperation.CLUSTER_ACTION):
        results = await writer.write(markers)
    else:
        # A broker's API: Kafka refuses every marker of a principal without CLUSTER_ACTION.
        refused = ClusterAuthorizationFailedError.code
        results = [dict.fromkeys(m.partitions, refused) for m in markers]
    return {
        "markers": [
            {
                "producer_id": m.producer_id,
                "topics": [
                    {
                        "name": topic,
                        "partitions": [
                            {"partition_index": p, "error_code": code} for p, code in parts
                        ],
                    }
                    for topic, parts in grouped(codes).items()
                ],
            }
            for m, codes in zip(markers, results, strict=True)
        ]
    }
