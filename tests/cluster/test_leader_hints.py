"""KIP-951: a follower that refuses a produce (v10+) or a consumer's fetch (v16+) with
NOT_LEADER_OR_FOLLOWER names the partition's leader, its epoch, and that leader's endpoint on
the listener the client used, so the client can move without asking for Metadata first. Older
versions carry none of it. On three brokers with a real ZooKeeper; the requests are raw, so
what the broker answers is seen as the client decodes it."""

from __future__ import annotations

from typing import Any

import ferrolog_native
import pytest
from ferrolog.client.connection import Connection
from ferrolog.protocol import ZERO_UUID

from tests import raw_fetch
from tests.cluster.harness import Cluster
from tests.waiting import wait_until

pytestmark = pytest.mark.native

PRODUCE, FETCH, METADATA = 0, 1, 3
NOT_LEADER_OR_FOLLOWER = 6
TOPIC = "hinted"


def _connect(cluster: Cluster, node: int) -> Connection:
    return Connection("127.0.0.1", cluster.brokers[node].port, 20, "hint-test")


def _produce(conn: Connection, version: int) -> tuple[dict[str, Any], dict[str, Any]]:
    batch = ferrolog_native.build_batch([(b"k", b"v", [], 1_700_000_000_000)])
    body = {
        "transactional_id": None,
        "acks": 1,
        "timeout_ms": 5000,
        "topic_data": [{"name": TOPIC, "partition_data": [{"index": 0, "records": batch}]}],
    }
    answer = conn.request(PRODUCE, version, body)
    return answer, answer["responses"][0]["partition_responses"][0]


def _fetch(
    conn: Connection, version: int, topic_id: bytes
) -> tuple[dict[str, Any], dict[str, Any]]:
    body = raw_fetch.one_partition(version, topic_id=topic_id)
    answer = conn.request(FETCH, version, body)
    return answer, answer["responses"][0]["partitions"][0]


def test_a_follower_names_the_leader_and_where_it_listens(cluster: Cluster) -> None:
    cluster.create_topic(TOPIC, 1, 3)
    cluster.wait_for_isr(TOPIC, 0, [1, 2, 3])
    leader = cluster.leader(TOPIC, 0)
    epoch = cluster.state(TOPIC, 0)["leader_epoch"]
    follower = next(n for n in cluster.brokers if n != leader)
    conn = _connect(cluster, follower)
    try:
        metadata = conn.request(METADATA, 12, {
            "topics": [{"topic_id": ZERO_UUID, "name": TOPIC}],
            "allow_auto_topic_creation": False, "include_topic_authorized_operations": False,
        })  # fmt: skip
        topic_id = metadata["topics"][0]["topic_id"]
        endpoint = {"node_id": leader, "host": "127.0.0.1",
                    "port": cluster.brokers[leader].port, "rack": None}  # fmt: skip

        # The follower learns its leader when the controller makes it follow.
        def hinted_produce() -> tuple[dict[str, Any], dict[str, Any]] | None:
            answer, partition = _produce(conn, 11)
            return (answer, partition) if partition.get("current_leader") else None

        answer, partition = wait_until(hinted_produce, what="a produce answered with a hint")
        assert partition["error_code"] == NOT_LEADER_OR_FOLLOWER
        assert partition["current_leader"] == {"leader_id": leader, "leader_epoch": epoch}
        assert answer["node_endpoints"] == [endpoint]

        answer, partition = _fetch(conn, 17, topic_id)
        assert partition["error_code"] == NOT_LEADER_OR_FOLLOWER
        assert partition["current_leader"] == {"leader_id": leader, "leader_epoch": epoch}
        assert answer["node_endpoints"] == [endpoint]

        # Versions before KIP-951 answer the error alone.
        answer, partition = _produce(conn, 9)
        assert partition["error_code"] == NOT_LEADER_OR_FOLLOWER
        assert "current_leader" not in partition
        assert "node_endpoints" not in answer
        answer, partition = _fetch(conn, 15, topic_id)
        assert partition["error_code"] == NOT_LEADER_OR_FOLLOWER
        assert partition.get("current_leader", {"leader_id": -1})["leader_id"] == -1
        assert "node_endpoints" not in answer
    finally:
        conn.close()

    # The leader itself answers both without error.
    conn = _connect(cluster, leader)
    try:
        _, partition = _produce(conn, 11)
        assert partition["error_code"] == 0
        answer, partition = _fetch(conn, 17, topic_id)
        assert partition["error_code"] == 0
        assert not answer.get("node_endpoints")
    finally:
        conn.close()
