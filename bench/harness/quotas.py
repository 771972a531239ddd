"""What the quota benches share: a ferrolog broker whose /metrics they read and whose quotas
use the tests' windows (`Scraped`), Apache Kafka with the same windows, the per-topic byte
counters, AlterClientQuotas, and Kafka's ProducerPerformance flooding as client id `flood`."""

from __future__ import annotations

import os
import subprocess
import urllib.request
from dataclasses import dataclass, field
from functools import partial

from ferrolog.client.connection import Connection
from ferrolog.protocol.messages import AlterClientQuotasRequest, Apis
from prometheus_client.parser import text_string_to_metric_families

from bench.harness import brokers, workloads

MIB = 1 << 20
FLOOD = "flood"


@dataclass
class Scraped(brokers.Ferrolog):
    metrics_port: int = field(default_factory=brokers.free_port)

    def command(self) -> list[str]:
        overrides = {
            "metrics.listener": f"http://127.0.0.1:{self.metrics_port}",
            "quota.window.num": "3",
            "quota.window.size.seconds": "1",
        }
        return [
            *super().command(),
            *(a for k, v in overrides.items() for a in ("--override", f"{k}={v}")),
        ]

    def bytes_in(self, topic: str) -> float:
        return topic_bytes_in(f"http://127.0.0.1:{self.metrics_port}", topic)

    def bytes_out(self, topic: str) -> float:
        return topic_bytes_out(f"http://127.0.0.1:{self.metrics_port}", topic)


class KafkaWindows(brokers.KafkaKRaft):
    """Apache Kafka measuring quotas over the same windows as `Scraped`, for the isolation
    comparison."""

    def prepare(self) -> None:
        super().prepare()
        with (self.workdir / "server.properties").open("a") as props:
            props.write("quota.window.num=3\nquota.window.size.seconds=1\n")


def topic_counter(metrics_url: str, name: str, topic: str) -> float:
    """The broker's per-topic counter `name` for `topic` so far, from its /metrics at
    `metrics_url`."""
    with urllib.request.urlopen(f"{metrics_url}/metrics", timeout=10) as response:
        text = response.read().decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels.get("topic") == topic:
                return float(sample.value)
    return 0.0


def topic_bytes_in(metrics_url: str, topic: str) -> float:
    """The broker's bytes in to `topic` so far (Kafka's BytesInPerSec)."""
    return topic_counter(metrics_url, "kafka_server_brokertopicmetrics_bytesin_total", topic)


def topic_bytes_out(metrics_url: str, topic: str) -> float:
    """The broker's record bytes sent to consumers of `topic` so far (BytesOutPerSec; what
    followers fetch is not counted)."""
    return topic_counter(metrics_url, "kafka_server_brokertopicmetrics_bytesout_total", topic)


def set_quota(
    bootstrap: str, client_id: str, rate: float | None, key: str = "producer_byte_rate"
) -> None:
    """AlterClientQuotas for `client_id`'s `key` (a byte rate); None removes it."""
    host, _, port = bootstrap.rpartition(":")
    conn = Connection(host, int(port), 10, "quota-bench")
    try:
        body: AlterClientQuotasRequest = {
            "entries": [
                {
                    "entity": [{"entity_type": "client-id", "entity_name": client_id}],
                    "ops": [{"key": key, "value": rate or 0.0, "remove": rate is None}],
                }
            ],
            "validate_only": False,
        }
        (entry,) = conn.request(Apis.ALTER_CLIENT_QUOTAS, 1, body)["entries"]
        if entry["error_code"] != 0:
            raise RuntimeError(f"AlterClientQuotas: {entry}")
    finally:
        conn.close()


def perf_args(bootstrap: str, topic: str, records: int) -> list[str]:
    """Kafka's ProducerPerformance at full speed, as client id `flood`."""
    return [
        "--topic", topic, "--num-records", str(records), "--record-size", "100",
        "--throughput", "-1", "--command-property", f"bootstrap.servers={bootstrap}", "acks=1",
        f"client.id={FLOOD}",
    ]  # fmt: skip


def flood(
    bootstrap: str, topic: str, seconds: float, cores: set[int] | None = None
) -> subprocess.Popen[str]:
    """ProducerPerformance for at least `seconds` (more records than it sends in that time),
    on `cores` if given."""
    cmd = workloads._java("ProducerPerformance", *perf_args(bootstrap, topic, int(seconds * 1e6)))
    return subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=None if cores is None else partial(os.sched_setaffinity, 0, cores),
    )
