"""One local[2] SparkSession for the whole run (a JVM start costs seconds on 2 cores), on
loopback only, with ferrolog's data source registered and Spark's own Kafka connector on the
classpath (jars resolved once from Maven Central by `make test-deps`), plus topic helpers on
the session broker.

A test that pytest-timeout interrupts inside a py4j call leaves the JVM's answer to that call
unread on the thread's py4j connection, and every later call on it would read the answer meant
for the call before it ("... does not exist in the JVM", KeyError, 'JavaObject' in int()): after
such a test the next one gets a new JVM instead of the poisoned one."""

from __future__ import annotations

import contextlib
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


# A Spark test's budget includes the JVM start when it is the first on its xdist worker (40 to
# 80 s on a loaded 2-core CI machine, before the test does anything), so the default 120 s is too
# tight for it; modules that set their own timeout keep it.
SPARK_TIMEOUT = 300

# Set when a test using `spark` was interrupted by pytest-timeout (see the module docstring).
SESSION_POISONED = pytest.StashKey[bool]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if (
            here in item.path.parents
            and "spark" in getattr(item, "fixturenames", ())
            and item.get_closest_marker("timeout") is None
        ):
            item.add_marker(pytest.mark.timeout(SPARK_TIMEOUT))


def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> None:
    excinfo = call.excinfo
    if (
        excinfo is not None
        and "spark" in getattr(item, "fixturenames", ())
        and excinfo.errisinstance(pytest.fail.Exception)
        and "pytest-timeout" in str(excinfo.value)
    ):
        item.config.stash[SESSION_POISONED] = True


def start_session() -> SparkSession:
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
    return session


def discard_session() -> None:
    """Kills the JVM of a session whose py4j connection cannot be trusted (asking it to stop
    would go through that connection) and makes PySpark forget it, so that the next builder
    launches a new one."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    context = SparkContext._active_spark_context
    process = getattr(gateway, "proc", None)
    if process is not None:
        process.kill()
        if process.stdin is not None:
            process.stdin.close()
        process.wait(30)
    if context is not None:
        with contextlib.suppress(Exception):
            context._accumulatorServer.shutdown()
    if gateway is not None:
        with contextlib.suppress(Exception):
            gateway.shutdown()
    with SparkContext._lock:
        SparkContext._gateway = None
        SparkContext._jvm = None
        SparkContext._active_spark_context = None
    SparkSession._instantiatedSession = None
    SparkSession._activeSession = None


class Sessions:
    """The run's SparkSession, started on first use and replaced after a timed-out test."""

    def __init__(self) -> None:
        self.session: SparkSession | None = None

    def get(self, config: pytest.Config) -> SparkSession:
        if config.stash.get(SESSION_POISONED, False):
            # Also when the timeout hit while the session was starting.
            discard_session()
            self.session = None
        config.stash[SESSION_POISONED] = False
        if self.session is None:
            self.session = start_session()
        return self.session

    def close(self, config: pytest.Config) -> None:
        if config.stash.get(SESSION_POISONED, False):
            discard_session()
        elif self.session is not None:
            self.session.stop()
        self.session = None


@pytest.fixture(scope="session")
def spark_sessions(pytestconfig: pytest.Config) -> Iterator[Sessions]:
    sessions = Sessions()
    try:
        yield sessions
    finally:
        sessions.close(pytestconfig)


@pytest.fixture
def spark(spark_sessions: Sessions, pytestconfig: pytest.Config) -> SparkSession:
    return spark_sessions.get(pytestconfig)


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
