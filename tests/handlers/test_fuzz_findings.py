"""Requests that `ferrolog fuzz` found mishandled, each now answered as Apache Kafka answers
it. A test per finding, named for what the broker must do; the docstring gives the seed and
the finding's kind."""

from __future__ import annotations

import pytest
from ferrolog.connection import Connection
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
