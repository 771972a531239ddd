"""RenewDelegationToken (key 39), v1-2: the owner or a renewer pushes a token's expiry out by
a period (the default, `delegation.token.expiry.time.ms`, when the period is not positive;
never past the token's max lifetime)."""

from __future__ import annotations

from ferrolog.clock import now_ms
from ferrolog.errors import KafkaError
from ferrolog.handlers._tokens import not_allowed
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
    error = not_allowed(ctx)
    if error is not None:
        return {"error_code": error.code, "expiry_timestamp_ms": -1, "throttle_time_ms": 0}
    tokens = ctx.broker.controller.delegation_tokens
    try:
        expiry = await tokens.renew(
            request["hmac"], ctx.principal, request["renew_period_ms"], now_ms()
        )
    except KafkaError as exc:
        # Kafka 4.4's controller leaves the timestamp at the schema's default.
        return {"error_code": exc.code, "expiry_timestamp_ms": 0, "throttle_time_ms": 0}
    return {"error_code": 0, "expiry_timestamp_ms": expiry, "throttle_time_ms": 0}
