"""A log directory belongs to one broker at a time: a second broker started on the data of a
running one fails at once with Kafka's message, before it recovers, truncates or rewrites
anything there, and the running broker goes on serving."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from confluent_kafka import Producer
from ferrolog.embedded import BrokerStartError, EmbeddedBroker

pytestmark = pytest.mark.native


def test_a_second_broker_on_the_same_log_dir_is_refused(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    first = ferrolog_broker_factory()
    producer = Producer({"bootstrap.servers": first.bootstrap_servers})
    producer.produce("locked", b"before")
    assert producer.flush(30) == 0
    files = sorted(p.name for p in first.data_dir.iterdir())
    assert ".lock" in files
    with pytest.raises(BrokerStartError) as refused:
        ferrolog_broker_factory(data_dir=first.data_dir)
    assert "Failed to acquire lock on file .lock" in str(refused.value)
    assert sorted(p.name for p in first.data_dir.iterdir()) == files
    producer.produce("locked", b"after")
    assert producer.flush(30) == 0
