"""`metrics.listener`: a broker serves Prometheus' text format at /metrics, read from its state
when scraped, and answers /healthz and /readyz; a default address already taken is a warning,
not a failed start."""

from __future__ import annotations

import contextlib
import gzip
import socket
import urllib.request
from collections.abc import Callable

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.embedded import BrokerStartError, EmbeddedBroker
from ferrolog.metrics.http import DEFAULT_LISTENER
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)

from tests.metrics.scraping import get, scrape
from tests.waiting import wait_until

pytestmark = pytest.mark.native

Factory = Callable[..., EmbeddedBroker]


def test_metrics_follow_the_broker_state(ferrolog_broker_factory: Factory) -> None:
    broker = ferrolog_broker_factory()
    assert get(f"{broker.metrics_url}/healthz") == (200, "ok\n")
    assert get(f"{broker.metrics_url}/readyz") == (200, "ready\n")
    assert get(f"{broker.metrics_url}/nothing")[0] == 404
    admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
    admin.create_topics([NewTopic("graphed", num_partitions=3, replication_factor=1)])[
        "graphed"
    ].result(20)
    producer = Producer({"bootstrap.servers": broker.bootstrap_servers})
    for i in range(30):
        producer.produce("graphed", value=b"x" * 100, partition=i % 3)
    assert producer.flush(30) == 0

    def end_offsets() -> dict[str, float]:
        samples = scrape(broker)
        return {
            dict(labels)["partition"]: value
            for (name, labels), value in samples.items()
            if name == "kafka_log_log_logendoffset" and dict(labels)["topic"] == "graphed"
        }

    wait_until(lambda: end_offsets() == {"0": 10, "1": 10, "2": 10}, what="the end offsets")
    samples = scrape(broker)
    assert samples[("kafka_server_replicamanager_partitioncount", ())] >= 3
    assert samples[("kafka_server_replicamanager_leadercount", ())] >= 3
    assert samples[("kafka_server_replicamanager_underreplicatedpartitions", ())] == 0
    assert samples[("kafka_controller_kafkacontroller_activecontrollercount", ())] == 1
    assert samples[("kafka_controller_kafkacontroller_offlinepartitionscount", ())] == 0
    size = samples[("kafka_log_log_size", (("partition", "0"), ("topic", "graphed")))]
    assert size > 10 * 100
    assert samples[("process_resident_memory_bytes", ())] > 0
    assert samples[("process_open_fds", ())] > 0


def test_the_default_address_taken_is_a_warning(ferrolog_broker_factory: Factory) -> None:
    host, _, port = DEFAULT_LISTENER.removeprefix("http://").rpartition(":")
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        with contextlib.suppress(OSError):  # taken by something else: the same situation
            taken.bind((host, int(port)))
            taken.listen()
        broker = ferrolog_broker_factory(overrides={"metrics.listener": DEFAULT_LISTENER})
        assert broker.metrics_url is None
        assert f"metrics listener {DEFAULT_LISTENER} not started" in broker.log_path.read_text()


def test_another_address_taken_and_a_bad_listener_fail_the_start(
    ferrolog_broker_factory: Factory,
) -> None:
    first = ferrolog_broker_factory()
    assert first.metrics_url is not None
    with pytest.raises(BrokerStartError, match="Address already in use"):
        ferrolog_broker_factory(overrides={"metrics.listener": first.metrics_url})
    with pytest.raises(BrokerStartError, match=r"metrics\.listener 'tcp://127\.0\.0\.1:1'"):
        ferrolog_broker_factory(overrides={"metrics.listener": "tcp://127.0.0.1:1"})


def test_a_prometheus_scrape_gets_openmetrics_gzipped_with_the_log_gauges(
    ferrolog_broker_factory: Factory,
) -> None:
    """What Prometheus asks for (OpenMetrics, gzip), it gets, with the natively written replica
    families inside the one exposition; segments are counted as they lie on disk."""
    broker = ferrolog_broker_factory()
    admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
    topic = NewTopic(
        "segmented", num_partitions=2, replication_factor=1,
        config={"internal.segment.bytes": "1024"},
    )  # fmt: skip
    admin.create_topics([topic])["segmented"].result(20)
    producer = Producer({"bootstrap.servers": broker.bootstrap_servers, "linger.ms": 0})
    for _ in range(20):  # one batch each: a new segment every few records
        producer.produce("segmented", value=b"s" * 200, partition=0)
        assert producer.flush(10) == 0

    request = urllib.request.Request(
        f"{broker.metrics_url}/metrics",
        headers={
            "Accept": "application/openmetrics-text;version=1.0.0,"
            "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
            "Accept-Encoding": "gzip",
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.headers["Content-Type"].startswith("application/openmetrics-text")
        assert response.headers["Content-Encoding"] == "gzip"
        text = gzip.decompress(response.read()).decode()
    assert text.endswith("\n# EOF\n")
    assert text.count("# EOF") == 1
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in openmetrics_families(text)
        for s in family.samples
    }

    def gauge(name: str, partition: int) -> float:
        return samples[(name, (("partition", str(partition)), ("topic", "segmented")))]

    on_disk = len(list((broker.data_dir / "segmented-0").glob("*.log")))
    assert on_disk > 1
    assert gauge("kafka_log_log_numlogsegments", 0) == on_disk
    assert gauge("kafka_log_log_numlogsegments", 1) == 1
    assert gauge("kafka_log_log_logendoffset", 0) == 20
    assert gauge("kafka_cluster_partition_highwatermark", 0) == 20
    assert samples[("kafka_server_replicamanager_partitioncount", ())] >= 2
    assert samples[("kafka_network_requestmetrics_requests_total", (("request", "Produce"),))] >= 20
