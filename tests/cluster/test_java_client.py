"""The Java client follows leadership on ferrolog: Kafka 4.1's own VerifiableProducer
(acks=all, idempotence on, as the client defaults) keeps producing while the partition leader
is SIGKILLed twice (restarted in between), every record it reports acknowledged is stored at
its reported offset, and Kafka's console consumer, assigned to the partition, reads every
record across the leader kills with no gap. Skipped where Java or the Kafka jars (fetched by
`make kafka-jars`) are absent, like tests/groups/test_java_client.py."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.cluster.checker import check_continuous, check_no_loss
from tests.cluster.harness import Cluster, java_command, needs_kafka_jars
from tests.consume import read
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow, needs_kafka_jars]

TOPIC = "java"
RECORDS = 3000
RATE = 100  # records per second: the producer runs about 30 s, long enough for two kills

# The Java client's defaults apart from timeouts, so a lost request is retried within seconds
# rather than after the default 30 s request timeout. VerifiableProducer itself sets
# retries=0 (which also turns idempotence off); the file, applied after it, puts back the
# client's default (retries=MAX_INT, so idempotence stays on with acks=all).
PRODUCER_CONFIG = "retries=2147483647\nrequest.timeout.ms=5000\ndelivery.timeout.ms=30000\n"


class JavaProducer:
    """VerifiableProducer in the background; one JSON line per send outcome on stdout."""

    def __init__(self, bootstrap: str, config: Path) -> None:
        config.write_text(PRODUCER_CONFIG)
        self.proc = subprocess.Popen(
            java_command(
                "org.apache.kafka.tools.VerifiableProducer",
                "--bootstrap-server",
                bootstrap,
                "--topic",
                TOPIC,
                "--max-messages",
                str(RECORDS),
                "--throughput",
                str(RATE),
                "--acks",
                "-1",  # acks=all
                "--command-config",
                str(config),
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.acked: dict[tuple[int, int], bytes] = {}
        self.ack_times: list[float] = []
        self.errors: list[dict[str, object]] = []
        self.stderr = ""
        self._lock = threading.Lock()
        self._out = threading.Thread(target=self._read_stdout, daemon=True)
        self._err = threading.Thread(target=self._read_stderr, daemon=True)
        self._out.start()
        self._err.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if not line.startswith("{"):
                continue
            event = json.loads(line)
            with self._lock:
                if event.get("name") == "producer_send_success":
                    key = (int(event["partition"]), int(event["offset"]))
                    self.acked[key] = str(event["value"]).encode()
                    self.ack_times.append(time.monotonic())
                elif event.get("name") == "producer_send_error":
                    self.errors.append(event)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def count(self) -> int:
        with self._lock:
            return len(self.acked)

    def wait_acked(self, more: int, timeout: float = 30.0) -> None:
        target = self.count() + more
        wait_until(
            lambda: self.count() >= target or self.proc.poll() is not None,
            timeout,
            what=f"{target} Java acks (errors {self.errors[-3:]})",
        )
        assert self.count() >= target, f"producer exited at {self.count()} acks: {self.stderr}"

    def wait(self, timeout: float = 60.0) -> int:
        code = self.proc.wait(timeout)
        self._out.join(10)
        self._err.join(10)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._out.join(10)
        self._err.join(10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


class JavaConsumer:
    """Kafka's console consumer assigned to partition 0 from the earliest offset, printing
    `Offset:<n>` and the value of every record."""

    def __init__(self, bootstrap: str, count: int) -> None:
        self.proc = subprocess.Popen(
            java_command(
                "org.apache.kafka.tools.consumer.ConsoleConsumer",
                "--bootstrap-server",
                bootstrap,
                "--topic",
                TOPIC,
                "--partition",
                "0",
                "--offset",
                "earliest",
                "--max-messages",
                str(count),
                "--timeout-ms",
                "40000",
                "--formatter-property",
                "print.offset=true",
                "--command-property",
                "request.timeout.ms=5000",
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def records(self, timeout: float = 90.0) -> tuple[int, list[tuple[int, bytes]], str]:
        out, err = self.proc.communicate(timeout=timeout)
        rows = []
        for line in out.splitlines():
            if line.startswith("Offset:"):
                offset, _, value = line.partition("\t")
                rows.append((int(offset.removeprefix("Offset:")), value.encode()))
        return self.proc.returncode, rows, err

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def _kill_leader(cluster: Cluster) -> int:
    old = cluster.leader(TOPIC)
    assert old > 0, "no leader to kill"
    cluster.brokers[old].kill()
    wait_until(lambda: cluster.leader(TOPIC) not in (old, -1), 30, what="a new leader")
    return old


def test_java_producer_and_consumer_follow_leader_kills(cluster: Cluster, tmp_path: Path) -> None:
    cluster.create_topic(TOPIC, 1, 3, **{"min.insync.replicas": "2"})
    producer = JavaProducer(cluster.bootstrap, tmp_path / "producer.properties")
    consumer = JavaConsumer(cluster.bootstrap, RECORDS)
    try:
        producer.wait_acked(200)
        for round_ in range(2):
            before = producer.count()
            old = _kill_leader(cluster)
            new_leader_at = time.monotonic()
            # The producer carries on against the new leader on its own.
            producer.wait_acked(150)
            assert producer.ack_times[-1] > new_leader_at
            print(f"kill {round_ + 1}: broker {old}, acks {before} -> {producer.count()}")
            cluster.brokers[old].start()
            cluster.brokers[old].wait_ready()
            cluster.wait_for_isr(TOPIC, 0, [1, 2, 3], timeout=30)
            producer.wait_acked(100)
        code = producer.wait(60)
        assert code == 0, producer.stderr[-3000:]
        assert not producer.errors, f"{len(producer.errors)} send errors: {producer.errors[:3]}"
        assert len(producer.acked) == RECORDS
        consumed_code, consumed, consumer_err = consumer.records()
    finally:
        producer.kill()
        consumer.kill()

    check_no_loss(producer.acked, read(cluster.live_bootstrap(), TOPIC, 1))
    # The console consumer read across both kills: every offset from 0, no gap or repeat,
    # each with the value the producer was told was stored there.
    assert consumed_code == 0, consumer_err[-3000:]
    check_continuous({0: consumed}, producer.acked)
    assert len(consumed) == RECORDS
    assert {(0, o): v for o, v in consumed} == producer.acked
    wait_until(
        lambda: (r := cluster.verify_replicas(TOPIC)).returncode == 0 and r,
        timeout=30,
        what="identical replicas",
    )
