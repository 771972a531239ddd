"""One blocking Kafka-protocol connection: a request goes out, its response comes back.

For the tools and the Spark reader, which run on plain threads with no event loop to share
(`ferrolog verify-replicas`, the Spark driver's planner and its executor tasks). The codec
itself (`ferrolog.protocol`) stays sans-IO; this is the one place that puts it on a socket.
"""

from __future__ import annotations

import socket
import struct
from typing import Any, overload

from ferrolog.client.security import ClientSecurity
from ferrolog.protocol import decode_response, encode_request
from ferrolog.protocol.messages import Api, FetchRequest, Req, Resp


class Connection:
    """One TCP connection; requests go out one at a time and wait for their response.

    A broker that closes the connection, or answers with another request's correlation id,
    raises `ConnectionError` (an `OSError`): the connection is then unusable."""

    def __init__(
        self,
        host: str,
        port: int,
        timeout: float,
        client_id: str,
        security: ClientSecurity | None = None,
    ) -> None:
        self.address = f"{host}:{port}"
        self._client_id = client_id
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._correlation = 0
        try:
            self._sock = security.wrap(sock, host) if security is not None else sock
            if security is not None:
                security.authenticate(self.request)
        except BaseException:
            sock.close()
            raise

    @overload
    def request(self, api: Api[Req, Resp], version: int, body: Req) -> Resp: ...
    @overload
    def request(self, api: int, version: int, body: dict[str, Any]) -> dict[str, Any]: ...
    def request(self, api: Api[Any, Any] | int, version: int, body: Any) -> Any:
        """One request and its response. With `Apis.X` both bodies are typed; a bare api key
        (tests, the fuzzer) sends any dict and returns one."""
        key = api.key if isinstance(api, Api) else api
        correlation = self.next_correlation()
        self.send_frame(encode_request(key, version, correlation, self._client_id, body))
        answered, response = decode_response(key, version, self.read_frame())
        if answered != correlation:
            raise ConnectionError(f"{self.address}: response for another request")
        return response

    def next_correlation(self) -> int:
        self._correlation += 1
        return self._correlation

    def send_frame(self, frame: bytes, size: int | None = None) -> None:
        """Sends an encoded request behind its size prefix (`size` overrides the true one:
        the fuzzer's bad framing)."""
        self._sock.sendall(struct.pack(">i", len(frame) if size is None else size) + frame)

    def read_frame(self) -> bytes:
        """The next response frame (its header and body), without the size prefix."""
        (size,) = struct.unpack(">i", self._recv(4))
        if size < 0:
            raise ConnectionError(f"{self.address}: a response of size {size}")
        return self._recv(size)

    def settimeout(self, timeout: float) -> None:
        self._sock.settimeout(timeout)

    def _recv(self, n: int) -> bytes:
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            read = self._sock.recv_into(view[got:], n - got)
            if read == 0:
                raise ConnectionError(f"{self.address} closed the connection")
            got += read
        return bytes(buf)

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def fetch_body(
    topic: str,
    partition: int,
    offset: int,
    *,
    replica_id: int,
    max_wait_ms: int,
    min_bytes: int,
    max_bytes: int,
    isolation_level: int = 0,
) -> FetchRequest:
    """A Fetch request body for one partition, without a fetch session (any version up to
    12: the encoder leaves out fields the version lacks)."""
    return {
        "replica_id": replica_id,
        "max_wait_ms": max_wait_ms,
        "min_bytes": min_bytes,
        "max_bytes": max_bytes,
        "isolation_level": isolation_level,
        "session_id": 0,
        "session_epoch": -1,
        "topics": [
            {
                "topic": topic,
                "partitions": [
                    {
                        "partition": partition,
                        "current_leader_epoch": -1,
                        "fetch_offset": offset,
                        "last_fetched_epoch": -1,
                        "log_start_offset": -1,
                        "partition_max_bytes": max_bytes,
                    }
                ],
            }
        ],
        "forgotten_topics_data": [],
        "rack_id": "",
    }
