"""DescribeDelegationToken (key 41), v1-3: the tokens of the owners asked for (null: every
owner; an empty list: none), those the requester may see: its own (as owner, requester or
renewer), and others' with DESCRIBE on the token or DESCRIBE_TOKENS on the owner's USER
resource. Each with its HMAC, as Kafka answers; expired ones too until they are removed."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation, ResourceType, TokenInfo
from ferrolog.errors import DelegationTokenAuthDisabledError, KafkaError
from ferrolog.handlers._tokens import not_allowed, principal, split
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeDelegationTokenRequest,
    DescribeDelegationTokenResponse,
    DescribeDelegationTokenResponseDescribedDelegationToken,
)

API_KEY = ApiKey.DESCRIBE_DELEGATION_TOKEN
MIN_VERSION = 1
MAX_VERSION = 3


async def handle(
    ctx: RequestContext, request: DescribeDelegationTokenRequest
) -> DescribeDelegationTokenResponse:
    tokens = ctx.broker.controller.delegation_tokens
    error: KafkaError | None = not_allowed(ctx)
    if error is None and not tokens.enabled:
        error = DelegationTokenAuthDisabledError()
    if error is not None:
        return {"error_code": error.code, "tokens": [], "throttle_time_ms": 0}
    owners = request["owners"]
    wanted = None
    if owners is not None:
        wanted = [principal(o["principal_type"], o["principal_name"]) for o in owners]
    found = [t for t in tokens.tokens() if wanted is None or any(t.involves(p) for p in wanted)]
    others = [t for t in found if not t.involves(ctx.principal)]
    by_token = ctx.authorized(
        AclOperation.DESCRIBE, ResourceType.DELEGATION_TOKEN, [t.token_id for t in others]
    )
    by_owner = ctx.authorized(
        AclOperation.DESCRIBE_TOKENS, ResourceType.USER, [t.owner for t in others]
    )
    visible = [
        t
        for t in found
        if t.involves(ctx.principal) or t.token_id in by_token or t.owner in by_owner
    ]
    return {
        "error_code": 0,
        "tokens": [_described(t, tokens.hmac(t.token_id)) for t in visible],
        "throttle_time_ms": 0,
    }


def _described(
    token: TokenInfo, hmac: bytes
) -> DescribeDelegationTokenResponseDescribedDelegationToken:
    owner_type, owner_name = split(token.owner)
    requester_type, requester_name = split(token.requester)
    return {
        "principal_type": owner_type,
        "principal_name": owner_name,
        "token_requester_principal_type": requester_type,
        "token_requester_principal_name": requester_name,
        "issue_timestamp": token.issue_ms,
        "expiry_timestamp": token.expiry_ms,
        "max_timestamp": token.max_ms,
        "token_id": token.token_id,
        "hmac": hmac,
        "renewers": [
            {"principal_type": t, "principal_name": n} for t, n in map(split, token.renewers)
        ],
    }
