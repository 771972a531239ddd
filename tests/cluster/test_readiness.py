"""`/readyz` in a cluster: a broker is ready only once it is registered in ZooKeeper, and
unready from the moment a controlled shutdown begins, while `/healthz` still answers (the
process serves; orchestrators must not kill it, only stop sending it traffic)."""

from __future__ import annotations

import signal

import pytest
from ferrolog.controller.store import zk_paths
from ferrolog.controller.store.base import BrokerRegistration

from tests.cluster.harness import BrokerProcess, Cluster
from tests.metrics.scraping import get
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]


def probe(broker: BrokerProcess, path: str) -> int | None:
    """The status of `path` on the broker's metrics listener; None while it does not listen."""
    try:
        return get(f"{broker.metrics_url}{path}")[0]
    except OSError:
        return None


def test_readyz_follows_registration_and_controlled_shutdown(cluster: Cluster) -> None:
    cluster.create_topic("ready", partitions=3)
    controller = cluster.controller()
    # A broker other than the controller, leading a partition the shutdown must move away.
    stopping = next(
        b
        for b in cluster.brokers.values()
        if b.node_id != controller
        and any(cluster.leader("ready", p) == b.node_id for p in range(3))
    )
    for broker in cluster.brokers.values():
        assert probe(broker, "/readyz") == 200
        assert probe(broker, "/healthz") == 200

    # The controller paused, the controlled shutdown waits for leaderships to move (until the
    # controller's session expires and another takes over): the broker is still serving.
    cluster.brokers[controller].pause()
    stopping.signal(signal.SIGTERM)
    wait_until(lambda: probe(stopping, "/readyz") == 503, what="/readyz to turn unready")
    assert stopping.running, "the controlled shutdown is over already: the window was missed"
    assert probe(stopping, "/healthz") == 200
    cluster.brokers[controller].resume()
    assert stopping.proc is not None
    assert stopping.proc.wait(60) == 0
    stopping.proc = None

    # Its broker id held by another ZooKeeper session (another endpoint), the restarted broker
    # cannot register: it serves /healthz but is not ready until it can.
    node = stopping.node_id
    stopping.overrides["zookeeper.session.timeout.ms"] = "15000"  # it waits twice that
    zk = cluster.zk_client()
    try:
        wait_until(
            lambda: zk.exists(zk_paths.broker_path(node)) is None,
            what=f"broker {node}'s registration to go",
        )
        squatter = BrokerRegistration(node_id=node, host="127.0.0.1", port=1, rack=None)
        zk.create(zk_paths.broker_path(node), zk_paths.encode_broker(squatter), ephemeral=True)
        stopping.start()
        wait_until(lambda: probe(stopping, "/healthz") == 200, what="/healthz while registering")
        assert probe(stopping, "/readyz") == 503
        assert zk.get(zk_paths.broker_path(node))[1].ephemeralOwner == zk.client_id[0]
        zk.delete(zk_paths.broker_path(node))
    finally:
        zk.stop()
        zk.close()
    wait_until(lambda: probe(stopping, "/readyz") == 200, 60, what="/readyz once registered")
    cluster.wait_for_brokers(set(cluster.brokers))
