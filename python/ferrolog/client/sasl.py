"""The client side of Kafka's SASL exchange, sans-IO: the requests to send, each answered by
the caller with the broker's response. ferrolog's blocking connections (the tools, the Spark
source) and the brokers' asyncio channel to each other drive the same exchange, as Kafka's
Java client runs it: ApiVersions, SaslHandshake v1, then the mechanism's tokens in
SaslAuthenticate requests (the newest version both sides know, up to 2).

PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, and SCRAM with a delegation token (Kafka's
`tokenauth=true` extension)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any

from ferrolog.protocol.messages import ApiKey

# (api key, version, body) of a request; the exchange is sent back its response body.
Request = tuple[int, int, dict[str, Any]]
Exchange = Generator[Request, dict[str, Any], None]

API_VERSIONS_VERSION, SASL_HANDSHAKE_VERSION, SASL_AUTHENTICATE_VERSION = 3, 1, 2


class SaslError(ConnectionError):
    """The broker refused the authentication."""


def exchange(mechanism: str, username: str, password: str, token_auth: bool = False) -> Exchange:
    """The requests of one authentication, in order; raises SaslError when the broker refuses
    (or does not prove it knows a SCRAM credential)."""
    versions = yield (
        ApiKey.API_VERSIONS,
        API_VERSIONS_VERSION,
        {"client_software_name": "ferrolog", "client_software_version": "1"},
    )
    if versions["error_code"]:
        raise SaslError(f"ApiVersions before SASL: error {versions['error_code']}")
    offered = {k["api_key"]: k["max_version"] for k in versions["api_keys"]}
    if (
        offered.get(ApiKey.SASL_HANDSHAKE, -1) < SASL_HANDSHAKE_VERSION
        or ApiKey.SASL_AUTHENTICATE not in offered
    ):
        raise SaslError("the broker has no SaslHandshake v1 (is its listener SASL?)")
    version = min(offered[ApiKey.SASL_AUTHENTICATE], SASL_AUTHENTICATE_VERSION)
    handshake = yield (ApiKey.SASL_HANDSHAKE, SASL_HANDSHAKE_VERSION, {"mechanism": mechanism})
    if handshake["error_code"]:
        raise SaslError(
            f"SaslHandshake for {mechanism}: error {handshake['error_code']} "
            f"(the broker offers {handshake['mechanisms']})"
        )
    tokens = sasl_tokens(mechanism, username, password, token_auth)
    token: bytes | None = next(tokens)
    while token is not None:
        answer = yield (ApiKey.SASL_AUTHENTICATE, version, {"auth_bytes": token})
        if answer["error_code"]:
            raise SaslError(
                f"{mechanism} authentication as {username!r} failed: error "
                f"{answer['error_code']} {answer.get('error_message') or ''}".rstrip()
            )
        token = tokens.send(bytes(answer["auth_bytes"]))


def run(steps: Exchange, call: Callable[[int, int, dict[str, Any]], dict[str, Any]]) -> None:
    """Drives `steps` over a blocking `call(api_key, version, body) -> response body`."""
    request = next(steps)
    while True:
        try:
            request = steps.send(call(*request))
        except StopIteration:
            return


async def run_async(
    steps: Exchange, call: Callable[[int, int, dict[str, Any]], Awaitable[dict[str, Any]]]
) -> None:
    """`run` over an asyncio `call`."""
    request = next(steps)
    while True:
        try:
            request = steps.send(await call(*request))
        except StopIteration:
            return


def sasl_tokens(
    mechanism: str, username: str, password: str, token_auth: bool = False
) -> Generator[bytes | None, bytes, None]:
    """The mechanism's client tokens: sent each server token, it yields the next one (None:
    done). `token_auth`: SCRAM with Kafka's `tokenauth=true` extension (a delegation
    token)."""
    if mechanism == "PLAIN":
        yield f"\0{username}\0{password}".encode()
        yield None
        return
    # scramp: a maintained RFC 5802 client (also pg8000's); imported here, since only SCRAM
    # users need it.
    import scramp

    client = scramp.ScramClient([mechanism], username, password)
    first = client.get_client_first()
    if token_auth:
        # RFC 5802's extensions follow the nonce in client-first-bare, which the proof
        # covers: scramp has no parameter for them, so its bare message is extended too.
        first += ",tokenauth=true"
        client.client_first_bare += ",tokenauth=true"
    server_first = yield first.encode()
    try:
        client.set_server_first(server_first.decode())
        server_final = yield client.get_client_final().encode()
        client.set_server_final(server_final.decode())
    except (scramp.ScramException, UnicodeDecodeError) as exc:
        raise SaslError(f"{mechanism}: the broker's SCRAM answer does not check: {exc}") from None
    yield None
