"""DescribeTopicPartitions (KIP-966) as Kafka 4.4's broker answers it: topics in name order,
paged by a cursor within `min(ResponsePartitionLimit, max.request.partition.size.limit)`
partitions, unknown and invalid names, and a cursor that does not fit the request. Kafka 4.4's
kafka-topics uses it through the admin client (tests/cluster/test_java_admin_tools.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from admin_broker import Broker, call
from ferrolog import errors
from ferrolog.handlers import describe_topic_partitions


def describe(
    broker: Broker, names: list[str], limit: int = 2000, cursor: tuple[str, int] | None = None
) -> dict[str, Any]:
    start = None if cursor is None else {"topic_name": cursor[0], "partition_index": cursor[1]}
    body: dict[str, Any] = {
        "topics": [{"name": n} for n in names],
        "response_partition_limit": limit,
        "cursor": start,
    }
    return call(broker, describe_topic_partitions, 0, body)


def pages(answer: dict[str, Any]) -> tuple[list[tuple[str, int, list[int]]], Any]:
    """(name, error, partition indexes) of each topic, and the next cursor."""
    topics = [
        (t["name"], t["error_code"], [p["partition_index"] for p in t["partitions"]])
        for t in answer["topics"]
    ]
    cursor = answer["next_cursor"]
    return topics, None if cursor is None else (cursor["topic_name"], cursor["partition_index"])


def test_every_topic_in_name_order_paged_by_the_cursor(
    admin_broker: Callable[..., Broker],
) -> None:
    broker = admin_broker(**{"max.request.partition.size.limit": "4"})
    broker.create("b", partitions=3)
    broker.create("a", partitions=2)
    broker.create("c", partitions=1)
    # The broker's limit (4) under the request's (2000).
    assert pages(describe(broker, [])) == ([("a", 0, [0, 1]), ("b", 0, [0, 1])], ("b", 2))
    assert pages(describe(broker, [], cursor=("b", 2))) == ([("b", 0, [2]), ("c", 0, [0])], None)
    # The request's under the broker's; a topic that fills it exactly hands on to the next.
    assert pages(describe(broker, [], limit=2)) == ([("a", 0, [0, 1])], ("b", 0))
    assert pages(describe(broker, [], limit=0)) == ([("a", 0, [0])], ("a", 1))
    a = describe(broker, ["a"])["topics"][0]
    assert (a["is_internal"], len(a["topic_id"]), a["topic_id"] != bytes(16)) == (False, 16, True)
    assert a["partitions"][0] == {
        "error_code": 0,
        "partition_index": 0,
        "leader_id": 0,
        "leader_epoch": a["partitions"][0]["leader_epoch"],
        "replica_nodes": [0],
        "isr_nodes": [0],
        "eligible_leader_replicas": [],
        "last_known_elr": [],
        "offline_replicas": [],
    }
    assert a["topic_authorized_operations"] > 0


def test_named_topics_unknown_invalid_and_a_cursor_that_does_not_fit(
    admin_broker: Callable[..., Broker],
) -> None:
    broker = admin_broker()
    broker.create("t", partitions=2)
    unknown, invalid = errors.UnknownTopicOrPartitionError.code, errors.InvalidTopicError.code
    assert pages(describe(broker, ["zz", "t", "bad name", "t", ""])) == (
        [("", invalid, []), ("bad name", invalid, []), ("t", 0, [0, 1]), ("zz", unknown, [])],
        None,
    )
    # From the cursor's topic on: names before it are left out.
    assert pages(describe(broker, ["a", "t"], cursor=("t", 1))) == ([("t", 0, [1])], None)
    bad_request = errors.InvalidRequestError.code
    for cursor in (("u", 0), ("t", -1)):
        assert pages(describe(broker, ["t"], cursor=cursor)) == ([("t", bad_request, [])], None)
