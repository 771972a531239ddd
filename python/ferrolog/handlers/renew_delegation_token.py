"""RenewDelegationToken (key 39), v1-2: the owner or a renewer pushes a token's expiry out by
a period (the default, `delegation.token.expiry.time.ms`, when the period is not positive;
never past the token's max lifetime)."""

from __future__ import annotations

from ferrolog.handlers._tokens import new_expiry
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    RenewDelegationTokenRequest,
    RenewDelegationTokenResponse,
)

API_KEY = ApiKey.RENEW_DELEGATION_TOKEN
MIN_VERSION = 1
MAX_VERSION = 2


async def handle(
    ctx: RequestContext, request: RenewDelegationTokenRequest
) -> RenewDelegationTokenResponse:
    code, expiry = await new_expiry(
        ctx,
        lambda tokens, now: tokens.renew(
            request["hmac"], ctx.principal, request["renew_period_ms"], now
        ),
    )
    return {"error_code": code, "expiry_timestamp_ms": expiry, "throttle_time_ms": 0}
