"""Drains the native core's control queue on the event loop and answers each request.

The native core hands every request it does not serve itself to Python through one queue and
signals an eventfd; the loop watches that fd (`add_reader`) and takes requests until the queue
is empty. Each request is decoded with the Python codec and handled in its own task, so a slow
CreateTopics does not hold up other connections; order within one connection is kept by the
native core, which has at most one request per connection in flight.

Answers Kafka gives to bad requests:
- unknown API key, or a version outside the advertised range: the connection is closed;
- except ApiVersions at a version this broker does not know: an ApiVersionsResponse v0 with
  UNSUPPORTED_VERSION and the full API list, so the client can retry at a version both know;
- a malformed body: the connection is closed;
- a handler that raises (a bug): the error is logged and the connection closed.

Each refusal, and each response carrying an error code, goes to the native core's request log
(`Server.refused`, `Server.answered`), which writes them rate-limited beside the natively
served requests' and counts the error codes for /metrics.

Each answered request's busy time (see `ferrolog.request_time`) is metered against its
client's request quota; a client over it gets the throttle in the response's
`throttle_time_ms` and its connection muted for that long (KIP-219).
"""

from __future__ import annotations

import asyncio
import logging
import struct
import time
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ferrolog.errors import (
    IllegalSaslStateError,
    SaslAuthenticationFailedError,
    UnsupportedVersionError,
)
from ferrolog.handlers import Handler, sasl_authenticate
from ferrolog.handlers import api_versions as api_versions_handler
from ferrolog.handlers.context import BrokerServices, RequestContext
from ferrolog.protocol import ProtocolError, decode_request, decode_request_header, encode_response
from ferrolog.request_time import CLUSTER_ACTIONS, THROTTLE_FIELD, Stopwatch

if TYPE_CHECKING:
    from ferrolog_native import ControlRequest
    from ferrolog_native import Server as ControlQueue

log = logging.getLogger(__name__)

API_VERSIONS_KEY = 18


