"""SaslAuthenticate (key 36), v0-2: one token of the SASL exchange a SaslHandshake v1 began.
The answer carries the server's token; a failed authentication is answered with
SASL_AUTHENTICATION_FAILED and Kafka's message, and the connection closes. Out of order
(before a SaslHandshake) the connection closes unanswered, as Kafka's
IllegalSaslStateException does; after authentication, or on a listener without SASL, the
answer is ILLEGAL_SASL_STATE.

The bare tokens of the v0 flow reach `token` (from the dispatcher), not `handle`."""

from __future__ import annotations

from ferrolog.controller.security.sasl import Outcome, SaslAuthenticator
from ferrolog.errors import IllegalSaslStateError, SaslAuthenticationFailedError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, SaslAuthenticateRequest, SaslAuthenticateResponse

API_KEY = ApiKey.SASL_AUTHENTICATE
MIN_VERSION = 0
MAX_VERSION = 2


async def handle(ctx: RequestContext, request: SaslAuthenticateRequest) -> SaslAuthenticateResponse:
    sasl = ctx.broker.sasl
    if sasl is None or ctx.sasl_phase != "handshake":
        message = "SaslAuthenticate request received after successful authentication"
        return {
            "error_code": IllegalSaslStateError.code,
            "error_message": message,
            "auth_bytes": b"",
        }
    try:
        outcome = token(ctx, sasl, request["auth_bytes"])
    except SaslAuthenticationFailedError as exc:
        ctx.sasl_step = "failed"
        return {"error_code": exc.code, "error_message": exc.message, "auth_bytes": b""}
    except IllegalSaslStateError:
        ctx.sasl_step = "close"
        return {"error_code": IllegalSaslStateError.code, "error_message": None, "auth_bytes": b""}
    return {"error_code": 0, "error_message": None, "auth_bytes": outcome.challenge}


def token(ctx: RequestContext, sasl: SaslAuthenticator, auth_bytes: bytes) -> Outcome:
    """One token of the connection's exchange; sets what the connection does next."""
    outcome = sasl.step(ctx.connection_id, auth_bytes)
    if outcome.principal is None:
        ctx.sasl_step = "continue"
    else:
        ctx.sasl_step = "authenticated-by-token" if outcome.by_token else "authenticated"
        ctx.sasl_principal = outcome.principal
        ctx.sasl_lifetime_ms = outcome.lifetime_ms
    return outcome
