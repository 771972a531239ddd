"""Kafka 4.4's own admin tools against a ferrolog cluster: `kafka-topics --describe` (through
DescribeTopicPartitions, paged), `kafka-leader-election`
(LeaderElectionCommand) restores preferred leaders after a controlled shutdown moved them, and
`kafka-reassign-partitions` (ReassignPartitionsCommand) moves a partition, verifies the move
(clearing replication throttles as it does) and lists nothing pending afterwards. Skipped
where Java or the Kafka jars (fetched by `make kafka-jars`) are absent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from confluent_kafka.admin import NewTopic

from tests.cluster.harness import Cluster, java_command, needs_kafka_jars
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow, needs_kafka_jars]

TOPICS = "org.apache.kafka.tools.TopicCommand"
LEADER_ELECTION = "org.apache.kafka.tools.LeaderElectionCommand"
REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"


def tool(main: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(java_command(main, *args), capture_output=True, text=True, timeout=120)


def test_kafka_topics_describes_partitions_page_by_page(cluster: Cluster) -> None:
    cluster.create_topic("described", 3, 3)
    for p in range(3):
        cluster.wait_for_isr("described", p, [1, 2, 3])
    expected = []
    for p in range(3):
        replicas = ",".join(str(b) for b in cluster.partition("described", p).replicas)
        leader = cluster.leader("described", p)
        # Isr: the replicas' order, as the controller holds it; Elr: empty while the ISR is full.
        isr = ",".join(str(b) for b in cluster.partition("described", p).isrs)
        expected.append(
            f"\tTopic: described\tPartition: {p}\tLeader: {leader}\tReplicas: {replicas}"
            f"\tIsr: {isr}\tElr: \tLastKnownElr: "
        )
    for limit in ("2000", "1"):  # one answer, then one partition per DescribeTopicPartitions
        run = tool(
            TOPICS, "--bootstrap-server", cluster.bootstrap, "--describe", "--topic", "described",
            "--partition-size-limit-per-response", limit,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
        lines = run.stdout.splitlines()
        assert lines[0].startswith("Topic: described\tTopicId: "), lines
        assert "\tPartitionCount: 3\tReplicationFactor: 3\t" in lines[0]
        assert lines[1:] == expected


def test_kafka_leader_election_restores_preferred_leaders(cluster: Cluster) -> None:
    cluster.create_topic("el", 3, 3)
    preferred = [cluster.partition("el", p).replicas[0] for p in range(3)]
    victim = preferred[0]
    assert cluster.brokers[victim].terminate(timeout=30) == 0
    cluster.brokers[victim].start()
    cluster.brokers[victim].wait_ready()
    for p in range(3):
        cluster.wait_for_isr("el", p, [1, 2, 3])
    moved = [p for p in range(3) if cluster.leader("el", p) != preferred[p]]
    assert 0 in moved
    run = tool(
        LEADER_ELECTION,
        "--bootstrap-server",
        cluster.bootstrap,
        "--election-type",
        "PREFERRED",
        "--all-topic-partitions",
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # Only the partitions that needed an election are reported, as by Kafka.
    elected = ", ".join(f"el-{p}" for p in moved)
    assert f"Successfully completed leader election (PREFERRED) for partitions {elected}" in (
        run.stdout
    )
    assert [cluster.leader("el", p) for p in range(3)] == preferred
    again = tool(
        LEADER_ELECTION,
        "--bootstrap-server",
        cluster.bootstrap,
        "--election-type",
        "PREFERRED",
        "--topic",
        "el",
        "--partition",
        "0",
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Valid replica already elected for partitions el-0" in again.stdout


@pytest.mark.parametrize("throttle", [False, True], ids=["plain", "throttled"])
def test_kafka_reassign_partitions_moves_and_verifies(
    cluster: Cluster, tmp_path: Path, throttle: bool
) -> None:
    admin = cluster.admin()
    admin.create_topics([NewTopic("mv", num_partitions=1, replica_assignment=[[1, 2]])])[
        "mv"
    ].result(20)
    cluster.wait_for_leaders("mv", 1)
    plan = tmp_path / "plan.json"
    target = {"version": 1, "partitions": [{"topic": "mv", "partition": 0, "replicas": [3, 2]}]}
    plan.write_text(json.dumps(target))
    common = ["--bootstrap-server", cluster.bootstrap, "--reassignment-json-file", str(plan)]
    # --throttle sets the replication throttles (dynamic broker configs, and the throttled
    # replica lists of the topic); --verify clears them once the move is done.
    throttling = ["--throttle", "50000000"] if throttle else []
    run = tool(REASSIGN, *common, "--execute", *throttling)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Successfully started partition reassignment for mv-0" in run.stdout

    def verified() -> bool:
        check = tool(REASSIGN, *common, "--verify")
        if "Reassignment of partition mv-0 is completed." not in check.stdout:
            return False
        assert check.returncode == 0, check.stdout + check.stderr
        return True

    wait_until(verified, 60, step=1, what="the reassignment to verify as completed")
    assert cluster.partition("mv").replicas == [3, 2]
    cluster.wait_for_isr("mv", 0, [2, 3])
    listed = tool(REASSIGN, "--bootstrap-server", cluster.bootstrap, "--list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "No partition reassignments found." in listed.stdout
    if not throttle:
        # AlterPartitionReassignments v1 (KIP-1092): a move that would change the replication
        # factor is refused when the tool is told to keep it.
        grown = [{"topic": "mv", "partition": 0, "replicas": [3, 2, 1]}]
        plan.write_text(json.dumps({"version": 1, "partitions": grown}))
        kept = tool(REASSIGN, *common, "--execute", "--disallow-replication-factor-change")
        assert kept.returncode != 0, kept.stdout
        assert "The replication factor is changed from 2 to 3" in kept.stdout + kept.stderr
        assert cluster.partition("mv").replicas == [3, 2]
