"""`fetch.max.bytes`: the broker bounds the record bytes of one Fetch response below the
request's own `max_bytes`, as Kafka does; the first batch answered is whole even when larger,
so a reader always moves on."""

from __future__ import annotations

from collections.abc import Callable

import ferrolog_native
import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.client.connection import Connection
from ferrolog.embedded import EmbeddedBroker

from tests import raw_fetch

pytestmark = pytest.mark.native

PRODUCE, FETCH = 0, 1
TOPIC = "bounded"


def _connect(broker: EmbeddedBroker) -> Connection:
    host, _, port = broker.bootstrap_servers.rpartition(":")
    return Connection(host, int(port), 20, "fetch-max-test")


def _produce(conn: Connection, value: bytes) -> None:
    batch = ferrolog_native.build_batch([(b"k", value, [], 1_700_000_000_000)])
    body = {
        "transactional_id": None,
        "acks": 1,
        "timeout_ms": 5000,
        "topic_data": [{"name": TOPIC, "partition_data": [{"index": 0, "records": batch}]}],
    }
    partition = conn.request(PRODUCE, 9, body)["responses"][0]["partition_responses"][0]
    assert partition["error_code"] == 0, partition


def _fetch(conn: Connection, offset: int) -> bytes:
    """The records a consumer asking for 1 MiB from `offset` gets."""
    body = raw_fetch.one_partition(12, offset, topic=TOPIC)
    answer = conn.request(FETCH, 12, body)["responses"][0]["partitions"][0]
    assert answer["error_code"] == 0, answer
    return bytes(answer["records"] or b"")


def _offsets(records: bytes) -> list[int]:
    return [offset for offset, *_ in ferrolog_native.decode_batches(records)]


@pytest.fixture
def brokers(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> dict[str, EmbeddedBroker]:
    made = {
        "bounded": ferrolog_broker_factory(overrides={"fetch.max.bytes": "1024"}),
        "default": ferrolog_broker_factory(),
    }
    for broker in made.values():
        admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
        admin.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(20)
    return made


def test_a_fetch_carries_at_most_fetch_max_bytes(brokers: dict[str, EmbeddedBroker]) -> None:
    answered = {}
    for name, broker in brokers.items():
        conn = _connect(broker)
        try:
            for i in range(8):
                _produce(conn, bytes([i]) * 400)
            _produce(conn, b"x" * 3000)  # offset 8: one batch over the limit on its own
            answered[name] = (_fetch(conn, 0), _fetch(conn, 8))
        finally:
            conn.close()
    bounded, whole = answered["bounded"][0], answered["default"][0]
    assert _offsets(whole) == list(range(9))
    assert 0 < len(bounded) <= 1024
    assert _offsets(bounded) == [0, 1]
    # A batch larger than the limit is answered whole when it comes first.
    large = answered["bounded"][1]
    assert _offsets(large) == [8]
    assert len(large) > 3000
