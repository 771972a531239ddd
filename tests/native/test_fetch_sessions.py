"""Fetch sessions (KIP-227) with real clients reading 1,000 partitions of one broker, seen
through a proxy that records every Fetch exchange (`bench.harness.fetch_spy`): the Java
client (Kafka 4.1, Fetch v15 with topic ids) and kafka-python (Fetch v12) open a session with
a full fetch and go on with incremental ones, whose answers to idle fetches are a few dozen
bytes; librdkafka, which never asks for a session, keeps its full fetches (by topic id from
v13). Every client reads every record exactly."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.embedded import EmbeddedBroker
from ferrolog.ports import free_port

from bench.harness import brokers, kafka_dist
from bench.harness.fetch_spy import FetchExchange, FetchSpy
from tests.cluster.harness import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]

TOPIC = "wide"
PARTITIONS = 1000
PER_PARTITION = 2
# An empty incremental response: header, throttle time, error, session id, no topics.
IDLE_RESPONSE_MAX_BYTES = 32


@dataclass
class Wide:
    broker: EmbeddedBroker
    spy: FetchSpy
    # every record produced so far, by (partition, offset): the tests add some as they go
    records: dict[tuple[int, int], bytes]

    @property
    def bootstrap(self) -> str:
        return self.spy.address

    def fetches(self, client_prefix: str) -> list[FetchExchange]:
        return [e for e in self.spy.exchanges() if e.client_id.startswith(client_prefix)]


def value(partition: int, n: int) -> bytes:
    return f"{partition}-{n}".encode()


@pytest.fixture(scope="module")
def wide() -> Iterator[Wide]:
    """One broker, reached only through the spy, with 1,000 partitions of two records each."""
    port = free_port()
    spy = FetchSpy(port)
    broker = EmbeddedBroker(
        overrides={
            "listeners": f"PLAINTEXT://127.0.0.1:{port}",
            "advertised.listeners": f"PLAINTEXT://{spy.address}",
            "group.initial.rebalance.delay.ms": "0",
        }
    ).start()
    try:
        admin = AdminClient({"bootstrap.servers": spy.address})
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])[TOPIC].result(120)
        producer = Producer({"bootstrap.servers": spy.address, "linger.ms": 20})
        for p in range(PARTITIONS):
            for n in range(PER_PARTITION):
                producer.produce(TOPIC, value=value(p, n), partition=p)
        assert producer.flush(60) == 0
        del producer, admin  # librdkafka clients left alive would reconnect at teardown
        records = {(p, n): value(p, n) for p in range(PARTITIONS) for n in range(PER_PARTITION)}
        yield Wide(broker, spy, records)
    finally:
        broker.close()
        spy.close()


def _late_record(wide: Wide, partition: int) -> None:
    """One more record to `partition`, produced while a consumer idles."""
    offset = sum(p == partition for p, _ in wide.records)
    producer = Producer({"bootstrap.servers": wide.bootstrap})
    producer.produce(TOPIC, value=value(partition, offset), partition=partition)
    assert producer.flush(30) == 0
    wide.records[(partition, offset)] = value(partition, offset)


def _idle_fetches_since_data(fetches: list[FetchExchange]) -> int:
    """Incremental fetches answered with nothing since the last one that brought records."""
    data = [i for i, f in enumerate(fetches) if f.record_bytes > 0]
    if not data:
        return 0
    return sum(f.session_epoch > 0 and f.partitions_answered == 0 for f in fetches[data[-1] :])


def _check_session_use(fetches: list[FetchExchange], late_partition: int) -> None:
    """A session opened by a full fetch (of every partition the client knows a position of),
    then incremental fetches: idle ones answered in a few bytes, the late record in an answer
    naming its partition alone."""
    opened = [f for f in fetches if f.session_epoch == 0 and f.response_session_id != 0]
    assert opened, "no full fetch opened a session"
    # A client opens its session with the partitions whose positions it knows: all of them
    # as a rule, but on a busy machine the Java consumer opened one with 950 of 1,000 and
    # added the rest a fetch later. A full fetch is answered for every partition it names.
    full = max(opened, key=lambda f: f.partitions_asked)
    assert full.partitions_asked > PARTITIONS // 2, full
    assert full.partitions_answered == full.partitions_asked, full
    incremental = [f for f in fetches if f.session_epoch > 0]
    assert len(incremental) >= 3, f"{len(incremental)} incremental fetches"
    assert all(f.error_code == 0 for f in incremental), [f.error_code for f in incremental]
    assert all(f.response_session_id == f.session_id for f in incremental)
    idle = [f for f in incremental if f.partitions_answered == 0]
    assert idle, "no idle incremental fetch"
    assert max(f.response_bytes for f in idle) <= IDLE_RESPONSE_MAX_BYTES
    # an incremental request names only the partitions whose position moved: all of them
    # right after the first records, none once the consumer idles
    asked = sorted(f.partitions_asked for f in idle)
    assert asked[0] == 0
    assert asked[len(asked) // 2] < PARTITIONS // 10, asked
    late = [f for f in incremental if f.record_bytes > 0 and f.partitions_answered == 1]
    assert late, f"the late record to {late_partition} came in no one-partition answer"
    smallest_full = min(f.response_bytes for f in opened)
    print(
        f"full fetch response {smallest_full} bytes, idle incremental "
        f"{max(f.response_bytes for f in idle)} bytes, {len(incremental)} incremental fetches"
    )


@pytest.mark.skipif(
    not brokers.jars_available()
    or not (kafka_dist.libs_dir(kafka_dist.KAFKA4) / ".complete").exists(),
    reason="needs java and Kafka's jars (make kafka-jars fetches them)",
)
def test_java_consumer_reads_1000_partitions_in_a_fetch_session(wide: Wide) -> None:
    late_partition = 777
    total = len(wide.records) + 1
    command = [
        "java", "-Xmx256M", "-cp", kafka_dist.classpath(kafka_dist.KAFKA4),
        "org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server", wide.bootstrap,
        "--topic", TOPIC, "--group", "java-wide", "--max-messages", str(total),
        "--timeout-ms", "60000", "--formatter-property", "print.partition=true",
        "--formatter-property", "print.offset=true",
        "--command-property", "auto.offset.reset=earliest",
        "--command-property", "group.protocol=classic",
        "--command-property", "client.id=java-wide",
    ]  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # idle after reading everything: a few fetches with nothing new, then one record
        wait_until(
            lambda: _idle_fetches_since_data(wide.fetches("java-wide")) >= 3,
            90,
            what="the Java consumer to read the topic and go idle",
        )
        _late_record(wide, late_partition)
        out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err[-2000:]
    seen = {}
    for line in out.splitlines():
        fields = dict(f.split(":", 1) for f in line.split("\t")[:2])
        seen[(int(fields["Partition"]), int(fields["Offset"]))] = line.split("\t")[2].encode()
    assert seen == wide.records
    fetches = wide.fetches("java-wide")
    assert {f.version for f in fetches} == {18}, "topic ids, at the highest version served"
    _check_session_use(fetches, late_partition)


def test_kafka_python_reads_1000_partitions_in_a_fetch_session(wide: Wide) -> None:
    from kafka import KafkaConsumer
    from kafka import TopicPartition as KTopicPartition

    late_partition = 123
    consumer = KafkaConsumer(
        bootstrap_servers=wide.bootstrap, client_id="kpy-wide", enable_auto_commit=False
    )
    parts = [KTopicPartition(TOPIC, p) for p in range(PARTITIONS)]
    consumer.assign(parts)
    consumer.seek_to_beginning(*parts)
    seen: dict[tuple[int, int], bytes] = {}

    def poll_until(count: int) -> bool:
        for records in consumer.poll(timeout_ms=500).values():
            for r in records:
                seen[(r.partition, r.offset)] = r.value
        return len(seen) >= count

    try:
        wait_until(lambda: poll_until(len(wide.records)), 120, what="every record")
        for _ in range(6):  # idle polls
            poll_until(0)
        _late_record(wide, late_partition)
        wait_until(lambda: poll_until(len(wide.records)), 60, what="the late one")
    finally:
        consumer.close()
    assert seen == wide.records
    fetches = wide.fetches("kpy-wide")
    assert {f.version for f in fetches} == {12}
    _check_session_use(fetches, late_partition)


def test_librdkafka_reads_1000_partitions_without_a_session(wide: Wide) -> None:
    consumer = Consumer(
        {
            "bootstrap.servers": wide.bootstrap,
            "group.id": "rdkafka-wide",
            "client.id": "rdkafka-wide",
            "enable.auto.commit": False,
        }
    )
    consumer.assign([TopicPartition(TOPIC, p, 0) for p in range(PARTITIONS)])
    seen: dict[tuple[int, int], bytes] = {}
    deadline = time.monotonic() + 120
    try:
        while len(seen) < len(wide.records) and time.monotonic() < deadline:
            for msg in consumer.consume(1000, timeout=1):
                assert msg.error() is None, msg.error()
                seen[(msg.partition(), msg.offset())] = msg.value()
    finally:
        consumer.close()
    assert seen == wide.records
    fetches = wide.fetches("rdkafka-wide")
    assert fetches
    assert min(f.version for f in fetches) >= 13, "topic ids once the client knows them"
    sessions = {(f.session_id, f.session_epoch, f.response_session_id) for f in fetches}
    assert sessions == {(0, -1, 0)}, "never in a session"
