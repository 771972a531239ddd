"""What the feature tests ask a broker with: Kafka 4.1's `kafka-features` (FeatureCommand) and
raw ApiVersions and UpdateFeatures requests, answered as decoded dicts."""

from __future__ import annotations

import subprocess
from typing import Any

from ferrolog.protocol import decode_response, encode_request

from tests.broker.test_broker_basics import raw_exchange
from tests.cluster.harness import java_command

API_VERSIONS, UPDATE_FEATURES = 18, 57
UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3
NOT_CONTROLLER, INVALID_UPDATE_VERSION = 41, 95
ALL_FAILED = "The update failed for all features since the following feature had an error: "


def kafka_features(bootstrap: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        java_command(
            "org.apache.kafka.tools.FeatureCommand", "--bootstrap-server", bootstrap, *args
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )


def request(
    bootstrap: str, api_key: int, version: int, body: dict[str, Any], timeout: float = 10
) -> dict[str, Any]:
    frame = encode_request(api_key, version, 7, "feature-test", body)
    response = raw_exchange(bootstrap, frame, timeout)
    assert response is not None, "the broker closed the connection"
    correlation, decoded = decode_response(api_key, version, response)
    assert correlation == 7
    return decoded


def api_versions(bootstrap: str, version: int = 4) -> dict[str, Any]:
    body = {"client_software_name": "feature-test", "client_software_version": "1"}
    answer = request(bootstrap, API_VERSIONS, version, body if version >= 3 else {})
    assert answer["error_code"] == 0, answer
    return answer


def finalized(bootstrap: str, version: int = 4) -> tuple[int, dict[str, tuple[int, int]]]:
    """The finalized features' epoch and `{name: (min level, max level)}` of ApiVersions."""
    answer = api_versions(bootstrap, version)
    levels = {
        f["name"]: (f["min_version_level"], f["max_version_level"])
        for f in answer["finalized_features"]
    }
    return answer["finalized_features_epoch"], levels


def supported(bootstrap: str, version: int = 4) -> dict[str, tuple[int, int]]:
    answer = api_versions(bootstrap, version)
    return {f["name"]: (f["min_version"], f["max_version"]) for f in answer["supported_features"]}


def update(
    bootstrap: str,
    updates: list[tuple[str, int, int]],
    version: int = 1,
    validate_only: bool = False,
) -> dict[str, Any]:
    """UpdateFeatures of `(feature, level, upgrade type)`s (v0: a downgrade type sets
    allow_downgrade)."""
    keys = []
    for name, level, kind in updates:
        key: dict[str, Any] = {"feature": name, "max_version_level": level}
        if version == 0:
            key["allow_downgrade"] = kind != UPGRADE
        else:
            key["upgrade_type"] = kind
        keys.append(key)
    body: dict[str, Any] = {"timeout_ms": 30000, "feature_updates": keys}
    if version >= 1:
        body["validate_only"] = validate_only
    return request(bootstrap, UPDATE_FEATURES, version, body)


def described(stdout: str) -> list[str]:
    """`kafka-features describe`'s lines, each run of blanks as one space (Kafka 4.4 pads
    its columns, 4.1 separated them by tabs)."""
    return [" ".join(row.split()) for row in stdout.strip().splitlines()]
