"""DeleteRecords (key 21), v0-2: advances partitions' log start offsets.

The leader does the work in the native core (`Server.delete_records`, which touches disk and
so runs in a worker thread); its KafkaNativeError codes go straight into the response."""

from __future__ import annotations

import ferrolog_native

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers.context import RequestContext
from ferrolog.native_calls import native_call
from ferrolog.protocol.messages import (
    ApiKey,
    DeleteRecordsRequest,
    DeleteRecordsResponse,
    DeleteRecordsResponseDeleteRecordsPartitionResult,
    DeleteRecordsResponseDeleteRecordsTopicResult,
)

API_KEY = ApiKey.DELETE_RECORDS
MIN_VERSION = 0
MAX_VERSION = 2


async def _delete_one(
    ctx: RequestContext, topic: str, partition: int, offset: int
) -> DeleteRecordsResponseDeleteRecordsPartitionResult:
    try:
        state = ctx.broker.native.partition_state(topic, partition)
        if state is None or not state.is_leader:
            raise errors.NotLeaderOrFollowerError(f"not the leader of {topic}-{partition}")
        if offset < -1:
            raise errors.OffsetOutOfRangeError(f"offset {offset} is negative")
        low = await native_call(ctx.broker.native.delete_records, topic, partition, offset)
    except ferrolog_native.KafkaNativeError as exc:
        return {"partition_index": partition, "low_watermark": -1, "error_code": _native_code(exc)}
    except errors.KafkaError as exc:
        return {"partition_index": partition, "low_watermark": -1, "error_code": exc.code}
    return {"partition_index": partition, "low_watermark": low, "error_code": 0}


def _native_code(exc: BaseException) -> int:
    return errors.from_native(exc).code


async def handle(ctx: RequestContext, request: DeleteRecordsRequest) -> DeleteRecordsResponse:
    controller = ctx.broker.controller
    results: list[DeleteRecordsResponseDeleteRecordsTopicResult] = []
    for topic in request.get("topics") or []:
        name = topic["name"]
        record = controller.topic(name)
        # As Kafka: DELETE on the topic.
        allowed = ctx.authorize(AclOperation.DELETE, ResourceType.TOPIC, name)
        partitions: list[DeleteRecordsResponseDeleteRecordsPartitionResult] = []
        for part in topic.get("partitions") or []:
            index = part["partition_index"]
            if not allowed:
                partitions.append(
                    {
                        "partition_index": index,
                        "low_watermark": -1,
                        "error_code": errors.TopicAuthorizationFailedError.code,
                    }
                )
                continue
            if record is None or index not in record.assignment:
                partitions.append(
                    {
                        "partition_index": index,
                        "low_watermark": -1,
                        "error_code": errors.UnknownTopicOrPartitionError.code,
                    }
                )
                continue
            partitions.append(await _delete_one(ctx, name, index, part["offset"]))
        results.append({"name": name, "partitions": partitions})
    return {"throttle_time_ms": 0, "topics": results}
