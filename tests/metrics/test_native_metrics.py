"""The data path's counters at /metrics: bytes and records in and out per topic, and
requests, errors and latency per API, for the natively served APIs and Python's alike."""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable

import ferrolog_native
import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.embedded import EmbeddedBroker
from ferrolog.protocol import decode_response, encode_request

from tests.metrics.scraping import Samples, scrape
from tests.quotas.conftest import QuotaClient
from tests.waiting import wait_until

pytestmark = pytest.mark.native

Factory = Callable[..., EmbeddedBroker]
PRODUCE, CORRUPT_MESSAGE, UNKNOWN_TOPIC_OR_PARTITION, MESSAGE_TOO_LARGE = 0, 2, 3, 10


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def log_size(samples: Samples, topic: str) -> float:
    return sum(
        v
        for (name, labels), v in samples.items()
        if name == "kafka_log_log_size" and dict(labels)["topic"] == topic
    )


def test_bytes_and_records_in_and_out_per_topic(ferrolog_broker_factory: Factory) -> None:
    broker = ferrolog_broker_factory()
    admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
    for name in ("counted", "other"):
        admin.create_topics([NewTopic(name, num_partitions=2, replication_factor=1)])[name].result(
            20
        )
    producer = Producer({"bootstrap.servers": broker.bootstrap_servers, "linger.ms": 5})
    for i in range(500):
        producer.produce("counted", value=b"v" * 200, partition=i % 2)
    producer.produce("other", value=b"o")
    assert producer.flush(30) == 0

    samples = scrape(broker)
    name = "kafka_server_brokertopicmetrics_"
    assert value(samples, f"{name}messagesin_total", topic="counted") == 500
    assert value(samples, f"{name}messagesin_total", topic="other") == 1
    # Nothing is deleted or compacted yet: every byte appended is in the log.
    assert value(samples, f"{name}bytesin_total", topic="counted") == log_size(samples, "counted")
    assert value(samples, f"{name}totalproducerequests_total", topic="counted") >= 2
    assert value(samples, f"{name}failedproducerequests_total", topic="counted") == 0
    assert value(samples, f"{name}bytesout_total", topic="counted") == 0

    consumer = Consumer(
        {
            "bootstrap.servers": broker.bootstrap_servers,
            "group.id": "g",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition("counted", p, 0) for p in range(2)])
        received = 0
        while received < 500:
            message = consumer.poll(10)
            assert message is not None, f"only {received} records arrived"
            assert message.error() is None
            received += 1
    finally:
        consumer.close()
    samples = scrape(broker)
    # Every batch was read whole at least once.
    assert value(samples, f"{name}bytesout_total", topic="counted") >= log_size(samples, "counted")
    assert value(samples, f"{name}totalfetchrequests_total", topic="counted") >= 2
    assert value(samples, f"{name}bytesout_total", topic="other") == 0
    # A single broker replicates nothing.
    assert value(samples, f"{name}replicationbytesin_total") == 0
    assert value(samples, f"{name}replicationbytesout_total") == 0


def test_requests_latency_and_errors_per_api(ferrolog_broker_factory: Factory) -> None:
    broker = ferrolog_broker_factory()
    admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
    admin.create_topics([NewTopic("errs", num_partitions=1, replication_factor=1)])["errs"].result(
        20
    )
    with pytest.raises(KafkaException, match="TOPIC_ALREADY_EXISTS"):
        admin.create_topics([NewTopic("errs", num_partitions=1, replication_factor=1)])[
            "errs"
        ].result(20)
    producer = Producer({"bootstrap.servers": broker.bootstrap_servers})
    for _ in range(20):
        producer.produce("errs", value=b"x")
    assert producer.flush(30) == 0

    requests = "kafka_network_requestmetrics_requests_total"
    errors = "kafka_network_requestmetrics_errors_total"
    total_time = "kafka_network_requestmetrics_totaltimems"

    def counted() -> bool:
        s = scrape(broker)
        return value(s, errors, request="CreateTopics", error="TOPIC_ALREADY_EXISTS") == 1

    # Python counts its responses' errors just after sending them.
    wait_until(counted, what="CreateTopics' TOPIC_ALREADY_EXISTS counted")
    samples = scrape(broker)
    produced = value(samples, requests, request="Produce")
    assert produced >= 1
    # One partition per Produce: one NONE each.
    assert value(samples, errors, request="Produce", error="NONE") == produced
    assert value(samples, errors, request="CreateTopics", error="NONE") >= 1
    assert value(samples, requests, request="Metadata") >= 1
    assert value(samples, requests, request="ApiVersions") >= 1
    # The histogram holds every answered request; its buckets are cumulative.
    for api in ("Produce", "Metadata", "CreateTopics"):
        count = value(samples, f"{total_time}_count", request=api)
        assert count == value(samples, requests, request=api), api
        assert value(samples, f"{total_time}_bucket", request=api, le="+Inf") == count
        assert value(samples, f"{total_time}_bucket", request=api, le="1.0") <= count
        assert value(samples, f"{total_time}_sum", request=api) > 0
    assert value(samples, "kafka_network_requestchannel_requestqueuesize") >= 0


