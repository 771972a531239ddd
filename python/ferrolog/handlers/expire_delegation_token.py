"""ExpireDelegationToken (key 40), v1-2: the owner or a renewer brings a token's expiry
forward to now plus a period, or (a negative period) removes the token at once."""

from __future__ import annotations

from ferrolog.handlers._tokens import new_expiry
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    ExpireDelegationTokenRequest,
    ExpireDelegationTokenResponse,
)

API_KEY = ApiKey.EXPIRE_DELEGATION_TOKEN
MIN_VERSION = 1
MAX_VERSION = 2


async def handle(
    ctx: RequestContext, request: ExpireDelegationTokenRequest
) -> ExpireDelegationTokenResponse:
    code, expiry = await new_expiry(
        ctx,
        lambda tokens, now: tokens.expire(
            request["hmac"], ctx.principal, request["expiry_time_period_ms"], now
        ),
    )
    return {"error_code": code, "expiry_timestamp_ms": expiry, "throttle_time_ms": 0}
