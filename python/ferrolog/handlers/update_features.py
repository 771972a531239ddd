"""UpdateFeatures (key 57), v0-2: finalizes, upgrades, downgrades or removes cluster-wide
feature levels (KIP-584), as Kafka 4.1's `kafka-features upgrade|downgrade|disable` and the
admin clients' updateFeatures ask.

The controller decides (`ControllerApi.update_features`, the rules in
`ferrolog.controller.features`) and writes the finalized levels to the metadata store (in a
cluster only the active controller does; another broker answers NOT_CONTROLLER, and the client
retries with the controller Metadata names). The answer is Kafka 4.1's: a refused update fails
them all with a top-level error and no per-feature rows; a success lists each feature with
error code 0 and the message "NONE" (v0-1; v2 has no rows). v0's `allow_downgrade` is taken as
SAFE_DOWNGRADE, as the schema says (Kafka 4.1 answers a v0 downgrade as if it were an
upgrade; no current client sends v0)."""

from __future__ import annotations

from ferrolog.controller.api import AclOperation, FeatureUpdate, UpgradeType
from ferrolog.errors import ClusterAuthorizationFailedError, KafkaError
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, UpdateFeaturesRequest, UpdateFeaturesResponse

API_KEY = ApiKey.UPDATE_FEATURES
MIN_VERSION = 0
MAX_VERSION = 2


async def handle(ctx: RequestContext, request: UpdateFeaturesRequest) -> UpdateFeaturesResponse:
    if not ctx.authorize_cluster(AclOperation.ALTER):
        error = ClusterAuthorizationFailedError()
        return {
            "throttle_time_ms": 0,
            "error_code": error.code,
            "error_message": error.message,
            "results": [],
        }
    updates: dict[str, FeatureUpdate] = {}
    for item in request.get("feature_updates") or []:
        kind = item.get("upgrade_type", UpgradeType.UPGRADE)
        if ctx.api_version == 0 and item.get("allow_downgrade"):
            kind = UpgradeType.SAFE_DOWNGRADE
        updates[item["feature"]] = FeatureUpdate(item["max_version_level"], kind)
    try:
        await ctx.broker.controller.update_features(updates, bool(request.get("validate_only")))
    except KafkaError as exc:
        return {
            "throttle_time_ms": 0,
            "error_code": exc.code,
            "error_message": exc.message,
            "results": [],
        }
    return {
        "throttle_time_ms": 0,
        "error_code": 0,
        "error_message": None,
        "results": [
            {"feature": name, "error_code": 0, "error_message": "NONE"} for name in updates
        ],
    }
