"""ElectLeaders, AlterPartitionReassignments and ListPartitionReassignments on a single node,
against the real controller over a real LocalStore. The expected answers are those Apache
Kafka 4.1.1 gives a one-broker KRaft cluster for the same requests (checked side by side)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from admin_broker import Broker, call
from ferrolog import errors
from ferrolog.handlers import (
    alter_partition_reassignments,
    elect_leaders,
    list_partition_reassignments,
)

PREFERRED, UNCLEAN = 0, 1


@pytest.fixture
def broker(admin_broker: Callable[..., Broker]) -> Broker:
    b = admin_broker()
    b.create("t", 2)
    return b


def elect(
    broker: Broker, kind: int, partitions: dict[str, list[int]] | None, version: int = 2
) -> list[tuple[str, int, int]]:
    request = {
        "election_type": kind,
        "topic_partitions": None
        if partitions is None
        else [{"topic": t, "partitions": ps} for t, ps in partitions.items()],
        "timeout_ms": 1000,
    }
    response = call(broker, elect_leaders, version, request)
    assert response["error_code"] == 0
    return sorted(
        (t["topic"], p["partition_id"], p["error_code"])
        for t in response["replica_election_results"]
        for p in t["partition_result"]
    )


@pytest.mark.parametrize("version", [0, 1, 2])
def test_elect_preferred(broker: Broker, version: int) -> None:
    assert elect(broker, PREFERRED, {"t": [0, 9], "nope": [0]}, version) == [
        ("nope", 0, errors.UnknownTopicOrPartitionError.code),
        ("t", 0, errors.ElectionNotNeededError.code),
        ("t", 9, errors.UnknownTopicOrPartitionError.code),
    ]


def test_elect_unclean_with_a_live_leader_is_not_needed(broker: Broker) -> None:
    assert elect(broker, UNCLEAN, {"t": [1]}) == [("t", 1, errors.ElectionNotNeededError.code)]


@pytest.mark.parametrize("kind", [PREFERRED, UNCLEAN])
def test_elect_all_leaves_out_partitions_needing_no_election(broker: Broker, kind: int) -> None:
    before = broker.run(broker.store.partition_states("t"))
    assert elect(broker, kind, None) == []
    assert broker.run(broker.store.partition_states("t")) == before  # nothing was written


def test_unknown_election_type_is_an_invalid_request(broker: Broker) -> None:
    request = {"election_type": 7, "topic_partitions": None, "timeout_ms": 1000}
    response = call(broker, elect_leaders, 2, request)
    assert response["error_code"] == errors.InvalidRequestError.code


def reassign(broker: Broker, topic: str, partition: int, replicas: list[int] | None) -> int:
    request = {
        "timeout_ms": 1000,
        "topics": [
            {"name": topic, "partitions": [{"partition_index": partition, "replicas": replicas}]}
        ],
    }
    response = call(broker, alter_partition_reassignments, 0, request)
    assert response["error_code"] == 0
    code: int = response["responses"][0]["partitions"][0]["error_code"]
    return code


@pytest.mark.parametrize(
    ("topic", "partition", "replicas", "code"),
    [
        # The only replica list a single node can have is the one a partition has: accepted,
        # and done at once.
        ("t", 0, [0], 0),
        ("t", 0, None, errors.NoReassignmentInProgressError.code),
        ("t", 0, [99], errors.InvalidReplicaAssignmentError.code),
        ("t", 0, [], errors.InvalidReplicaAssignmentError.code),
        ("t", 0, [0, 0], errors.InvalidReplicaAssignmentError.code),
        ("t", 5, [0], errors.UnknownTopicOrPartitionError.code),
        ("nope", 0, [0], errors.UnknownTopicOrPartitionError.code),
    ],
)
def test_reassignments(
    broker: Broker, topic: str, partition: int, replicas: list[int] | None, code: int
) -> None:
    assert reassign(broker, topic, partition, replicas) == code
    assert broker.stored()["t"].assignment == {0: [0], 1: [0]}
    listed = call(broker, list_partition_reassignments, 0, {"timeout_ms": 1000, "topics": None})
    assert (listed["error_code"], listed["topics"]) == (0, [])