def produce(bootstrap: str, topic: str, partition: int, records: bytes) -> int:
    """One acks=1 Produce v7 on its own connection; the partition's error code."""
    host, port = bootstrap.rsplit(":", 1)
    body = {
        "transactional_id": None,
        "acks": 1,
        "timeout_ms": 5000,
        "topic_data": [
            {"name": topic, "partition_data": [{"index": partition, "records": records}]}
        ],
    }
    with socket.create_connection((host, int(port)), timeout=10) as s:
        frame = encode_request(PRODUCE, 7, 1, "metrics-test", body)
        s.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", s.recv(4, socket.MSG_WAITALL))[0]
        _, response = decode_response(PRODUCE, 7, s.recv(size, socket.MSG_WAITALL))
    return int(response["responses"][0]["partition_responses"][0]["error_code"])


def test_refused_batches_count_as_failed_and_rejected(ferrolog_broker_factory: Factory) -> None:
    broker = ferrolog_broker_factory(overrides={"auto.create.topics.enable": "false"})
    admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
    admin.create_topics(
        [
            NewTopic(
                "one", num_partitions=1, replication_factor=1, config={"max.message.bytes": "1000"}
            )
        ]
    )["one"].result(20)
    batch = bytearray(ferrolog_native.build_batch([(b"k", b"v", [], 1_700_000_000_000)]))
    large = ferrolog_native.build_batch([(b"k", b"v" * 2000, [], 1_700_000_000_000)])
    wait_until(
        lambda: produce(broker.bootstrap_servers, "one", 0, bytes(batch)) == 0,
        what="the partition to take a write",
    )
    errors = "kafka_network_requestmetrics_errors_total"
    # Produces sent while the partition was still opening were answered with this too.
    unknown_before = value(
        scrape(broker), errors, request="Produce", error="UNKNOWN_TOPIC_OR_PARTITION"
    )
    batch[-1] ^= 0xFF  # covered by the CRC
    assert produce(broker.bootstrap_servers, "one", 0, bytes(batch)) == CORRUPT_MESSAGE
    assert produce(broker.bootstrap_servers, "one", 5, bytes(batch)) == UNKNOWN_TOPIC_OR_PARTITION
    assert produce(broker.bootstrap_servers, "one", 0, large) == MESSAGE_TOO_LARGE

    samples = scrape(broker)
    name = "kafka_server_brokertopicmetrics_"
    assert value(samples, f"{name}failedproducerequests_total", topic="one") == 2
    assert value(samples, f"{name}bytesrejected_total", topic="one") == len(large)
    assert value(samples, f"{name}messagesin_total", topic="one") == 1
    assert value(samples, errors, request="Produce", error="CORRUPT_MESSAGE") == 1
    unknown = value(samples, errors, request="Produce", error="UNKNOWN_TOPIC_OR_PARTITION")
    assert unknown == unknown_before + 1
    assert value(samples, errors, request="Produce", error="MESSAGE_TOO_LARGE") == 1


def test_quota_throttles_per_client(ferrolog_broker_factory: Factory) -> None:
    broker = ferrolog_broker_factory()
    quotas = QuotaClient(broker.bootstrap_servers)
    try:
        assert quotas.alter({"client-id": "slow-app"}, {"producer_byte_rate": 1024.0}) == (0, None)
    finally:
        quotas.close()
    producer = Producer({"bootstrap.servers": broker.bootstrap_servers, "client.id": "slow-app"})
    producer.produce("throttled", b"x" * 20_000)
    assert producer.flush(30) == 0
    labels = {"user": "", "client_id": "slow-app"}

    def throttled() -> bool:
        return value(scrape(broker), "kafka_server_produce_throttles_total", **labels) >= 1

    wait_until(throttled, what="the throttle at /metrics")
    assert value(scrape(broker), "kafka_server_produce_throttle_time_ms_total", **labels) > 0


def test_request_memory_gauges(ferrolog_broker_factory: Factory) -> None:
    """Kafka's SocketServer `MemoryPoolAvailable` and `MemoryPoolUsed`: the whole pool of
    queued.max.request.bytes while no request is in flight; without one, Long.MAX_VALUE
    available, as Kafka's MemoryPool.NONE reports."""
    limit = "200000"
    bounded = ferrolog_broker_factory(
        overrides={"socket.request.max.bytes": limit, "queued.max.request.bytes": limit}
    )
    samples = scrape(bounded)
    assert value(samples, "kafka_network_socketserver_memorypoolavailable") == int(limit)
    assert value(samples, "kafka_network_socketserver_memorypoolused") == 0
    unbounded = scrape(ferrolog_broker_factory())
    assert value(unbounded, "kafka_network_socketserver_memorypoolavailable") == float(2**63 - 1)
