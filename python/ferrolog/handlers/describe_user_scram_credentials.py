"""DescribeUserScramCredentials (key 50), v0: the SCRAM mechanisms and iteration counts of the
users asked for, or of every user with credentials (`kafka-configs --describe --entity-type
users`); never a salt or a key."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation
from ferrolog.errors import ClusterAuthorizationFailedError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsResponse,
    DescribeUserScramCredentialsResponseDescribeUserScramCredentialsResult,
)

API_KEY = ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS
MIN_VERSION = 0
MAX_VERSION = 0


async def handle(
    ctx: RequestContext, request: DescribeUserScramCredentialsRequest
) -> DescribeUserScramCredentialsResponse:
    users = request.get("users")
    if not ctx.authorize_cluster(AclOperation.DESCRIBE):
        # As Kafka's error response: the error once per user asked for, each user unnamed.
        error = ClusterAuthorizationFailedError()
        return {
            "throttle_time_ms": 0,
            "error_code": error.code,
            "error_message": error.message,
            "results": [
                {
                    "user": "",
                    "error_code": error.code,
                    "error_message": error.message,
                    "credential_infos": [],
                }
                for _ in users or []
            ],
        }
    described = ctx.broker.controller.scram_credentials.describe(
        None if users is None else [u["name"] for u in users]
    )
    # Kafka answers "" rather than null where all went well.
    results: list[DescribeUserScramCredentialsResponseDescribeUserScramCredentialsResult] = [
        {
            "user": user,
            "error_code": 0 if error is None else error.code,
            "error_message": "" if error is None else error.message,
            "credential_infos": [{"mechanism": m, "iterations": i} for m, i in infos],
        }
        for user, error, infos in described
    ]
    return {"throttle_time_ms": 0, "error_code": 0, "error_message": "", "results": results}
