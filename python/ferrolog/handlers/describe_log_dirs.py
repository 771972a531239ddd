"""DescribeLogDirs (key 35), v1-5: this broker's log directories and the partitions in them.
v5's `is_cordoned` (KIP-1066) is false for every directory: ferrolog does not cordon any.

Sizes and offsets come from one native snapshot (`Server.partition_states`, and
`log_dirs.futures` for the replicas being moved between directories); v4's total and
usable bytes from the file system. Both touch the disk, so they run in a worker thread."""

from __future__ import annotations

import os
import shutil
from typing import Any

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.errors import ClusterAuthorizationFailedError
from ferrolog.handlers.context import RequestContext
from ferrolog.native_calls import native_call
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeLogDirsRequest,
    DescribeLogDirsResponse,
    DescribeLogDirsResponseDescribeLogDirsPartition,
    DescribeLogDirsResponseDescribeLogDirsResult,
)

API_KEY = ApiKey.DESCRIBE_LOG_DIRS
MIN_VERSION = 1
MAX_VERSION = 5


def _disk(path: str) -> tuple[int, int] | None:
    """(total, usable) bytes of the file system holding `path`; None if it is unreadable."""
    try:
        usage = shutil.disk_usage(path)
    except OSError:
        return None
    # `free` is what an unprivileged writer may still use (statvfs f_bavail): what Kafka
    # reports as usable space.
    return usage.total, usage.free


def _wanted(request: DescribeLogDirsRequest) -> dict[str, set[int]] | None:
    topics = request.get("topics")
    if topics is None:
        return None
    wanted: dict[str, set[int]] = {}
    for topic in topics:
        wanted.setdefault(topic["topic"], set()).update(topic.get("partitions") or [])
    return wanted


def _owning_dir(path: str, log_dirs: list[str]) -> str:
    """The configured log directory that holds `path`. The native snapshot names the log
    directory, but a partition's own directory (inside it) is mapped back the same way, so the
    answer groups by `log.dirs` entries whichever it reports."""
    path = os.path.abspath(path)
    holders = [d for d in log_dirs if path == d or path.startswith(d.rstrip(os.sep) + os.sep)]
    return max(holders, key=len) if holders else path


def _describe(
    states: list[Any],
    futures: list[tuple[str, int, str, int, int]],
    log_dirs: list[str],
    wanted: dict[str, set[int]] | None,
    offline: set[str],
) -> list[DescribeLogDirsResponseDescribeLogDirsResult]:
    dirs = [os.path.abspath(d) for d in log_dirs]
    by_dir: dict[str, dict[str, list[DescribeLogDirsResponseDescribeLogDirsPartition]]] = {
        d: {} for d in dirs
    }
    # (directory, topic, partition, size, lag, future): a replica being moved is listed in
    # its current directory and, as a future, in its destination, as Kafka lists it.
    entries = [
        # Kafka's lag of a current replica: how far its end is behind the high watermark,
        # never negative.
        (
            s.log_dir,
            s.topic,
            s.partition,
            s.size_bytes,
            max(s.high_watermark - s.log_end_offset, 0),
            False,
        )
        for s in states
    ] + [(d, t, p, size, lag, True) for t, p, d, size, lag in futures]
    for log_dir, topic, partition, size, lag, future in sorted(entries, key=lambda e: e[1:3]):
        if wanted is not None and partition not in wanted.get(topic, ()):
            continue
        by_dir.setdefault(_owning_dir(log_dir, dirs), {}).setdefault(topic, []).append(
            {
                "partition_index": partition,
                "partition_size": size,
                "offset_lag": lag,
                "is_future_key": future,
            }
        )
    results: list[DescribeLogDirsResponseDescribeLogDirsResult] = []
    for log_dir, topics in by_dir.items():
        if log_dir in offline:
            # As Kafka: an offline directory is listed with KAFKA_STORAGE_ERROR and nothing
            # else (its partitions are not served until the broker restarts).
            results.append(
                {
                    "error_code": errors.KafkaStorageError.code,
                    "log_dir": log_dir,
                    "topics": [],
                    "total_bytes": -1,
                    "usable_bytes": -1,
                    "is_cordoned": False,
                }
            )
            continue
        disk = _disk(log_dir)
        results.append(
            {
                "error_code": 0 if disk is not None else errors.KafkaStorageError.code,
                "log_dir": log_dir,
                "topics": [
                    {"name": name, "partitions": parts} for name, parts in sorted(topics.items())
                ],
                "total_bytes": disk[0] if disk is not None else -1,
                "usable_bytes": disk[1] if disk is not None else -1,
                "is_cordoned": False,
            }
        )
    return results


async def handle(ctx: RequestContext, request: DescribeLogDirsRequest) -> DescribeLogDirsResponse:
    if not ctx.authorize_cluster(AclOperation.DESCRIBE):
        # As Kafka: nothing, with CLUSTER_AUTHORIZATION_FAILED (v3+ has the field).
        return {
            "throttle_time_ms": 0,
            "error_code": ClusterAuthorizationFailedError.code,
            "results": [],
        }
    native, log_dirs, wanted = ctx.broker.native, ctx.broker.config.log_dirs, _wanted(request)
    results = await native_call(
        lambda: _describe(
            native.partition_states(),
            native.log_dirs.futures(),
            log_dirs,
            wanted,
            {os.path.abspath(d) for d in native.offline_log_dirs()},
        )
    )
    return {"throttle_time_ms": 0, "error_code": 0, "results": results}
