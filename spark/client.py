"""A small blocking Kafka-protocol client: what the Spark data source needs to plan and read
(Metadata, ListOffsets, Fetch), built on `ferrolog.protocol`.

It is blocking on purpose: Spark calls the data source from plain threads (the driver's
planning worker, one executor task per partition), so there is no event loop to share.
Versions are fixed to ones that ferrolog and Apache Kafka 2.1 and later all serve (KIP-896
kept them in 4.x): Metadata v9, ListOffsets v4, Fetch v11 (the last version that names topics
rather than topic ids). Python runs once per response, never once per record.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from ferrolog import errors
from ferrolog.client.connection import Connection, fetch_body
from ferrolog.client.security import ClientSecurity
from ferrolog.protocol.messages import (
    Api,
    Apis,
    FetchResponsePartitionData,
    ListOffsetsRequest,
    ListOffsetsRequestListOffsetsPartition,
    MetadataRequest,
    Req,
    Resp,
)

METADATA_VERSION = 9
LIST_OFFSETS_VERSION = 4
FETCH_VERSION = 11

EARLIEST = -2
LATEST = -1
CLIENT_ID = "ferrolog-spark"


@dataclass(frozen=True)
class PartitionInfo:
    topic: str
    partition: int
    leader: int


def parse_servers(bootstrap: str) -> list[tuple[str, int]]:
    servers = []
    for item in bootstrap.split(","):
        item = item.strip()
        if not item:
            continue
        host, _, port = item.rpartition(":")
        servers.append((host.strip("[]"), int(port)))
    if not servers:
        raise ValueError("kafka.bootstrap.servers is empty")
    return servers


class Cluster:
    """Connections to a cluster's brokers, found from the bootstrap servers."""

    def __init__(
        self, bootstrap: str, timeout: float = 30.0, security: ClientSecurity | None = None
    ) -> None:
        self._bootstrap = parse_servers(bootstrap)
        self._timeout = timeout
        self._security = security
        self._brokers: dict[int, tuple[str, int]] = {}
        self._connections: dict[tuple[str, int], Connection] = {}
        self._leaders: dict[tuple[str, int], int] = {}

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for conn in self._connections.values():
            conn.close()
        self._connections.clear()

    def _connect(self, address: tuple[str, int]) -> Connection:
        conn = self._connections.get(address)
        if conn is None:
            conn = Connection(address[0], address[1], self._timeout, CLIENT_ID, self._security)
            self._connections[address] = conn
        return conn

    def _any(self) -> Connection:
        failures = []
        for address in [*self._connections, *self._brokers.values(), *self._bootstrap]:
            try:
                return self._connect(address)
            except OSError as e:
                failures.append(f"{address[0]}:{address[1]}: {e}")
        raise ConnectionError("no broker reachable: " + "; ".join(failures))

    def _request(self, conn: Connection, api: Api[Req, Resp], version: int, body: Req) -> Resp:
        try:
            return conn.request(api, version, body)
        except OSError:
            # A connection the broker closed (idle timeout, restart) is replaced once; the
            # requests here are reads, so sending one again is harmless.
            address = next((a for a, c in self._connections.items() if c is conn), None)
            self._connections = {a: c for a, c in self._connections.items() if c is not conn}
            conn.close()
            if address is None:
                raise
            return self._connect(address).request(api, version, body)

    def metadata(self, topics: Iterable[str] | None = None) -> dict[str, list[PartitionInfo]]:
        """Topic -> partitions (sorted), for `topics` or every topic (internal ones excluded)."""
        body: MetadataRequest = {
            "topics": None if topics is None else [{"name": t} for t in topics],
            "allow_auto_topic_creation": False,
        }
        response = self._request(self._any(), Apis.METADATA, METADATA_VERSION, body)
        self._brokers = {b["node_id"]: (b["host"], b["port"]) for b in response["brokers"]}
        result: dict[str, list[PartitionInfo]] = {}
        for t in response["topics"]:
            name = t["name"]
            if t["error_code"] != 0 or t["is_internal"] or name is None:
                continue
            parts = sorted(
                (
                    PartitionInfo(name, p["partition_index"], p["leader_id"])
                    for p in t["partitions"]
                ),
                key=lambda p: p.partition,
            )
            result[name] = parts
            for p in parts:
                self._leaders[(p.topic, p.partition)] = p.leader
        return result

    def leader(self, topic: str, partition: int) -> Connection:
        """The connection to the partition's leader, asking for metadata when unknown."""
        node = self._leaders.get((topic, partition), -1)
        if node < 0 or node not in self._brokers:
            self.metadata([topic])
            node = self._leaders.get((topic, partition), -1)
        if node < 0 or node not in self._brokers:
            raise errors.LeaderNotAvailableError(f"no leader for {topic}-{partition}")
        return self._connect(self._brokers[node])

    def forget_leader(self, topic: str, partition: int) -> None:
        self._leaders.pop((topic, partition), None)

    def list_offsets(
        self,
        queries: dict[tuple[str, int], int],
        isolation_level: int = 0,
        retries: int = 10,
    ) -> dict[tuple[str, int], int]:
        """(topic, partition) -> timestamp (or EARLIEST/LATEST) in, -> offset out; -1 when no
        record has a timestamp at or after the one asked for. LATEST under read_committed is
        the last stable offset."""
        result: dict[tuple[str, int], int] = {}
        pending = dict(queries)
        for attempt in range(retries + 1):
            by_leader: dict[Connection, dict[tuple[str, int], int]] = {}
            for (topic, partition), ts in pending.items():
                by_leader.setdefault(self.leader(topic, partition), {})[(topic, partition)] = ts
            failed: dict[tuple[str, int], int] = {}
            for conn, group in by_leader.items():
                topics: dict[str, list[ListOffsetsRequestListOffsetsPartition]] = {}
                for (topic, partition), ts in group.items():
                    topics.setdefault(topic, []).append(
                        {"partition_index": partition, "current_leader_epoch": -1, "timestamp": ts}
                    )
                body: ListOffsetsRequest = {
                    "replica_id": -1,
                    "isolation_level": isolation_level,
                    "topics": [{"name": t, "partitions": ps} for t, ps in topics.items()],
                }
                response = self._request(conn, Apis.LIST_OFFSETS, LIST_OFFSETS_VERSION, body)
                for t in response["topics"]:
                    for p in t["partitions"]:
                        key = (t["name"], p["partition_index"])
                        if p["error_code"] == 0:
                            result[key] = p["offset"]
                        elif errors.retriable(p["error_code"]) and attempt < retries:
                            self.forget_leader(*key)
                            failed[key] = group[key]
                        else:
                            raise errors.for_code(p["error_code"])(f"ListOffsets {key[0]}-{key[1]}")
            if not failed:
                return result
            pending = failed
            time.sleep(min(0.05 * 2**attempt, 1.0))
        raise errors.LeaderNotAvailableError("ListOffsets: no leader")

    def fetch(
        self,
        topic: str,
        partition: int,
        offset: int,
        *,
        max_bytes: int,
        max_wait_ms: int,
        isolation_level: int,
    ) -> FetchResponsePartitionData:
        """One Fetch for one partition; returns the partition's response (error code,
        high watermark, last stable offset, log start offset, aborted transactions, records)."""
        body = fetch_body(
            topic,
            partition,
            offset,
            replica_id=-1,
            max_wait_ms=max_wait_ms,
            min_bytes=1,
            max_bytes=max_bytes,
            isolation_level=isolation_level,
        )
        conn = self.leader(topic, partition)
        response = self._request(conn, Apis.FETCH, FETCH_VERSION, body)
        if response["error_code"] != 0:
            raise errors.for_code(response["error_code"])(f"Fetch {topic}-{partition}")
        for t in response["responses"]:
            for p in t["partitions"]:
                if t["topic"] == topic and p["partition_index"] == partition:
                    return p
        raise errors.UnknownServerError(
            f"Fetch {topic}-{partition}: partition missing from the response"
        )
