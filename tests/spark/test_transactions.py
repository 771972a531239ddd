"""format("ferrolog") with kafka.isolation.level=read_committed against ferrolog's own
transactions: committed records only, aborted ones dropped across partitions, and Spark's
format("kafka") reading the same set."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from confluent_kafka import Producer
from pyspark.sql import SparkSession

pytestmark = pytest.mark.timeout(600)


def _transactions(bootstrap: str, topic: str) -> None:
    producer = Producer(
        {"bootstrap.servers": bootstrap, "transactional.id": f"spark-{uuid.uuid4().hex[:8]}"}
    )
    producer.init_transactions(30)
    for name, count, commit in (("c", 100, True), ("a", 50, False), ("d", 50, True)):
        producer.begin_transaction()
        for i in range(count):
            producer.produce(topic, value=f"{name}{i}".encode(), partition=i % 2)
        producer.flush(30)
        if commit:
            producer.commit_transaction(30)
        else:
            producer.abort_transaction(30)


def test_read_committed_reads_exactly_the_committed_records(
    spark: SparkSession, bootstrap: str, new_topic: Callable[..., str]
) -> None:
    topic = new_topic(partitions=2)
    _transactions(bootstrap, topic)
    committed = sorted([f"c{i}" for i in range(100)] + [f"d{i}" for i in range(50)])

    def values(fmt: str, isolation: str) -> list[str]:
        df = (
            spark.read.format(fmt)
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", topic)
            .option("kafka.isolation.level", isolation)
            .load()
        )
        return sorted(bytes(r.value).decode() for r in df.select("value").collect())

    assert values("ferrolog", "read_committed") == committed
    assert values("kafka", "read_committed") == committed
    assert len(values("ferrolog", "read_uncommitted")) == 200
