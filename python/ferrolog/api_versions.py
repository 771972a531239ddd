"""THE table of API versions this broker advertises in ApiVersions.

Python-served APIs are advertised only if a handler is registered for them, at the versions
where the handler's own range, the codec's schemas and the cap below all agree; the native
core's APIs (Produce, Fetch, ListOffsets, OffsetForLeaderEpoch) come from
`ferrolog_native.native_api_versions()` unchanged. The dispatcher enforces the same table: a
request outside it closes the connection (ApiVersions excepted, see the dispatcher)."""

from __future__ import annotations

import functools
import logging

from ferrolog.handlers import Handler, handlers
from ferrolog.protocol import SCHEMA_VERSIONS

log = logging.getLogger(__name__)

# The "Suggested advertise" ranges of the protocol notes (kafka-protocol/README.md section 3):
# what the target clients pick, with every field of those versions implemented. An API
# missing here is advertised at its handler's own range.
CAPS: dict[int, tuple[int, int]] = {
    3: (0, 12),  # Metadata
    8: (2, 9),  # OffsetCommit
    9: (1, 9),  # OffsetFetch
    10: (0, 4),  # FindCoordinator
    11: (0, 9),  # JoinGroup
    12: (0, 4),  # Heartbeat
    13: (0, 5),  # LeaveGroup
    14: (0, 5),  # SyncGroup
    15: (0, 5),  # DescribeGroups
    16: (0, 5),  # ListGroups
    18: (0, 4),  # ApiVersions
    19: (2, 7),  # CreateTopics
    20: (1, 6),  # DeleteTopics
    21: (0, 2),  # DeleteRecords
    22: (0, 4),  # InitProducerId
    24: (0, 3),  # AddPartitionsToTxn
    25: (0, 3),  # AddOffsetsToTxn
    26: (0, 3),  # EndTxn
    28: (0, 3),  # TxnOffsetCommit
    32: (1, 4),  # DescribeConfigs
    33: (0, 2),  # AlterConfigs
    35: (1, 4),  # DescribeLogDirs
    37: (0, 3),  # CreatePartitions
    42: (0, 2),  # DeleteGroups
    44: (0, 1),  # IncrementalAlterConfigs
    60: (0, 1),  # DescribeCluster
}


# Produce v0-2 are advertised but refused (the native core closes the connection), as Kafka 4.x
# does: librdkafka before 2.11.1 turns gzip, snappy and lz4 off unless Produce v0 is listed
# (KAFKA-18659, librdkafka #4956). Clients pick the highest common version, so none sends them.
ADVERTISED_BELOW_SERVED: dict[int, int] = {0: 0}


def python_versions(
    table: dict[int, Handler], native: dict[int, tuple[int, int]]
) -> dict[int, tuple[int, int]]:
    result: dict[int, tuple[int, int]] = {}
    for key, handler in table.items():
        if key in native:
            log.warning("handler ignored, the native core serves api_key=%d", key)
            continue
        if key not in SCHEMA_VERSIONS:
            log.warning("handler ignored, no schema for api_key=%d", key)
            continue
        bounds = [SCHEMA_VERSIONS[key], CAPS.get(key, SCHEMA_VERSIONS[key])]
        low = max(b[0] for b in bounds)
        high = min(b[1] for b in bounds)
        if handler.min_version is not None:
            low = max(low, handler.min_version)
        if handler.max_version is not None:
            high = min(high, handler.max_version)
        if low <= high:
            result[key] = (low, high)
    return result


def merge(
    table: dict[int, Handler], native: dict[int, tuple[int, int]]
) -> dict[int, tuple[int, int]]:
    merged = {**python_versions(table, native), **native}
    for key, low in ADVERTISED_BELOW_SERVED.items():
        if key in merged:
            merged[key] = (min(low, merged[key][0]), merged[key][1])
    return dict(sorted(merged.items()))


@functools.cache
def advertised() -> dict[int, tuple[int, int]]:
    """`{api_key: (min, max)}` for every API this broker serves."""
    import ferrolog_native

    return merge(handlers(), dict(ferrolog_native.native_api_versions()))
