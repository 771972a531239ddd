"""An acks=all produce of several partitions is answered partition by partition as Kafka's
delayed produce answers it: a batch that was committed stays a success even when its leadership
moves while another partition of the same request is still waiting. Answered
NOT_LEADER_OR_FOLLOWER instead, librdkafka counts the batch as not persisted, and an idempotent
producer that bumps its epoch before the retry writes it a second time."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from confluent_kafka import ElectionType
from confluent_kafka import TopicPartition as CTopicPartition
from confluent_kafka.admin import NewTopic
from ferrolog.fuzz.batches import batch, record
from kafka import KafkaAdminClient
from kafka import TopicPartition as KTopicPartition

from tests.cluster.harness import Cluster
from tests.handlers.features_tools import request
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]

PRODUCE, LIST_OFFSETS = 0, 2
TOPIC = "waits"


def _high_watermark(bootstrap: str, partition: int) -> int:
    """ListOffsets LATEST (read_uncommitted): the leader's high watermark; -1 on an error."""
    body = {
        "replica_id": -1,
        "isolation_level": 0,
        "topics": [
            {
                "name": TOPIC,
                "partitions": [
                    {"partition_index": partition, "current_leader_epoch": -1, "timestamp": -1}
                ],
            }
        ],
    }
    answer = request(bootstrap, LIST_OFFSETS, 5, body)["topics"][0]["partitions"][0]
    return -1 if answer["error_code"] else int(answer["offset"])


def test_a_committed_partition_stays_a_success_when_its_leadership_moves_during_the_wait(
    cluster_factory: Any,
) -> None:
    # The paused follower must stay in the ISR, and registered, for the whole wait.
    cluster: Cluster = cluster_factory(
        size=3, **{"replica.lag.time.max.ms": "60000", "zookeeper.session.timeout.ms": "30000"}
    )
    controller = cluster.controller()
    paused = next(b for b in (3, 2, 1) if b != controller)
    leader, other = [b for b in (1, 2, 3) if b != paused]
    # Partition 0 commits with `other`; partition 1 waits for `paused`.
    admin = cluster.admin()
    topic = NewTopic(
        TOPIC, num_partitions=2, replica_assignment=[[leader, other], [leader, paused]],
        config={"min.insync.replicas": "2"},
    )  # fmt: skip
    admin.create_topics([topic])[TOPIC].result(20)
    cluster.wait_for_leaders(TOPIC, 2)
    cluster.wait_for_isr(TOPIC, 0, [leader, other])
    cluster.wait_for_isr(TOPIC, 1, [leader, paused])
    # Partition 0's preferred replica becomes `other`; `leader` leads it until an election.
    kadmin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap)
    try:
        tp = KTopicPartition(TOPIC, 0)
        assert kadmin.alter_partition_reassignments({tp: [other, leader]}).get(tp) is None
    finally:
        kadmin.close()
    wait_until(lambda: list(cluster.partition(TOPIC, 0).replicas) == [other, leader], 20,
               what="partition 0's replicas reordered")  # fmt: skip
    assert cluster.leader(TOPIC, 0) == leader
    cluster.brokers[paused].pause()
    body = {
        "transactional_id": None,
        "acks": -1,
        "timeout_ms": 60000,
        "topic_data": [
            {
                "name": TOPIC,
                "partition_data": [
                    # The waiting partition first: the request holds it as it holds the other.
                    {"index": 1, "records": batch([record(0, None, b"waits")])},
                    {"index": 0, "records": batch([record(0, None, b"commits")])},
                ],
            }
        ],
    }
    try:
        with ThreadPoolExecutor(1) as pool:
            answer = pool.submit(request, cluster.brokers[leader].bootstrap, PRODUCE, 7, body, 90)
            bootstrap = cluster.brokers[leader].bootstrap
            wait_until(lambda: _high_watermark(bootstrap, 0) == 1, 20,
                       what="partition 0's batch committed")  # fmt: skip
            # Partition 0's leadership moves to `other`, its preferred replica.
            elected = admin.elect_leaders(ElectionType.PREFERRED, [CTopicPartition(TOPIC, 0)])
            assert elected.result(30)[CTopicPartition(TOPIC, 0)] is None
            wait_until(lambda: cluster.leader(TOPIC, 0) == other, 20,
                       what=f"broker {other} leading partition 0")  # fmt: skip
            assert not answer.done(), answer.result()  # partition 1 still waits
            cluster.brokers[paused].resume()
            responses = answer.result(90)["responses"][0]["partition_responses"]
    finally:
        if cluster.brokers[paused].paused:
            cluster.brokers[paused].resume()
    by_index = {p["index"]: p for p in responses}
    assert (by_index[0]["error_code"], by_index[0]["base_offset"]) == (0, 0), by_index
    assert (by_index[1]["error_code"], by_index[1]["base_offset"]) == (0, 0), by_index
