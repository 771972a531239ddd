"""AlterReplicaLogDirs (key 34), v1-2: moves replicas between this broker's log directories
while they serve (what `kafka-reassign-partitions` sends for a reassignment JSON's
`log_dirs`).

The native core decides and moves (`Server.log_dirs.alter`: the future log, its copy and the
swap); this translates. As Kafka answers: ALTER on the cluster, else every
partition CLUSTER_AUTHORIZATION_FAILED; a partition listed under two directories goes to one;
a partition not hosted here REPLICA_NOT_AVAILABLE while its topic exists (the directory is kept
for when it is created: the tool retries until then), else UNKNOWN_TOPIC_OR_PARTITION."""

from __future__ import annotations

import ferrolog_native

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.handlers.context import RequestContext
from ferrolog.native_calls import native_call
from ferrolog.protocol.messages import (
    AlterReplicaLogDirsRequest,
    AlterReplicaLogDirsResponse,
    AlterReplicaLogDirsResponseAlterReplicaLogDirPartitionResult,
    AlterReplicaLogDirsResponseAlterReplicaLogDirTopicResult,
    ApiKey,
)

API_KEY = ApiKey.ALTER_REPLICA_LOG_DIRS
MIN_VERSION = 1
MAX_VERSION = 2

_Result = AlterReplicaLogDirsResponseAlterReplicaLogDirTopicResult


def _refused(request: AlterReplicaLogDirsRequest, code: int) -> list[_Result]:
    """Every partition with `code`, grouped as the request groups them (Kafka's
    `getErrorResponse`)."""
    return [
        {
            "topic_name": topic["name"],
            "partitions": [{"partition_index": p, "error_code": code} for p in topic["partitions"]],
        }
        for log_dir in request["dirs"]
        for topic in log_dir["topics"]
    ]


def _move_all(
    log_dirs: ferrolog_native.LogDirs,
    moves: dict[tuple[str, int], str],
    known_topics: set[str],
) -> list[_Result]:
    by_topic: dict[str, list[AlterReplicaLogDirsResponseAlterReplicaLogDirPartitionResult]] = {}
    for (topic, partition), path in moves.items():
        try:
            hosted = log_dirs.alter(topic, partition, path)
            code = 0
            if not hosted:
                code = (
                    errors.ReplicaNotAvailableError.code
                    if topic in known_topics
                    else errors.UnknownTopicOrPartitionError.code
                )
        except ferrolog_native.KafkaNativeError as exc:
            code = errors.from_native(exc).code
        by_topic.setdefault(topic, []).append({"partition_index": partition, "error_code": code})
    return [{"topic_name": name, "partitions": parts} for name, parts in by_topic.items()]


async def handle(
    ctx: RequestContext, request: AlterReplicaLogDirsRequest
) -> AlterReplicaLogDirsResponse:
    if not ctx.authorize_cluster(AclOperation.ALTER):
        return {
            "throttle_time_ms": 0,
            "results": _refused(request, errors.ClusterAuthorizationFailedError.code),
        }
    moves = {
        (topic["name"], partition): log_dir["path"]
        for log_dir in request["dirs"]
        for topic in log_dir["topics"]
        for partition in topic["partitions"]
    }
    controller = ctx.broker.controller
    known = {name for name, _ in moves if controller.topic(name) is not None}
    results = await native_call(_move_all, ctx.broker.native.log_dirs, moves, known)
    return {"throttle_time_ms": 0, "results": results}
