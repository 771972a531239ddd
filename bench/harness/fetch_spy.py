"""A TCP proxy in front of a broker that records every Fetch exchange passing through it.

Start the broker with `advertised.listeners` pointing at the proxy, so that clients (and
followers, which fetch from the address their leader registered) reach the broker only
through it. For each Fetch it records what the fetcher asked (session id and epoch, partitions
named, partitions forgotten) and what the broker answered (bytes on the wire, session id,
error, partitions), decoded with ferrolog's own protocol codec. Other requests pass through
untouched."""

from __future__ import annotations

import collections
import contextlib
import socket
import struct
import threading
from dataclasses import dataclass
from typing import Any

from ferrolog.protocol import decode_request, decode_request_header, decode_response
from ferrolog.protocol.messages import ApiKey


@dataclass(frozen=True)
class FetchExchange:
    client_id: str
    version: int
    replica_id: int
    session_id: int
    session_epoch: int
    partitions_asked: int
    partitions_forgotten: int
    response_bytes: int  # the whole frame, size prefix included
    response_session_id: int
    error_code: int
    partitions_answered: int
    record_bytes: int


def _recv_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


# (correlation id, api key, version, client id, decoded Fetch request or None)
_Pending = collections.deque[tuple[int, int, int, str, Any]]


def _read_frame(sock: socket.socket) -> bytes | None:
    size = _recv_exact(sock, 4)
    if size is None:
        return None
    body = _recv_exact(sock, struct.unpack(">i", size)[0])
    return None if body is None else size + body


def _shut(*sockets: socket.socket) -> None:
    """Ends both directions of a proxied connection (the other thread sees EOF)."""
    for s in sockets:
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)


class FetchSpy:
    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        self.target = (host, target_port)
        self._listener = socket.create_server((host, 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._exchanges: list[FetchExchange] = []
        self._closed = False
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def address(self) -> str:
        return f"{self.target[0]}:{self.port}"

    def exchanges(self) -> list[FetchExchange]:
        with self._lock:
            return list(self._exchanges)

    def clear(self) -> None:
        with self._lock:
            self._exchanges.clear()

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        with self._lock:
            _shut(*self._sockets)
            for s in self._sockets:
                s.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets += [client, server]
            pending: _Pending = collections.deque()
            threading.Thread(
                target=self._requests, args=(client, server, pending), daemon=True
            ).start()
            threading.Thread(
                target=self._responses, args=(server, client, pending), daemon=True
            ).start()

    def _requests(
        self,
        client: socket.socket,
        server: socket.socket,
        pending: _Pending,
    ) -> None:
        try:
            while (frame := _read_frame(client)) is not None:
                header, offset = decode_request_header(frame[4:])
                body = None
                if header.api_key == ApiKey.FETCH:
                    body = decode_request(ApiKey.FETCH, header.api_version, frame[4:], offset)
                # Responses come back in request order (one connection, Kafka's rule).
                pending.append(
                    (
                        header.correlation_id,
                        header.api_key,
                        header.api_version,
                        header.client_id or "",
                        body,
                    )
                )
                server.sendall(frame)
        except OSError:
            pass
        finally:
            _shut(client, server)

    def _responses(
        self,
        server: socket.socket,
        client: socket.socket,
        pending: _Pending,
    ) -> None:
        try:
            while (frame := _read_frame(server)) is not None:
                correlation_id = struct.unpack_from(">i", frame, 4)[0]
                # requests without a response (acks=0 produces) are skipped
                while pending[0][0] != correlation_id:
                    pending.popleft()
                _, api_key, version, client_id, request = pending.popleft()
                if api_key == ApiKey.FETCH:
                    self._record(frame, version, client_id, request)
                client.sendall(frame)
        except (OSError, IndexError):
            pass
        finally:
            _shut(client, server)

    def _record(self, frame: bytes, version: int, client_id: str, request: Any) -> None:
        _, body = decode_response(ApiKey.FETCH, version, frame[4:])
        replica_id = request.get("replica_id", -1)
        state = request.get("replica_state")
        if version >= 15 and isinstance(state, dict):
            replica_id = state.get("replica_id", -1)
        answered = [p for t in body["responses"] for p in t["partitions"]]
        forgotten = request.get("forgotten_topics_data") or []
        exchange = FetchExchange(
            client_id=client_id,
            version=version,
            replica_id=int(replica_id),
            session_id=int(request.get("session_id", 0)),
            session_epoch=int(request.get("session_epoch", -1)),
            partitions_asked=sum(len(t["partitions"]) for t in request["topics"]),
            partitions_forgotten=sum(len(t["partitions"]) for t in forgotten),
            response_bytes=len(frame),
            response_session_id=int(body.get("session_id", 0)),
            error_code=int(body.get("error_code", 0)),
            partitions_answered=len(answered),
            record_bytes=sum(len(p["records"] or b"") for p in answered),
        )
        with self._lock:
            self._exchanges.append(exchange)
