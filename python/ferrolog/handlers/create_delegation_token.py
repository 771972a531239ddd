"""CreateDelegationToken (key 38), v1-3: a delegation token for the requester, or (v3, with
CREATE_TOKENS on the owner's USER resource) for another owner (`kafka-delegation-tokens
--create`). The answer carries the token's id and HMAC, its SCRAM user name and password."""

from __future__ import annotations

from ferrolog.clock import now_ms
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.errors import (
    DelegationTokenAuthDisabledError,
    DelegationTokenAuthorizationFailedError,
    InvalidPrincipalTypeError,
    KafkaError,
)
from ferrolog.handlers._tokens import not_allowed, principal, split
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    CreateDelegationTokenRequest,
    CreateDelegationTokenResponse,
)

API_KEY = ApiKey.CREATE_DELEGATION_TOKEN
MIN_VERSION = 1
MAX_VERSION = 3


async def handle(
    ctx: RequestContext, request: CreateDelegationTokenRequest
) -> CreateDelegationTokenResponse:
    requester = ctx.principal
    owner_name = request.get("owner_principal_name")
    owner = requester
    if owner_name:
        owner = principal(request.get("owner_principal_type") or "", owner_name)
    renewers = [principal(r["principal_type"], r["principal_name"]) for r in request["renewers"]]

    def refused(error: KafkaError, timestamp: int = -1) -> CreateDelegationTokenResponse:
        return _answer(owner, requester, error.code, timestamp, timestamp, timestamp, "", b"")

    error = not_allowed(ctx)
    if error is not None:
        return refused(error)
    if owner != requester and not ctx.authorize(
        AclOperation.CREATE_TOKENS, ResourceType.USER, owner
    ):
        return refused(DelegationTokenAuthorizationFailedError())
    if any(split(r)[0] != "User" for r in renewers):
        return refused(InvalidPrincipalTypeError("Renewer principal type is not supported"))
    tokens = ctx.broker.controller.delegation_tokens
    try:
        token = await tokens.create(
            owner, requester, tuple(renewers), request["max_lifetime_ms"], now_ms()
        )
    except DelegationTokenAuthDisabledError as exc:
        # Kafka 4.4's controller leaves the timestamps at the schema's default.
        return refused(exc, 0)
    return _answer(
        owner, requester, 0, token.issue_ms, token.expiry_ms, token.max_ms, token.token_id,
        tokens.hmac(token.token_id),
    )  # fmt: skip


def _answer(
    owner: str, requester: str, error_code: int, issue_ms: int, expiry_ms: int, max_ms: int,
    token_id: str, hmac: bytes,
) -> CreateDelegationTokenResponse:  # fmt: skip
    owner_type, owner_name = split(owner)
    requester_type, requester_name = split(requester)
    return {
        "error_code": error_code,
        "principal_type": owner_type,
        "principal_name": owner_name,
        "token_requester_principal_type": requester_type,
        "token_requester_principal_name": requester_name,
        "issue_timestamp_ms": issue_ms,
        "expiry_timestamp_ms": expiry_ms,
        "max_timestamp_ms": max_ms,
        "token_id": token_id,
        "hmac": hmac,
        "throttle_time_ms": 0,
    }
