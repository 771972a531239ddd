"""ElectLeaders (key 43), v0-2: preferred-leader and unclean (KIP-460) elections.

The controller decides (`ControllerApi.elect_leaders`) and answers once the outcome is in the
cluster metadata or the request's timeout has passed; this module shapes its answer per topic.
A request without partitions asks for every partition, and then, as in Kafka, partitions that
need no election are left out of the answer."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ElectionType
from ferrolog.errors import ClusterAuthorizationFailedError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    ElectLeadersRequest,
    ElectLeadersResponse,
    ElectLeadersResponsePartitionResult,
)

API_KEY = ApiKey.ELECT_LEADERS
MIN_VERSION = 0
MAX_VERSION = 2


async def handle(ctx: RequestContext, request: ElectLeadersRequest) -> ElectLeadersResponse:
    requested = request.get("topic_partitions")
    if not ctx.authorize_cluster(AclOperation.ALTER):
        # As Kafka: the top-level error, and on every partition asked for.
        refused = ClusterAuthorizationFailedError()
        return {
            "throttle_time_ms": 0,
            "error_code": refused.code,
            "replica_election_results": [
                {
                    "topic": entry["topic"],
                    "partition_result": [
                        {
                            "partition_id": int(p),
                            "error_code": refused.code,
                            "error_message": refused.message,
                        }
                        for p in entry["partitions"]
                    ],
                }
                for entry in requested or []
            ],
        }
    partitions = (
        None
        if requested is None
        else [(entry["topic"], int(p)) for entry in requested for p in entry["partitions"]]
    )
    # v0 has no election type: it asks for preferred leaders.
    try:
        kind = ElectionType(int(request.get("election_type", ElectionType.PREFERRED)))
    except ValueError:
        return {
            "throttle_time_ms": 0,
            "error_code": errors.InvalidRequestError.code,
            "replica_election_results": [],
        }
    results = await ctx.broker.controller.elect_leaders(
        kind, partitions, int(request.get("timeout_ms", 60000))
    )
    by_topic: dict[str, list[ElectLeadersResponsePartitionResult]] = {}
    for (name, partition), error in results.items():
        by_topic.setdefault(name, []).append(
            {
                "partition_id": partition,
                "error_code": 0 if error is None else error.code,
                "error_message": None if error is None else error.message,
            }
        )
    return {
        "throttle_time_ms": 0,
        "error_code": 0,
        "replica_election_results": [
            {"topic": name, "partition_result": rows} for name, rows in sorted(by_topic.items())
        ],
    }
