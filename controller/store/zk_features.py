"""The finalized features in ZooKeeper (`/feature`, Kafka's FeatureZNode), written by the
controller only, fenced; its version is their epoch. Blocking kazoo calls, run on the store's
threads (every broker reads them with its view: `zk_view.read_features`)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

from ferrolog.features import NEW_CLUSTER_LEVELS
from kazoo.client import KazooClient
from kazoo.exceptions import NodeExistsError, NoNodeError

from . import zk_fenced
from . import zk_paths as paths
from .base import BadVersionError, FinalizedFeatures


def update(
    client: KazooClient, epoch_version: int | None, levels: Mapping[str, int], expected: int
) -> FinalizedFeatures:
    """Compare-and-set of `/feature` on its version `expected` (-1: create it)."""
    data = paths.encode_features(dict(levels))
    try:
        if expected < 0:
            zk_fenced.write(client, epoch_version, lambda tx: tx.create(paths.FEATURE, data))
            version = 0
        else:
            stat = zk_fenced.write(
                client, epoch_version, lambda tx: tx.set_data(paths.FEATURE, data, expected)
            )
            version = stat.version
    except (NoNodeError, NodeExistsError):
        raise BadVersionError("/feature was created or deleted meanwhile") from None
    return FinalizedFeatures(paths.decode_features(data)[1], version)


def enable(client: KazooClient, epoch_version: int | None) -> None:
    """Creates `/feature` with a new cluster's levels (`NEW_CLUSTER_LEVELS`), or enables a
    disabled one with none finalized, as Kafka's ZooKeeper-mode controller does when elected
    (a cluster that existed before features must be upgraded by hand)."""
    try:
        data, stat = client.get(paths.FEATURE)
    except NoNodeError:
        new = paths.encode_features(dict(NEW_CLUSTER_LEVELS))
        with contextlib.suppress(NodeExistsError):
            zk_fenced.write(client, epoch_version, lambda tx: tx.create(paths.FEATURE, new))
        return
    if not paths.decode_features(data)[0]:
        empty = paths.encode_features({})
        with contextlib.suppress(BadVersionError):
            zk_fenced.write(
                client, epoch_version, lambda tx: tx.set_data(paths.FEATURE, empty, stat.version)
            )
