"""AlterUserScramCredentials (key 51), v0: adds, replaces and removes users' SCRAM
credentials (`kafka-configs --alter --entity-type users --add-config 'SCRAM-SHA-256=[...]'`).
The client sends the salt and the salted password (KIP-554), never the password; one result
per user, each with its own error."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation, Deletion, Upsertion
from ferrolog.errors import ClusterAuthorizationFailedError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    AlterUserScramCredentialsResponseAlterUserScramCredentialsResult,
    ApiKey,
)

API_KEY = ApiKey.ALTER_USER_SCRAM_CREDENTIALS
MIN_VERSION = 0
MAX_VERSION = 0


async def handle(
    ctx: RequestContext, request: AlterUserScramCredentialsRequest
) -> AlterUserScramCredentialsResponse:
    deletions = [Deletion(d["name"], d["mechanism"]) for d in request.get("deletions") or []]
    upsertions = [
        Upsertion(u["name"], u["mechanism"], u["iterations"], u["salt"], u["salted_password"])
        for u in request.get("upsertions") or []
    ]
    if ctx.authorize_cluster(AclOperation.ALTER):
        altered = await ctx.broker.controller.scram_credentials.alter(deletions, upsertions)
    else:  # As Kafka: ALTER on the cluster, else every user refused.
        users = dict.fromkeys([d.user for d in deletions] + [u.user for u in upsertions])
        altered = [(user, ClusterAuthorizationFailedError()) for user in users]
    # Kafka's ZooKeeper-mode broker answers "" rather than null where all went well.
    results: list[AlterUserScramCredentialsResponseAlterUserScramCredentialsResult] = [
        {
            "user": user,
            "error_code": 0 if error is None else error.code,
            "error_message": "" if error is None else error.message,
        }
        for user, error in altered
    ]
    return {"throttle_time_ms": 0, "results": results}