class Dispatcher:
    def __init__(
        self,
        queue: ControlQueue,
        services: BrokerServices,
        handlers: dict[int, Handler],
        versions: dict[int, tuple[int, int]],
    ) -> None:
        self._queue = queue
        self._services = services
        self._handlers = handlers
        self._versions = versions
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._fd: int | None = None

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = loop or asyncio.get_running_loop()
        self._fd = self._queue.wakeup_fd()
        self._loop.add_reader(self._fd, self.drain)
        # Requests may have queued before the reader was installed.
        self._loop.call_soon(self.drain)

    async def stop(self, grace: float = 5.0) -> None:
        """Stops taking requests and waits up to `grace` seconds for handlers in flight."""
        if self._loop is not None and self._fd is not None:
            self._loop.remove_reader(self._fd)
            self._fd = None
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=grace)
            for task in pending:
                task.cancel()

    def drain(self) -> None:
        """Takes requests until the queue is empty (which also clears the eventfd)."""
        if self._fd is None:
            return
        while True:
            requests = self._queue.take_requests()
            if not requests:
                return
            for request in requests:
                self.dispatch(request)

    def dispatch(self, request: ControlRequest) -> None:
        if request.sasl_phase == "token":
            self._sasl_token(request)
            return
        key, version = request.api_key, request.api_version
        allowed = self._versions.get(key)
        handler = self._handlers.get(key)
        if allowed is None or handler is None:
            self._close(request, "unknown API key")
            return
        if not allowed[0] <= version <= allowed[1]:
            if key == API_VERSIONS_KEY:
                self._unsupported_api_versions(request)
            else:
                self._close(
                    request, f"unsupported version (this broker serves {allowed[0]}-{allowed[1]})"
                )
            return
        watch = Stopwatch()  # the request's busy time, its decoding included
        started = time.perf_counter_ns()
        try:
            header, offset = decode_request_header(request.frame)
            body = decode_request(key, version, request.frame, offset)
        except ProtocolError as exc:
            self._close(request, f"malformed request: {exc}")
            return
        context = RequestContext(
            api_key=key,
            api_version=version,
            correlation_id=request.correlation_id,
            client_id=header.client_id,
            peer=request.peer,
            broker=self._services,
            listener_name=request.listener_name,
            principal=request.principal,
            token_authenticated=request.token_authenticated,
            connection_id=request.connection_id,
            sasl_phase=request.sasl_phase,
        )
        watch.busy_ns = time.perf_counter_ns() - started
        task = asyncio.ensure_future(
            self._run(handler, context, request, body, watch), loop=self._loop
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(
        self,
        handler: Handler,
        context: RequestContext,
        request: ControlRequest,
        body: dict[str, Any],
        watch: Stopwatch,
    ) -> None:
        try:
            response = await watch.run(handler.handle(context, body))
            if context.sasl_step is not None:
                self._sasl_respond(context, request, response)
                return
            # A handler's own throttle (a controller mutation quota) or the request quota's,
            # whichever is longer, as Kafka answers.
            handler_ms = response.get("throttle_time_ms", 0)
            handler_ms = handler_ms if isinstance(handler_ms, int) else 0
            request_ms = self._request_throttle(context, watch.busy_ns)
            throttle_ms = max(handler_ms, request_ms)
            if request_ms > handler_ms:
                response = {**response, "throttle_time_ms": request_ms}
            encoded = encode_response(
                context.api_key, context.api_version, context.correlation_id, response
            )
        except asyncio.CancelledError:
            self._close(request, None)  # stopping: not a refusal
            raise
        except Exception:
            log.exception(
                "handler failed, closing connection api_key=%d version=%d peer=%s",
                context.api_key,
                context.api_version,
                context.peer,
            )
            self._close(request, "internal error (logged above)")
            return
        self._respond(request, encoded, throttle_ms)
        self._queue.answered(
            context.api_key,
            context.api_version,
            context.client_id,
            context.peer,
            list(error_codes(response).items()),
        )

    def _sasl_respond(
        self, context: RequestContext, request: ControlRequest, response: Mapping[str, object]
    ) -> None:
        """Answers a SASL request, then the connection moves on as the handler decided
        (never throttled: the client is not authenticated yet)."""
        step = context.sasl_step
        assert step is not None
        if step == "close":
            self._close(request, "SASL request out of order (before SaslHandshake)")
            return
        encoded = encode_response(
            context.api_key, context.api_version, context.correlation_id, response
        )
        if step == "failed":
            self._queue.refused(
                context.api_key,
                context.api_version,
                context.client_id,
                context.peer,
                "SASL authentication failed",
            )
        self._queue.respond_sasl(
            request.handle, encoded, step, context.sasl_principal, context.sasl_lifetime_ms
        )

    def _sasl_token(self, request: ControlRequest) -> None:
        """A bare token after SaslHandshake v0: answered with a bare token; a failure closes
        the connection (the v0 flow has no way to say why, as in Kafka)."""
        context = RequestContext(
            api_key=sasl_authenticate.API_KEY,
            api_version=0,
            correlation_id=0,
            client_id=None,
            peer=request.peer,
            broker=self._services,
            listener_name=request.listener_name,
            connection_id=request.connection_id,
            sasl_phase=request.sasl_phase,
        )
        sasl = self._services.sasl
        try:
            if sasl is None:
                raise IllegalSaslStateError("no SASL on this broker")
            outcome = sasl_authenticate.token(context, sasl, request.frame)
        except (SaslAuthenticationFailedError, IllegalSaslStateError) as exc:
            self._close(request, f"SASL authentication failed: {exc.message}")
            return
        step = context.sasl_step
        assert step is not None
        self._queue.respond_sasl(
            request.handle, outcome.challenge, step, outcome.principal, outcome.lifetime_ms
        )

    def _unsupported_api_versions(self, request: ControlRequest) -> None:
        # Parsed as v0 means: only the correlation id matters, the body is not read at all.
        body = api_versions_handler.body(self._versions, UnsupportedVersionError.code)
        self._respond(request, encode_response(API_VERSIONS_KEY, 0, request.correlation_id, body))

    def _request_throttle(self, context: RequestContext, busy_ns: int) -> int:
        """The throttle in ms the request earned against its client's request quota; 0 for a
        cluster action (exempt, as in Kafka) or a response that cannot carry it."""
        if context.api_key in CLUSTER_ACTIONS or context.api_key not in THROTTLE_FIELD:
            return 0
        return self._queue.record_request_time(context.client_id, busy_ns, context.principal)

    def _respond(self, request: ControlRequest, response: bytes, throttle_ms: int = 0) -> None:
        try:
            self._queue.respond(request.handle, response, throttle_ms)
        except Exception:
            # The connection may be gone already; nothing to answer then.
            log.debug("respond failed", exc_info=True)

    def _close(self, request: ControlRequest, reason: str | None) -> None:
        """Closes `request`'s connection; the native request log says why (`reason`)."""
        if reason is not None:
            client_id = _client_id(request.frame)
            self._queue.refused(
                request.api_key, request.api_version, client_id, request.peer, reason
            )
        try:
            self._queue.close_connection(request.handle)
        except Exception:
            log.debug("close_connection failed", exc_info=True)


def error_codes(response: Mapping[str, object]) -> Counter[int]:
    """Every `error_code` in a response body, at any depth, counted as Kafka's
    `errorCounts` does (NONE included) for its `ErrorsPerSec` meter."""
    counts: Counter[int] = Counter()
    stack: list[Any] = [response]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            code = node.get("error_code")
            if isinstance(code, int):
                counts[code] += 1
            stack.extend(v for v in node.values() if isinstance(v, list | dict))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, list | dict))
    return counts


def _client_id(frame: bytes) -> str | None:
    """The request header's client id, read without trusting the rest of the frame (the
    header of a request refused as unknown or malformed may not parse as a whole)."""
    if len(frame) < 10:
        return None
    (size,) = struct.unpack_from(">h", frame, 8)
    if size < 0 or len(frame) < 10 + size:
        return None
    return frame[10 : 10 + size].decode("utf-8", "replace")
