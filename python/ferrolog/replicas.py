"""Reading a replica's log directly from its broker, as Kafka's debugging consumer: Fetch with
`replica_id = -2`, which a broker serves from its local log whatever its role, from the log
start up to a given offset, split into whole batches. `ferrolog verify-replicas` compares the
replicas this way, and `ferrolog fuzz` checks that what it wrote is still there."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ferrolog.client.connection import Connection, fetch_body
from ferrolog.client.security import ClientSecurity
from ferrolog.protocol.messages import Apis, FetchResponsePartitionData

FETCH_VERSION = 12
DEBUG_REPLICA_ID = -2
MAX_BYTES = 4 * 1024 * 1024


@dataclass
class ReplicaLog:
    broker: int
    high_watermark: int
    log_start_offset: int
    batches: list[tuple[int, bytes]]  # (base offset, whole batch)
    error: str | None = None


def debug_fetch(
    conn: Connection, topic: str, partition: int, offset: int
) -> FetchResponsePartitionData:
    """One Fetch as the debugging consumer: the replica's own log, whatever its role."""
    body = fetch_body(
        topic,
        partition,
        offset,
        replica_id=DEBUG_REPLICA_ID,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=MAX_BYTES,
    )
    response = conn.request(Apis.FETCH, FETCH_VERSION, body)
    result = response["responses"][0]["partitions"][0]
    if response.get("error_code"):
        result["error_code"] = response["error_code"]
    return result


def split_batches(records: bytes) -> list[tuple[int, bytes]]:
    """Whole batches of a Fetch response's records (a truncated last batch is dropped)."""
    out = []
    pos = 0
    while pos + 12 <= len(records):
        base, length = struct.unpack_from(">qi", records, pos)
        end = pos + 12 + length
        if end > len(records):
            break
        out.append((base, records[pos:end]))
        pos = end
    return out


def batch_end(batch: bytes) -> int:
    """The offset after the batch's last record (base offset + last offset delta + 1)."""
    base = struct.unpack_from(">q", batch, 0)[0]
    delta = struct.unpack_from(">i", batch, 23)[0]
    return int(base) + int(delta) + 1


def read_replica(
    host: str,
    port: int,
    broker: int,
    topic: str,
    partition: int,
    until: int | None,
    timeout: float,
    security: ClientSecurity | None = None,
) -> ReplicaLog:
    """Reads the replica from its log start up to `until` (None: its own high watermark)."""
    conn = Connection(host, port, timeout, "verify-replicas", security=security)
    try:
        first = debug_fetch(conn, topic, partition, 0)
        if first["error_code"] == 1:  # OFFSET_OUT_OF_RANGE: the log starts later
            first = debug_fetch(conn, topic, partition, max(0, int(first["log_start_offset"])))
        if first["error_code"]:
            return ReplicaLog(broker, -1, -1, [], f"error code {first['error_code']}")
        hw = int(first["high_watermark"])
        log_start = int(first["log_start_offset"])
        target = hw if until is None else until
        batches: list[tuple[int, bytes]] = []
        response = first
        while True:
            got = split_batches(response.get("records") or b"")
            batches.extend(b for b in got if b[0] < target)
            if not got or batch_end(got[-1][1]) >= target:
                break
            response = debug_fetch(conn, topic, partition, batch_end(got[-1][1]))
            if response["error_code"]:
                return ReplicaLog(broker, hw, log_start, batches, f"error {response['error_code']}")
        return ReplicaLog(broker, hw, log_start, batches)
    finally:
        conn.close()
