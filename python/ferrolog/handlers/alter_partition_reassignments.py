"""AlterPartitionReassignments (key 45), v0-1: moves partitions to new replica sets (v1: each
keeping its replication factor if the request says so, KIP-1092).

The controller checks each target and starts the moves (`ControllerApi.
alter_partition_reassignments`; in a cluster the active controller carries them out step by
step, see `reassignment.step`). A null replica list cancels a pending move. The response does
not wait for the moves, as in Kafka; ListPartitionReassignments shows progress."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation
from ferrolog.errors import ClusterAuthorizationFailedError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    AlterPartitionReassignmentsRequest,
    AlterPartitionReassignmentsResponse,
    AlterPartitionReassignmentsResponseReassignablePartitionResponse,
    AlterPartitionReassignmentsResponseReassignableTopicResponse,
    ApiKey,
)

API_KEY = ApiKey.ALTER_PARTITION_REASSIGNMENTS
MIN_VERSION = 0
MAX_VERSION = 1


async def handle(
    ctx: RequestContext, request: AlterPartitionReassignmentsRequest
) -> AlterPartitionReassignmentsResponse:
    topics = request.get("topics") or []
    allow_rf_change = request.get("allow_replication_factor_change", True)
    if not ctx.authorize_cluster(AclOperation.ALTER):
        # As Kafka's error response: every partition asked for carries the error too.
        refused = ClusterAuthorizationFailedError()
        return {
            "throttle_time_ms": 0,
            "error_code": refused.code,
            "error_message": refused.message,
            "allow_replication_factor_change": allow_rf_change,
            "responses": [
                {
                    "name": topic["name"],
                    "partitions": [
                        {
                            "partition_index": int(entry["partition_index"]),
                            "error_code": refused.code,
                            "error_message": refused.message,
                        }
                        for entry in topic.get("partitions") or []
                    ],
                }
                for topic in topics
            ],
        }
    targets = {
        (topic["name"], int(entry["partition_index"])): entry.get("replicas")
        for topic in topics
        for entry in topic.get("partitions") or []
    }
    results = await ctx.broker.controller.alter_partition_reassignments(targets, allow_rf_change)
    responses: list[AlterPartitionReassignmentsResponseReassignableTopicResponse] = []
    for topic in topics:
        rows: list[AlterPartitionReassignmentsResponseReassignablePartitionResponse] = []
        for entry in topic.get("partitions") or []:
            partition = int(entry["partition_index"])
            error = results[(topic["name"], partition)]
            rows.append(
                {
                    "partition_index": partition,
                    "error_code": 0 if error is None else error.code,
                    "error_message": None if error is None else error.message,
                }
            )
        responses.append({"name": topic["name"], "partitions": rows})
    return {
        "throttle_time_ms": 0,
        "error_code": 0,
        "error_message": None,
        "allow_replication_factor_change": allow_rf_change,
        "responses": responses,
    }
