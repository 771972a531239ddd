"""ApiVersions (key 18), v0-5: the advertised API table (`ferrolog.api_versions`) and, from v3,
the features (KIP-584): those this broker supports (`ferrolog.features`, where the table says
why each level is or is not supported) and those finalized cluster-wide, with their epoch, as
the controller last read them from the metadata store. A change of the finalized features
shows in the next answer, without a restart.

v5 (KIP-1242) lets a client say which cluster and node it means to reach: both or neither
(INVALID_REQUEST otherwise), and a broker that is not that node of that cluster answers
REBOOTSTRAP_REQUIRED with no APIs, so the client looks for its cluster again.

Features are reported as Kafka 4.1 reports them: a finalized feature with its level as both
its minimum and maximum, and in v3 no supported feature whose minimum is 0 (KAFKA-17011). A
request at an unknown version is answered by the dispatcher (v0, UNSUPPORTED_VERSION)."""

from __future__ import annotations

import re

from ferrolog import features
from ferrolog.api_versions import advertised
from ferrolog.controller.api import FinalizedFeatures
from ferrolog.errors import InvalidRequestError, RebootstrapRequiredError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, ApiVersionsRequest, ApiVersionsResponse

API_KEY = ApiKey.API_VERSIONS
MIN_VERSION = 0
MAX_VERSION = 5
TARGET_VERSION = 5

# KIP-511: client software name and version are checked as Kafka does, so a client sending
# garbage learns it rather than having it show up in metrics.
_SOFTWARE = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def body(
    versions: dict[int, tuple[int, int]],
    error_code: int = 0,
    api_version: int = 0,
    finalized: FinalizedFeatures | None = None,
    unstable: bool = False,
) -> ApiVersionsResponse:
    """The response body for any version (fields a version lacks are not encoded); an error
    answer reports no features. `unstable`: the broker's unstable.feature.versions.enable."""
    finalized = finalized or FinalizedFeatures()
    return {
        "error_code": error_code,
        "api_keys": [
            {"api_key": key, "min_version": low, "max_version": high}
            for key, (low, high) in sorted(versions.items())
        ],
        "throttle_time_ms": 0,
        "supported_features": [
            {"name": name, "min_version": low, "max_version": high}
            for name, low, high in (
                features.advertised(api_version, unstable) if not error_code else []
            )
        ],
        "finalized_features_epoch": finalized.epoch,
        "finalized_features": [
            {"name": name, "max_version_level": level, "min_version_level": level}
            for name, level in sorted(finalized.levels.items())
        ],
        "zk_migration_ready": False,
    }


async def handle(ctx: RequestContext, request: ApiVersionsRequest) -> ApiVersionsResponse:
    if ctx.api_version >= 3:
        for value in (request.get("client_software_name"), request.get("client_software_version")):
            if not _SOFTWARE.fullmatch(value or ""):
                return body({}, InvalidRequestError.code)
    if ctx.api_version >= TARGET_VERSION:
        cluster_id, node_id = request.get("cluster_id"), request.get("node_id", -1)
        if (cluster_id is None) != (node_id == -1):
            return body({}, InvalidRequestError.code)
        if cluster_id is not None and (
            cluster_id != ctx.broker.cluster_id or node_id != ctx.broker.node_id
        ):
            return body({}, RebootstrapRequiredError.code)
    finalized = ctx.broker.controller.finalized_features()
    unstable = ctx.broker.config.get_bool("unstable.feature.versions.enable")
    return body(advertised(), api_version=ctx.api_version, finalized=finalized, unstable=unstable)
