"""ApiVersions (key 18), v0-4: the advertised API table (`ferrolog.api_versions`).

No features are reported, finalized or supported: finalizing `transaction.version` >= 2 would
switch Java producers to KIP-890 transactions, which ferrolog does not implement. A request at
an unknown version is answered by the dispatcher (v0, UNSUPPORTED_VERSION)."""

from __future__ import annotations

import re
from typing import Any

from ferrolog.api_versions import advertised
from ferrolog.errors import InvalidRequestError
from ferrolog.handlers.context import RequestContext

API_KEY = 18
MIN_VERSION = 0
MAX_VERSION = 4

# KIP-511: client software name and version are checked as Kafka does, so a client sending
# garbage learns it rather than having it show up in metrics.
_SOFTWARE = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def body(versions: dict[int, tuple[int, int]], error_code: int = 0) -> dict[str, Any]:
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


async def handle(ctx: RequestContext, request: dict[str, Any]) -> dict[str, Any]:
    if ctx.api_version >= 3:
        for field in ("client_software_name", "client_software_version"):
            if not _SOFTWARE.fullmatch(request.get(field) or ""):
                return body({}, InvalidRequestError.code)
    return body(advertised())
