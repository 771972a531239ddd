"""Requests from this broker to another one over the Kafka protocol (the transaction
coordinator's WriteTxnMarkers to partition leaders): one connection per broker, opened on
first use and again after a failure, one request in flight on it at a time.

Connections go to the other broker's endpoint on the inter-broker listener, with its
security as Kafka's brokers connect: TLS (trusting the broker's trust store, presenting its
key store) for SSL and SASL_SSL, then for SASL_PLAINTEXT and SASL_SSL the SASL exchange
(`ferrolog.client.sasl`)."""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import Callable
from typing import Any

from ferrolog.client import sasl
from ferrolog.client.sasl import SaslError
from ferrolog.config.inter_broker import InterBrokerClient, SaslLogin
from ferrolog.protocol import decode_response, encode_request
from ferrolog.protocol.messages import Api, Req, Resp

# (host, port) of a live broker, None for one that is not registered.
AddressOf = Callable[[int], tuple[str, int] | None]
REQUEST_TIMEOUT_S = 30.0
CLOSE_TIMEOUT_S = 1.0
_SIZE = struct.Struct(">i")


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.lock = asyncio.Lock()
        self.correlation = 0

    async def call(self, client_id: str, api_key: int, version: int, body: Any) -> Any:
        """One request and its response; the caller holds `lock` (or owns the connection)."""
        self.correlation += 1
        frame = encode_request(api_key, version, self.correlation, client_id, body)
        self.writer.write(_SIZE.pack(len(frame)) + frame)
        async with asyncio.timeout(REQUEST_TIMEOUT_S):
            await self.writer.drain()
            (size,) = _SIZE.unpack(await self.reader.readexactly(_SIZE.size))
            data = await self.reader.readexactly(size)
        correlation, response = decode_response(api_key, version, data)
        if correlation != self.correlation:
            raise ConnectionError("the broker answered another request")
        return response

    def close(self) -> None:
        self.writer.close()


class BrokerChannel:
    def __init__(
        self,
        node_id: int,
        address_of: AddressOf,
        client: Callable[[], InterBrokerClient] | None = None,
    ) -> None:
        """`client` builds the inter-broker listener's security, on the first connection
        (None: PLAINTEXT)."""
        self._client_id = f"broker-{node_id}"
        self._address_of = address_of
        self._connections: dict[int, _Connection] = {}
        self._client_factory = client
        self._client: InterBrokerClient | None = None

    async def request(self, node: int, api: Api[Req, Resp], version: int, body: Req) -> Resp:
        """Sends one request to broker `node` and returns its response body; raises
        ConnectionError (or TimeoutError) when the broker cannot be reached or answered."""
        conn = await self._connect(node)
        try:
            async with conn.lock:
                response: Resp = await conn.call(self._client_id, api.key, version, body)
                return response
        except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
            self._drop(node, conn)
            raise ConnectionError(f"broker {node}: {exc!r}") from exc

    def _security(self) -> InterBrokerClient:
        if self._client is None:
            try:
                self._client = (
                    InterBrokerClient() if self._client_factory is None else self._client_factory()
                )
            except ValueError as exc:  # the TLS stores cannot be read
                raise ConnectionError(f"inter-broker listener: {exc}") from exc
        return self._client

    async def _connect(self, node: int) -> _Connection:
        conn = self._connections.get(node)
        if conn is not None:
            return conn
        address = self._address_of(node)
        if address is None:
            raise ConnectionError(f"broker {node} is not registered")
        security = self._security()
        host, port = address
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT_S):
                reader, writer = await asyncio.open_connection(
                    host,
                    port,
                    ssl=security.ssl_context,
                    server_hostname=host if security.ssl_context is not None else None,
                )
            fresh = _Connection(reader, writer)
            if security.sasl is not None:
                await authenticate(fresh, self._client_id, security.sasl)
        except SaslError:
            raise
        except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
            raise ConnectionError(f"broker {node} at {host}:{port}: {exc!r}") from exc
        conn = self._connections.setdefault(node, fresh)
        if conn is not fresh:
            fresh.close()
        return conn

    def _drop(self, node: int, conn: _Connection) -> None:
        if self._connections.get(node) is conn:
            del self._connections[node]
        conn.close()

    def close(self) -> None:
        for conn in self._connections.values():
            conn.close()
        self._connections.clear()

    async def aclose(self) -> None:
        """`close`, then waits (briefly) until the sockets are really closed: a loop that ends
        right after would otherwise leave them open (a TLS close is several round trips)."""
        writers = [conn.writer for conn in self._connections.values()]
        self.close()
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(CLOSE_TIMEOUT_S):
                await asyncio.gather(*(w.wait_closed() for w in writers))


async def authenticate(conn: _Connection, client_id: str, login: SaslLogin) -> None:
    """The SASL exchange (`ferrolog.client.sasl`) on a new connection; SaslError when refused
    (the connection is then closed)."""

    async def call(api_key: int, version: int, body: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = await conn.call(client_id, api_key, version, body)
        return answer

    try:
        await sasl.run_async(sasl.exchange(login.mechanism, login.username, login.password), call)
    except BaseException:
        conn.close()
        raise
