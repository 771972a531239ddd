"""Requests that `ferrolog fuzz` found mishandled, each now answered as Apache Kafka answers
it. A test per finding, named for what the broker must do; the docstring gives the seed and
the finding's kind."""

from __future__ import annotations

import pytest
from ferrolog.client.connection import Connection
from ferrolog.embedded import EmbeddedBroker

METADATA = 3
INVALID_REQUEST = 42
SOME_ID = bytes(range(1, 17))


def _connect(broker: EmbeddedBroker) -> Connection:
    host, _, port = broker.bootstrap_servers.rpartition(":")
    return Connection(host, int(port), 10.0, "fuzz-findings")


@pytest.mark.native
@pytest.mark.parametrize("version", [10, 11])
def test_metadata_by_topic_id_before_v12_is_an_invalid_request(
    ferrolog_broker: EmbeddedBroker, version: int
) -> None:
    """Seed 12, broker-log: a v10 lookup with a null name failed to encode (v10-11 responses
    cannot carry a null name) and the connection was closed. Kafka refuses topic ids before
    v12 with INVALID_REQUEST for every topic, "" for a null name, and no brokers."""
    topics = [
        {"topic_id": bytes(16), "name": None},
        {"topic_id": SOME_ID, "name": "a"},
        {"topic_id": bytes(16), "name": "b"},
    ]
    with _connect(ferrolog_broker) as conn:
        response = conn.request(METADATA, version, {"topics": topics})
        assert [(t["name"], t["topic_id"], t["error_code"]) for t in response["topics"]] == [
            ("", bytes(16), INVALID_REQUEST),
            ("a", SOME_ID, INVALID_REQUEST),
            ("b", bytes(16), INVALID_REQUEST),
        ]
        assert response["brokers"] == []
        # The connection stays usable, and a lookup by name still works.
        named = conn.request(METADATA, version, {"topics": [{"name": "b"}]})
        assert named["brokers"]
        assert named["topics"][0]["name"] == "b"


CREATE_TOPICS = 19
CREATE_PARTITIONS = 37
POLICY_VIOLATION = 44
EXCESSIVE = "Unable to perform excessively large batch operation."


def _new_topic(name: str, partitions: int) -> dict[str, object]:
    return {
        "name": name,
        "num_partitions": partitions,
        "replication_factor": 1,
        "assignments": [],
        "configs": [],
    }


@pytest.mark.native
def test_creating_more_than_ten_thousand_partitions_at_once_is_a_policy_violation(
    ferrolog_broker: EmbeddedBroker,
) -> None:
    """Seed 41 (cluster), broker-down: a CreateTopics of 2,147,483,647 partitions was planned
    partition by partition and the broker stopped answering. Kafka 4's controller refuses an
    operation of more than 10,000 metadata records (a topic, its partitions, its configs)
    with POLICY_VIOLATION for every topic of the request."""
    with _connect(ferrolog_broker) as conn:
        huge = conn.request(
            CREATE_TOPICS,
            6,
            {"topics": [_new_topic("huge", 2**31 - 1), _new_topic("small", 1)], "timeout_ms": 5000},
        )
        assert [(t["name"], t["error_code"], t["error_message"]) for t in huge["topics"]] == [
            ("huge", POLICY_VIOLATION, EXCESSIVE),
            ("small", POLICY_VIOLATION, EXCESSIVE),
        ]
        # Two topics and 9,998 partitions are 10,000 records: within the bound.
        fits = conn.request(
            CREATE_TOPICS,
            6,
            {
                "topics": [_new_topic("half-a", 4999), _new_topic("half-b", 4999)],
                "timeout_ms": 5000,
                "validate_only": True,
            },
        )
        assert [t["error_code"] for t in fits["topics"]] == [0, 0]
        created = conn.request(
            CREATE_TOPICS, 6, {"topics": [_new_topic("grows", 1)], "timeout_ms": 5000}
        )
        assert created["topics"][0]["error_code"] == 0
        grown = conn.request(
            CREATE_PARTITIONS,
            3,
            {
                "topics": [{"name": "grows", "count": 2**31 - 1, "assignments": None}],
                "timeout_ms": 5000,
                "validate_only": False,
            },
        )
        result = grown["results"][0]
        assert (result["error_code"], result["error_message"]) == (POLICY_VIOLATION, EXCESSIVE)
