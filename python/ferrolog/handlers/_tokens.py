"""What the four delegation token APIs share: who may ask at all (Kafka's
`allowTokenRequests`), and principals between the wire's (type, name) pairs and Kafka's
`Type:name` strings."""

from __future__ import annotations

from ferrolog.errors import DelegationTokenRequestNotAllowedError, InvalidConfigError
from ferrolog.handlers.context import RequestContext


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
