"""Client quotas in a three-broker cluster: a quota altered through one broker is in Kafka's
ZooKeeper layout (`/config/clients/<id>`, a `/config/changes` notification), every other
broker has it within two seconds without a restart, enforces it, and forgets it as fast once
removed."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from confluent_kafka import Producer

from tests.cluster.harness import Cluster
from tests.quotas.conftest import QuotaClient
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]


def test_a_quota_change_reaches_every_broker(cluster: Cluster) -> None:
    first, third = cluster.brokers[1], cluster.brokers[3]
    writer = QuotaClient(first.bootstrap)
    readers = {b.node_id: QuotaClient(b.bootstrap) for b in cluster.brokers.values()}
    entity = (("client-id", "X"),)
    try:
        assert writer.alter({"client-id": "X"}, {"producer_byte_rate": 1024.0}) == (0, None)
        altered = time.monotonic()
        for node_id, reader in readers.items():
            wait_until(
                lambda r=reader: r.describe([("client-id", 0, "X")])[1].get(entity),
                timeout=max(0.1, altered + 2.0 - time.monotonic()),
                what=f"broker {node_id} to know the quota",
            )
        zk = cluster.zk_client()
        try:
            data, _ = zk.get("/config/clients/X")
            assert json.loads(data) == {"version": 1, "config": {"producer_byte_rate": "1024"}}
            changes = zk.get_children("/config/changes")
            paths = [json.loads(zk.get(f"/config/changes/{c}")[0]) for c in changes]
            assert {"version": 2, "entity_path": "clients/X"} in paths
            assert all(c.startswith("config_change_") for c in changes)
        finally:
            zk.stop()
            zk.close()
        # Enforced by a broker that did not take the change: its produce responses carry a
        # throttle.
        cluster.create_topic("quota-cluster", 3, 3)
        stats: list[dict[str, Any]] = []
        producer = Producer(
            {
                "bootstrap.servers": third.bootstrap,
                "client.id": "X",
                "statistics.interval.ms": 500,
                "stats_cb": lambda s: stats.append(json.loads(s)),
            }
        )
        throttles: dict[str, int] = {}

        def throttled() -> bool:
            producer.produce("quota-cluster", b"x" * 15_000)
            producer.flush(10)
            producer.poll(0.6)
            for s in stats:
                for b in s["brokers"].values():
                    throttles[b["name"]] = max(throttles.get(b["name"], 0), b["throttle"]["max"])
            # librdkafka names brokers `host:port/<node id>`.
            return any(v > 0 for name, v in throttles.items() if not name.endswith("/1"))

        wait_until(throttled, timeout=30, what="a throttle reported by librdkafka")
        assert writer.alter({"client-id": "X"}, {"producer_byte_rate": None}) == (0, None)
        removed = time.monotonic()
        for node_id, reader in readers.items():
            wait_until(
                lambda r=reader: r.describe([("client-id", 0, "X")]) == (0, {}),
                timeout=max(0.1, removed + 2.0 - time.monotonic()),
                what=f"broker {node_id} to forget the quota",
            )
    finally:
        writer.close()
        for reader in readers.values():
            reader.close()
