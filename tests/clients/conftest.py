"""Shared helpers for the real-client suites: each test gets its own topic on the shared
session broker, created through the Kafka protocol with confluent-kafka's AdminClient."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from confluent_kafka.admin import AdminClient, NewTopic


def create_topic(bootstrap: str, name: str, partitions: int = 1, **configs: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics(
        [NewTopic(name, num_partitions=partitions, replication_factor=1, config=configs)],
        operation_timeout=10,
    )
    futures[name].result(timeout=20)


@pytest.fixture
def bootstrap(ferrolog_broker) -> str:  # type: ignore[no-untyped-def]
    return str(ferrolog_broker.bootstrap_servers)


@pytest.fixture
def new_topic(bootstrap: str) -> Callable[..., str]:
    """Creates a fresh topic and returns its name."""

    def make(partitions: int = 1, **configs: str) -> str:
        name = f"t-{uuid.uuid4().hex[:12]}"
        create_topic(bootstrap, name, partitions, **configs)
        return name

    return make
