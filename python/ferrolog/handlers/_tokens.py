"""What the four delegation token APIs share: who may ask at all (Kafka's
`allowTokenRequests`), and principals between the wire's (type, name) pairs and Kafka's
`Type:name` strings."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ferrolog.clock import now_ms
from ferrolog.errors import DelegationTokenRequestNotAllowedError, InvalidConfigError, KafkaError
from ferrolog.handlers.context import RequestContext

if TYPE_CHECKING:
    from ferrolog.controller.api import DelegationTokenManager


def not_allowed(ctx: RequestContext) -> DelegationTokenRequestNotAllowedError | None:
    """The refusal, as Kafka's, of a connection authenticated with a token itself, of a
    PLAINTEXT listener's and of an SSL listener's without a client certificate: only a
    client that proved who it is by other means may obtain tokens."""
    try:
        protocol = ctx.broker.config.security_protocol(ctx.listener_name)
    except InvalidConfigError:
        protocol = "PLAINTEXT"  # the broker's own requests come through no listener
    if (
        ctx.token_authenticated
        or protocol == "PLAINTEXT"
        or (protocol == "SSL" and ctx.principal == "User:ANONYMOUS")
    ):
        return DelegationTokenRequestNotAllowedError(
            "Delegation Token Requests are not allowed on PLAINTEXT/1-way SSL channels and on "
            "delegation token authenticated channels."
        )
    return None


def principal(principal_type: str, name: str) -> str:
    return f"{principal_type}:{name}"


def split(principal: str) -> tuple[str, str]:
    """("User", "alice") of "User:alice"."""
    principal_type, _, name = principal.partition(":")
    return principal_type, name


async def new_expiry(
    ctx: RequestContext, change: Callable[[DelegationTokenManager, int], Awaitable[int]]
) -> tuple[int, int]:
    """RenewDelegationToken's and ExpireDelegationToken's (error code, expiry timestamp):
    `change(tokens, now)` decides the new expiry unless the connection may not ask."""
    error = not_allowed(ctx)
    if error is not None:
        return error.code, -1
    try:
        return 0, await change(ctx.broker.controller.delegation_tokens, now_ms())
    except KafkaError as exc:
        # Kafka 4.4's controller leaves the timestamp at the schema's default.
        return exc.code, 0
