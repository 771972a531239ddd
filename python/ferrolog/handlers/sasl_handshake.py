"""SaslHandshake (key 17), v0-1: the client names the SASL mechanism it will authenticate
with. After v0 the tokens follow bare (without a request header); after v1 they come in
SaslAuthenticate requests. A mechanism the listener does not offer is answered with
UNSUPPORTED_SASL_MECHANISM and the listener's mechanisms, and the connection closes, as
Kafka's SaslServerAuthenticator does; on a listener without SASL, or once authenticated,
the answer is ILLEGAL_SASL_STATE (no re-authentication, `connections.max.reauth.ms` 0)."""

from __future__ import annotations

from ferrolog.errors import IllegalSaslStateError, UnsupportedSaslMechanismError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, SaslHandshakeRequest, SaslHandshakeResponse

API_KEY = ApiKey.SASL_HANDSHAKE
MIN_VERSION = 0
MAX_VERSION = 1


async def handle(ctx: RequestContext, request: SaslHandshakeRequest) -> SaslHandshakeResponse:
    sasl = ctx.broker.sasl
    mechanisms = sasl.mechanisms(ctx.listener_name) if sasl is not None else []
    if sasl is None or ctx.sasl_phase != "handshake":
        return {"error_code": IllegalSaslStateError.code, "mechanisms": []}
    try:
        sasl.begin(ctx.connection_id, ctx.listener_name, request["mechanism"])
    except UnsupportedSaslMechanismError as exc:
        ctx.sasl_step = "failed"
        return {"error_code": exc.code, "mechanisms": mechanisms}
    ctx.sasl_step = "tokens" if ctx.api_version == 0 else "continue"
    return {"error_code": 0, "mechanisms": mechanisms}
