"""ListPartitionReassignments (key 46), v0: the pending reassignments, with the replicas each
partition has now and those being added and removed."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation
from ferrolog.errors import ClusterAuthorizationFailedError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    ListPartitionReassignmentsRequest,
    ListPartitionReassignmentsResponse,
    ListPartitionReassignmentsResponseOngoingPartitionReassignment,
)

API_KEY = ApiKey.LIST_PARTITION_REASSIGNMENTS
MIN_VERSION = 0
MAX_VERSION = 0


async def handle(
    ctx: RequestContext, request: ListPartitionReassignmentsRequest
) -> ListPartitionReassignmentsResponse:
    if not ctx.authorize_cluster(AclOperation.DESCRIBE):
        error = ClusterAuthorizationFailedError()
        return {
            "throttle_time_ms": 0,
            "error_code": error.code,
            "error_message": error.message,
            "topics": [],
        }
    requested = request.get("topics")
    partitions = (
        None
        if requested is None
        else [(t["name"], int(p)) for t in requested for p in t["partition_indexes"]]
    )
    by_topic: dict[str, list[ListPartitionReassignmentsResponseOngoingPartitionReassignment]] = {}
    for status in ctx.broker.controller.list_partition_reassignments(partitions):
        by_topic.setdefault(status.topic, []).append(
            {
                "partition_index": status.partition,
                "replicas": status.replicas,
                "adding_replicas": status.adding,
                "removing_replicas": status.removing,
            }
        )
    return {
        "throttle_time_ms": 0,
        "error_code": 0,
        "error_message": None,
        "topics": [{"name": n, "partitions": rows} for n, rows in sorted(by_topic.items())],
    }
