"""Requests from this broker to another one over the Kafka protocol (the transaction
coordinator's WriteTxnMarkers to partition leaders): one connection per broker, opened on
first use and again after a failure, one request in flight on it at a time."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Callable
from typing import Any

from ferrolog.protocol import decode_response, encode_request

# (host, port) of a live broker, None for one that is not registered.
AddressOf = Callable[[int], tuple[str, int] | None]
REQUEST_TIMEOUT_S = 30.0
_SIZE = struct.Struct(">i")


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.lock = asyncio.Lock()
        self.correlation = 0

    def close(self) -> None:
        self.writer.close()


class BrokerChannel:
    def __init__(self, node_id: int, address_of: AddressOf) -> None:
        self._client_id = f"broker-{node_id}"
        self._address_of = address_of
        self._connections: dict[int, _Connection] = {}

    async def request(
        self, node: int, api_key: int, version: int, body: dict[str, Any]
    ) -> dict[str, Any]:
        """Sends one request to broker `node` and returns its response body; raises
        ConnectionError (or TimeoutError) when the broker cannot be reached or answered."""
        conn = await self._connect(node)
        try:
            async with conn.lock:
                conn.correlation += 1
                frame = encode_request(api_key, version, conn.correlation, self._client_id, body)
                conn.writer.write(_SIZE.pack(len(frame)) + frame)
                async with asyncio.timeout(REQUEST_TIMEOUT_S):
                    await conn.writer.drain()
                    (size,) = _SIZE.unpack(await conn.reader.readexactly(_SIZE.size))
                    data = await conn.reader.readexactly(size)
                correlation, response = decode_response(api_key, version, data)
                if correlation != conn.correlation:
                    raise ConnectionError(f"broker {node} answered another request")
                return response
        except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
            self._drop(node, conn)
            raise ConnectionError(f"broker {node}: {exc!r}") from exc

    async def _connect(self, node: int) -> _Connection:
        conn = self._connections.get(node)
        if conn is not None:
            return conn
        address = self._address_of(node)
        if address is None:
            raise ConnectionError(f"broker {node} is not registered")
        async with asyncio.timeout(REQUEST_TIMEOUT_S):
            reader, writer = await asyncio.open_connection(*address)
        conn = self._connections.setdefault(node, _Connection(reader, writer))
        if conn.writer is not writer:
            writer.close()
        return conn

    def _drop(self, node: int, conn: _Connection) -> None:
        if self._connections.get(node) is conn:
            del self._connections[node]
        conn.close()

    def close(self) -> None:
        for conn in self._connections.values():
            conn.close()
        self._connections.clear()
