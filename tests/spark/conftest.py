"""One local[2] SparkSession for the whole run (a JVM start costs seconds on 2 cores), on
loopback only, with ferrolog's data source registered and Spark's own Kafka connector on the
classpath (jars resolved once from Maven Central by `make test-deps`), plus topic helpers on
the session broker."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.spark import register
from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parents[2]


def connector_jars() -> list[str]:
    """The jars of spark-sql-kafka-0-10 and its dependencies (FERROLOG_SPARK_JARS or
    build/spark-jars, filled by `make spark-jars`)."""
    folder = Path(os.environ.get("FERROLOG_SPARK_JARS", ROOT / "build" / "spark-jars"))
    jars = sorted(str(p) for p in folder.glob("*.jar"))
    if not any("spark-sql-kafka" in j for j in jars):
        raise RuntimeError(
            f"Spark's Kafka connector is not in {folder}: run `make test-deps` (or set "
            "FERROLOG_SPARK_JARS to a folder with spark-sql-kafka-0-10 and its dependencies)"
        )
    return jars


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    # Workers must run this interpreter (it has ferrolog and pyarrow), and nothing may leave
    # loopback.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    session = (
        SparkSession.builder.master("local[2]")
        .appName("ferrolog-spark-tests")
        .config("spark.jars", ",".join(connector_jars()))
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    register(session)
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture
def bootstrap(ferrolog_broker: Any) -> str:
    return str(ferrolog_broker.bootstrap_servers)


@pytest.fixture
def new_topic(bootstrap: str) -> Callable[..., str]:
    """Creates a fresh topic on the session broker and returns its name."""

    def make(partitions: int = 1) -> str:
        name = f"spark-{uuid.uuid4().hex[:12]}"
        admin = AdminClient({"bootstrap.servers": bootstrap})
        futures = admin.create_topics([NewTopic(name, partitions, 1)], operation_timeout=10)
        futures[name].result(timeout=20)
        return name

    return make


@pytest.fixture
def produce(bootstrap: str) -> Callable[..., None]:
    """`produce(topic, records, partition=None, headers=False, **producer_config)`."""

    def run(topic: str, records: list[tuple[bytes | None, bytes, int | None]], **kw: Any) -> None:
        produce_records(bootstrap, topic, records, **kw)

    return run


def produce_records(
    bootstrap: str,
    topic: str,
    records: list[tuple[bytes | None, bytes, int | None]],
    *,
    partition: int | None = None,
    headers: bool = False,
    **config: Any,
) -> None:
    """Produces (key, value, timestamp ms or None) records and waits until all are acked."""
    producer = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 20, "enable.idempotence": True, **config}
    )
    failures: list[str] = []

    def check(err: Any, _msg: Any) -> None:
        if err is not None:
            failures.append(str(err))

    for i, (key, value, ts) in enumerate(records):
        kwargs: dict[str, Any] = {"key": key, "value": value, "on_delivery": check}
        if ts is not None:
            kwargs["timestamp"] = ts
        if partition is not None:
            kwargs["partition"] = partition
        if headers and i % 3 == 0:
            kwargs["headers"] = [("n", str(i).encode()), ("empty", None)]
        while True:
            try:
                producer.produce(topic, **kwargs)
                break
            except BufferError:
                producer.poll(0.05)
    assert producer.flush(60) == 0
    assert not failures, failures[:3]
