"""One blocking Kafka-protocol connection: a request goes out, its response comes back.

For the tools and the Spark reader, which run on plain threads with no event loop to share
(`ferrolog verify-replicas`, the Spark driver's planner and its executor tasks). The codec
itself (`ferrolog.protocol`) stays sans-IO; this is the one place that puts it on a socket.
"""

from __future__ import annotations

import socket
import struct
from typing import Any

from ferrolog.protocol import decode_response, encode_request


class Connection:
    """One TCP connection; requests go out one at a time and wait for their response.

    A broker that closes the connection, or answers with another request's correlation id,
    raises `ConnectionError` (an `OSError`): the connection is then unusable."""

    def __init__(self, host: str, port: int, timeout: float, client_id: str) -> None:
        self.address = f"{host}:{port}"
        self._client_id = client_id
        self._sock = socket.create_connection((host, port), timeout=timeout)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._correlation = 0

    def request(self, api_key: int, version: int, body: dict[str, Any]) -> dict[str, Any]:
        self._correlation += 1
        frame = encode_request(api_key, version, self._correlation, self._client_id, body)
        self._sock.sendall(struct.pack(">i", len(frame)) + frame)
        (size,) = struct.unpack(">i", self._recv(4))
        correlation, response = decode_response(api_key, version, self._recv(size))
        if correlation != self._correlation:
            raise ConnectionError(f"{self.address}: response for another request")
        return response

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
