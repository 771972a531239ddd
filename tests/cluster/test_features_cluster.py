"""Features (KIP-584) in a three-broker cluster with a real ZooKeeper: the controller keeps the
finalized features in `/feature` as Kafka's ZooKeeper-mode controller does (Kafka 3.9.1 wrote
`{"features":{},"version":2,"status":1}` at version 0 when it started; ferrolog's first
controller writes a new cluster's levels, Kafka 4.4's defaults, the same way), only the active
controller decides an UpdateFeatures (another broker answers NOT_CONTROLLER, and Kafka 4.1's
`kafka-features` finds the controller itself), and every broker reports the new levels with
the new epoch (the znode's version) without a restart."""

from __future__ import annotations

import json

import pytest
from ferrolog.features import NEW_CLUSTER_LEVELS

from tests.cluster.harness import Cluster, needs_kafka_jars
from tests.handlers.features_tools import (
    ALL_FAILED,
    NOT_CONTROLLER,
    SAFE_DOWNGRADE,
    described,
    finalized,
    kafka_features,
    update,
)
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow, needs_kafka_jars]

TXN = "transaction.version"
GROUP = "group.version"
SHARE = "share.version"
STREAMS = "streams.version"
ELR = "eligible.leader.replicas.version"
NEW = {name: (level, level) for name, level in NEW_CLUSTER_LEVELS.items()}


def znode_levels(levels: dict[str, int]) -> dict[str, object]:
    features = {name: {"max_version_level": level} for name, level in levels.items()}
    return {"features": features, "version": 2, "status": 1}


def feature_znode(cluster: Cluster) -> tuple[dict[str, object], int]:
    zk = cluster.zk_client()
    try:
        data, stat = zk.get("/feature")
        return json.loads(data), stat.version
    finally:
        zk.stop()
        zk.close()


def everywhere(cluster: Cluster, expected: tuple[int, dict[str, tuple[int, int]]]) -> None:
    for broker in cluster.brokers.values():
        wait_until(
            lambda b=broker: finalized(b.bootstrap) == expected,
            timeout=10,
            what=f"broker {broker.node_id} to report {expected}",
        )


def test_features_are_finalized_by_the_controller_and_seen_by_every_broker(
    cluster: Cluster,
) -> None:
    everywhere(cluster, (0, NEW))
    assert feature_znode(cluster) == (znode_levels(NEW_CLUSTER_LEVELS), 0)
    for broker in cluster.brokers.values():
        run = kafka_features(broker.bootstrap, "describe")
        assert run.returncode == 0, run.stdout + run.stderr
        assert described(run.stdout) == [
            f"Feature: {ELR} SupportedMinVersion: 0 SupportedMaxVersion: 1 "
            "FinalizedVersionLevel: 1 Epoch: 0",
            "Feature: group.version SupportedMinVersion: 0 SupportedMaxVersion: 1 "
            "FinalizedVersionLevel: 1 Epoch: 0",
            f"Feature: {SHARE} SupportedMinVersion: 0 SupportedMaxVersion: 1 "
            "FinalizedVersionLevel: 1 Epoch: 0",
            f"Feature: {STREAMS} SupportedMinVersion: 0 SupportedMaxVersion: 1 "
            "FinalizedVersionLevel: 1 Epoch: 0",
            f"Feature: {TXN} SupportedMinVersion: 0 SupportedMaxVersion: 2 "
            "FinalizedVersionLevel: 2 Epoch: 0",
        ]

    controller = cluster.controller()
    other = next(b for b in cluster.brokers.values() if b.node_id != controller)
    answer = update(other.bootstrap, [(TXN, 1, SAFE_DOWNGRADE)])
    assert (answer["error_code"], answer["results"]) == (NOT_CONTROLLER, []), answer

    # Through a broker that is not the controller: the tool sends it to the controller.
    run = kafka_features(other.bootstrap, "downgrade", "--feature", f"{TXN}=1")
    assert (run.returncode, run.stdout.strip()) == (0, f"{TXN} was downgraded to 1."), run.stderr
    assert feature_znode(cluster) == (
        znode_levels({GROUP: 1, TXN: 1, ELR: 1, SHARE: 1, STREAMS: 1}),
        1,
    )
    everywhere(
        cluster, (1, {TXN: (1, 1), GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)})
    )
    for broker in cluster.brokers.values():
        run = kafka_features(broker.bootstrap, "describe")
        assert "FinalizedVersionLevel: 1 Epoch: 1" in " ".join(described(run.stdout)), run.stdout

    run = kafka_features(other.bootstrap, "upgrade", "--feature", f"{TXN}=3")
    assert run.returncode == 1
    assert run.stdout.splitlines()[0] == (
        f"Could not upgrade {TXN} to 3. {ALL_FAILED}Invalid update version 3 for feature {TXN}. "
        f"Local controller {controller} only supports versions 0-2"
    )
    assert feature_znode(cluster)[1] == 1

    answer = update(
        cluster.brokers[controller].bootstrap, [(TXN, 0, SAFE_DOWNGRADE)], validate_only=True
    )
    assert answer["error_code"] == 0, answer
    assert feature_znode(cluster)[1] == 1

    run = kafka_features(other.bootstrap, "disable", "--feature", TXN)
    assert (run.returncode, run.stdout.strip()) == (0, f"{TXN} was disabled."), run.stderr
    assert feature_znode(cluster) == (znode_levels({GROUP: 1, ELR: 1, SHARE: 1, STREAMS: 1}), 2)
    everywhere(cluster, (2, {GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)}))


def test_a_new_controller_decides_on_what_the_old_one_wrote(cluster: Cluster) -> None:
    everywhere(cluster, (0, NEW))
    run = kafka_features(cluster.bootstrap, "downgrade", "--feature", f"{TXN}=1")
    assert run.returncode == 0, run.stdout + run.stderr
    everywhere(
        cluster, (1, {TXN: (1, 1), GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)})
    )

    old = cluster.controller()
    cluster.brokers[old].kill()
    rest = [b for b in cluster.brokers.values() if b.node_id != old]
    survivors = ",".join(b.bootstrap for b in rest)

    def elected() -> bool:
        return cluster.controller() not in (old, -1)

    wait_until(elected, timeout=30, what="another controller")
    run = kafka_features(survivors, "downgrade", "--feature", f"{TXN}=0")
    assert (run.returncode, run.stdout.strip()) == (0, f"{TXN} was downgraded to 0."), run.stderr
    assert feature_znode(cluster) == (znode_levels({GROUP: 1, ELR: 1, SHARE: 1, STREAMS: 1}), 2)
    for broker in rest:
        wait_until(
            lambda b=broker: (
                finalized(b.bootstrap)
                == (2, {GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)})
            ),
            timeout=10,
            what=f"broker {broker.node_id} to report the downgrade",
        )
