"""DescribeProducers (key 61), v0: the producers with state in partitions this broker leads,
with the first offset of each one's open transaction (`kafka-transactions describe-producers`
and `find-hanging`, which looks for transactions the coordinator no longer knows). Read from
the native core's producer state; a partition this broker does not lead answers
NOT_LEADER_OR_FOLLOWER, one that does not exist UNKNOWN_TOPIC_OR_PARTITION."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers.context import RequestContext
from ferrolog.native_calls import native_call
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeProducersRequest,
    DescribeProducersResponse,
    DescribeProducersResponsePartitionResponse,
)

API_KEY = ApiKey.DESCRIBE_PRODUCERS
MIN_VERSION = 0
MAX_VERSION = 0


async def _partition(
    ctx: RequestContext, topic: str, partition: int
) -> DescribeProducersResponsePartitionResponse:
    if not ctx.authorize(AclOperation.READ, ResourceType.TOPIC, topic):
        refused = errors.TopicAuthorizationFailedError()
        return {
            "partition_index": partition,
            "error_code": refused.code,
            "error_message": refused.message,
            "active_producers": [],
        }
    try:
        producers = await native_call(ctx.broker.native.describe_producers, topic, partition)
    except Exception as exc:
        error = errors.from_native(exc)
        return {
            "partition_index": partition,
            "error_code": error.code,
            "error_message": error.message,
            "active_producers": [],
        }
    return {
        "partition_index": partition,
        "error_code": 0,
        "error_message": None,
        "active_producers": [
            {
                "producer_id": producer_id,
                "producer_epoch": epoch,
                "last_sequence": last_sequence,
                "last_timestamp": last_timestamp,
                "coordinator_epoch": coordinator_epoch,
                "current_txn_start_offset": txn_start,
            }
            for (
                producer_id,
                epoch,
                last_sequence,
                last_timestamp,
                coordinator_epoch,
                txn_start,
            ) in producers
        ],
    }


async def handle(
    ctx: RequestContext, request: DescribeProducersRequest
) -> DescribeProducersResponse:
    return {
        "throttle_time_ms": 0,
        "topics": [
            {
                "name": t["name"],
                "partitions": [await _partition(ctx, t["name"], p) for p in t["partition_indexes"]],
            }
            for t in request["topics"]
        ],
    }
