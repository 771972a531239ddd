"""The finalized features in the stores: the local store's compare-and-set on the epoch and its
persistence, and `/feature` in Kafka's FeatureZNode formats (v2 as Kafka 3.3+ writes it, v1 as
Kafka 2.7-3.2 wrote it, with a `min_version_level`), disabled or unreadable ones counting as
no finalized features."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from ferrolog.controller.store import zk_paths
from ferrolog.controller.store.base import BadVersionError, FinalizedFeatures
from ferrolog.controller.store.local import FILE_NAME, LocalStore
from ferrolog.features import NEW_CLUSTER_LEVELS


def test_local_features_compare_and_set_and_persist(tmp_path: Path) -> None:
    async def run() -> None:
        store = LocalStore(tmp_path)
        await store.start()
        # A new cluster starts at Kafka 4.4's levels.
        assert await store.finalized_features() == FinalizedFeatures(NEW_CLUSTER_LEVELS, 0)
        written = await store.update_finalized_features({"transaction.version": 1}, 0)
        assert written == FinalizedFeatures({"transaction.version": 1}, 1)
        with pytest.raises(BadVersionError):
            await store.update_finalized_features({}, 0)
        # Level 0 is "not finalized": never stored.
        written = await store.update_finalized_features({"transaction.version": 0}, 1)
        assert written == FinalizedFeatures({}, 2)
        await store.close()
        again = LocalStore(tmp_path)
        await again.start()
        assert await again.finalized_features() == FinalizedFeatures({}, 2)

    asyncio.run(run())


def test_a_local_store_from_before_features_has_none_finalized(tmp_path: Path) -> None:
    async def run() -> None:
        store = LocalStore(tmp_path)
        await store.start()
        await store.close()
        path = tmp_path / FILE_NAME
        data = json.loads(path.read_text())
        del data["features"]
        path.write_text(json.dumps(data))
        again = LocalStore(tmp_path)
        await again.start()
        # As Kafka's controller enables an existing cluster's `/feature`: nothing finalized.
        assert await again.finalized_features() == FinalizedFeatures({}, 0)

    asyncio.run(run())


@pytest.mark.parametrize(
    ("data", "decoded"),
    [
        (b'{"features":{},"version":2,"status":1}', (True, {})),
        (
            b'{"features":{"transaction.version":{"max_version_level":1}},"version":2,"status":1}',
            (True, {"transaction.version": 1}),
        ),
        (
            b'{"version":1,"status":1,"features":{"f":{"min_version_level":1,'
            b'"max_version_level":3}}}',
            (True, {"f": 3}),
        ),
        (b'{"features":{"f":{"max_version_level":1}},"version":2,"status":0}', (False, {})),
        (b"not json", (False, {})),
        (b'{"features":{"f":{}},"version":2,"status":1}', (False, {})),
    ],
)
def test_feature_znode_formats(data: bytes, decoded: tuple[bool, dict[str, int]]) -> None:
    assert zk_paths.decode_features(data) == decoded


def test_feature_znode_is_written_as_kafka_writes_it() -> None:
    assert zk_paths.encode_features({}) == b'{"features":{},"status":1,"version":2}'
    assert zk_paths.decode_features(zk_paths.encode_features({"a": 2, "b": 0})) == (
        True,
        {"a": 2},
    )
