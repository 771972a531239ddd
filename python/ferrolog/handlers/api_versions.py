"""ApiVersions (key 18), v0-4: the advertised API table (`ferrolog.api_versions`).

No features are reported, finalized or supported: finalizing `transaction.version` >= 2 would
switch Java producers to KIP-890 transactions, which ferrolog does not implement. A request at
an unknown version is answered by the dispatcher (v0, UNSUPPORTED_VERSION)."""

from __future__ import annotations

import re

from ferrolog.api_versions import advertised
from ferrolog.errors import InvalidRequestError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiVersionsRequest, ApiVersionsResponse

API_KEY = 18
MIN_VERSION = 0
MAX_VERSION = 4

# KIP-511: client software name and version are checked as Kafka does, so a client sending
# garbage learns it rather than having it show up in metrics.
_SOFTWARE = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def body(versions: dict[int, tuple[int, int]], error_code: int = 0) -> ApiVersionsResponse:
    """The response body for any version (fields a version lacks are not encoded)."""
    return {
        "error_code": error_code,
        "api_keys": [
            {"api_key": key, "min_version": low, "max_version": high}
            for key, (low, high) in sorted(versions.items())
        ],
        "throttle_time_ms": 0,
        "supported_features": [],
        "finalized_features_epoch": -1,
        "finalized_features": [],
        "zk_migration_ready": False,
    }


async def handle(ctx: RequestContext, request: ApiVersionsRequest) -> ApiVersionsResponse:
    if ctx.api_version >= 3:
        for value in (request.get("client_software_name"), request.get("client_software_version")):
            if not _SOFTWARE.fullmatch(value or ""):
                return body({}, InvalidRequestError.code)
    return body(advertised())
