"""`ferrolog fuzz` against a three-broker cluster with ZooKeeper: the controller's APIs are
forwarded, names reach ZooKeeper paths, and every broker's log stays free of errors."""

from __future__ import annotations

import pytest
from ferrolog.fuzz.campaign import Campaign

from tests.cluster.harness import Cluster


@pytest.mark.native
def test_fuzz_finds_nothing_on_a_cluster(cluster: Cluster) -> None:
    broker = cluster.brokers[1]
    campaign = Campaign(
        broker.bootstrap,
        40,
        broker_log=broker.log_path,
        process_alive=lambda: all(b.running for b in cluster.brokers.values()),
    )
    report = campaign.run(rounds=10, per_round=300)
    assert not report.findings, report.summary()
    for other in cluster.brokers.values():
        log = other.log_path.read_text(errors="replace")
        assert "Traceback" not in log, other.log_tail(40)
        assert "level=error" not in log, other.log_tail(40)
