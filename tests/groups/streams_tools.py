"""What the streams group tests drive a broker with: Kafka Streams 4.4 word-count instances
(`StreamsWordCount.java`), lines produced to their input, the committed counts read from their
output, Kafka 4.4's `kafka-streams-groups` tool, and the broker settings for streams groups
(KIP-1071)."""

from __future__ import annotations

import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.client.connection import Connection
from ferrolog.protocol.messages import Apis

from bench.harness import kafka_dist
from tests.cluster.harness import java_command

WORD_COUNT = Path(__file__).with_name("StreamsWordCount.java")
UPGRADE = 1
STREAMS_SETTINGS = {
    "group.initial.rebalance.delay.ms": "0",
    "offsets.topic.num.partitions": "4",
    "transaction.state.log.num.partitions": "4",
    "group.streams.initial.rebalance.delay.ms": "0",
    # A SIGKILLed member keeps its tasks until its session expires: Kafka's 45 s (also the
    # minimum a group may ask for) would outlast a test.
    "group.streams.min.session.timeout.ms": "1000",
    "group.streams.session.timeout.ms": "3000",
    "group.streams.min.heartbeat.interval.ms": "100",
    "group.streams.heartbeat.interval.ms": "300",
}
# Kafka Streams' properties for the classic protocol's consumers: Kafka's minimum session
# (group.min.session.timeout.ms) rather than 45 s, for the same reason.
CLASSIC_FAST = ("consumer.session.timeout.ms=6000", "consumer.heartbeat.interval.ms=500")
# The app's own log (Kafka's clients and Streams) on stderr, warnings and errors only.
_LOG4J2 = """appender.e.type=Console
appender.e.name=E
appender.e.target=SYSTEM_ERR
appender.e.layout.type=PatternLayout
appender.e.layout.pattern=[%d] %p %m (%c)%n
rootLogger.level=WARN
rootLogger.appenderRef.e.ref=E
"""


def connect(bootstrap: str) -> Connection:
    host, _, port = bootstrap.rpartition(":")
    return Connection(host, int(port), 30, "streams-test")


def finalize_streams_version(bootstrap: str) -> dict[str, Any]:
    """UpdateFeatures v1 upgrading streams.version to 1 (KIP-1071's streams groups), as
    `kafka-features upgrade --feature streams.version=1` does; the decoded answer."""
    body: dict[str, Any] = {
        "timeout_ms": 30000,
        "feature_updates": [
            {"feature": "streams.version", "max_version_level": 1, "upgrade_type": UPGRADE}
        ],
        "validate_only": False,
    }
    with connect(bootstrap) as conn:
        return conn.request(Apis.UPDATE_FEATURES.key, 1, body)


def ongoing_transactions(conn: Connection) -> set[str]:
    """The transactional ids whose transaction is open (ListTransactions, state Ongoing)."""
    body: dict[str, Any] = {"state_filters": ["Ongoing"], "producer_id_filters": []}
    answer = conn.request(Apis.LIST_TRANSACTIONS.key, 0, body)
    assert answer["error_code"] == 0, answer
    return {t["transactional_id"] for t in answer["transaction_states"]}


def new_topic(bootstrap: str, partitions: int) -> str:
    name = f"streams-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(30)
    return name


def produce_lines(bootstrap: str, topic: str, lines: list[str]) -> None:
    """`lines` as values without keys (spread over the partitions), all acknowledged."""
    Feed(bootstrap, topic, lines, 0).run()


class Feed:
    """`lines` produced as `produce_lines` does, spread evenly over `seconds` by a thread of
    its own (`start`): a steady feed, so that the instances keep opening transactions while a
    test kills one."""

    def __init__(self, bootstrap: str, topic: str, lines: list[str], seconds: float) -> None:
        self.bootstrap, self.topic, self.lines, self.seconds = bootstrap, topic, lines, seconds
        self._thread = threading.Thread(target=self._guarded, daemon=True)
        self._error: BaseException | None = None

    def start(self) -> Feed:
        self._thread.start()
        return self

    def run(self) -> None:
        # Each line to a random partition (not librdkafka's 10 ms on one): every instance gets
        # some of every chunk.
        producer = Producer(
            {
                "bootstrap.servers": self.bootstrap,
                "linger.ms": 5,
                "sticky.partitioning.linger.ms": 0,
            }
        )
        start = time.monotonic()
        for i in range(0, len(self.lines), 10):
            # Pacing, not waiting for anything: line i is due at its share of `seconds`.
            time.sleep(max(0.0, start + self.seconds * i / len(self.lines) - time.monotonic()))
            for line in self.lines[i : i + 10]:
                producer.produce(self.topic, line.encode())
            producer.poll(0)
        assert producer.flush(30) == 0

    def _guarded(self) -> None:
        try:
            self.run()
        except BaseException as e:  # re-raised by join
            self._error = e

    def join(self, timeout: float = 60) -> None:
        """Until every line is acknowledged; the feed's error, if any, raised here."""
        self._thread.join(timeout)
        assert not self._thread.is_alive(), f"still feeding after {timeout} s"
        if self._error is not None:
            raise self._error


class App:
    """One StreamsWordCount process, its stdout lines (the state changes) read as they come
    and its stderr kept in a file."""

    def __init__(
        self,
        bootstrap: str,
        application_id: str,
        input_topic: str,
        output_topic: str,
        state_dir: Path,
        *properties: str,
    ) -> None:
        """`properties`: the app's Streams properties as `key=value`. Each start is a new
        Streams process (process id, transactional ids), even on a dead one's `state_dir`:
        Streams keeps its process id there only for an app with persistent stores."""
        self.command = [
            "java", "-Xmx256M", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            f"-Dlog4j2.configurationFile={_log_config()}",
            "-cp", kafka_dist.streams_classpath(), str(WORD_COUNT),
            bootstrap, application_id, input_topic, output_topic, str(state_dir), *properties,
        ]  # fmt: skip
        self.proc: subprocess.Popen[str] | None = None
        self.states: list[str] = []
        # Streams' process id, once printed: the middle of the app's transactional ids.
        self.process = ""
        self._running = threading.Event()
        self._reader: threading.Thread | None = None
        # A pipe nobody reads could fill and stall the app.
        self.log = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed by kill or finish)

    def start(self) -> App:
        self.proc = subprocess.Popen(
            self.command, stdout=subprocess.PIPE, stderr=self.log, text=True
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        return self

    def _read(self) -> None:
        assert self.proc is not None
        assert self.proc.stdout is not None
        with self.proc.stdout:
            for line in self.proc.stdout:
                if line.startswith("PROCESS "):
                    self.process = line.split()[1]
                elif line.startswith("STATE "):
                    self.states.append(line.split()[1])
                elif line.strip() == "RUNNING":
                    self._running.set()

    def wait_running(self, timeout: float = 60) -> None:
        """Until the app's state has been RUNNING once (and it printed its process id); fails
        at once if it exits."""
        deadline = time.monotonic() + timeout
        while not (self._running.wait(0.1) and self.process):
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"the app exited {self.proc.returncode}:\n{self.stderr()}")
            assert time.monotonic() < deadline, f"not RUNNING after {timeout} s: {self.states}"

    def stderr(self, tail: int = 4000) -> str:
        self.log.seek(0)
        return self.log.read()[-tail:]

    def kill(self, sig: signal.Signals = signal.SIGKILL) -> int:
        """Sends `sig` and waits for the process to end; its exit code."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(45)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        if self._reader is not None:
            self._reader.join(10)
        return code

    def finish(self) -> None:
        """Stops the app cleanly (SIGTERM: KafkaStreams.close leaving the group) and checks
        that it exited 0 and never died on its own before."""
        code = self.kill(signal.SIGTERM)
        with self.log:
            assert code == 0, f"the app exited {code}:\n{self.stderr()}"

    def close(self) -> None:
        """Kills the app if it still runs (a failed test's cleanup)."""
        if self.proc is not None and self.proc.poll() is None:
            self.kill()
        self.log.close()


def _log_config() -> Path:
    path = Path(tempfile.gettempdir()) / "ferrolog-streams-log4j2.properties"
    if not path.exists() or path.read_text() != _LOG4J2:
        path.write_text(_LOG4J2)
    return path


class Counts:
    """The output topic read from its start with a read_committed consumer (no group): every
    committed count per word, in order."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        self.consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"reader-{uuid.uuid4().hex[:8]}",
                "isolation.level": "read_committed",
                "enable.auto.commit": False,
            }
        )
        self.consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        self.seen: dict[str, list[int]] = {}

    def poll(self, timeout: float = 0.2) -> None:
        for message in self.consumer.consume(1000, timeout):
            assert message.error() is None, message.error()
            word = message.key().decode()
            self.seen.setdefault(word, []).append(int.from_bytes(message.value(), "big"))

    def latest(self) -> dict[str, int]:
        return {word: values[-1] for word, values in self.seen.items()}

    def wait_until(
        self, done: Callable[[dict[str, int]], bool], timeout: float, what: str
    ) -> dict[str, int]:
        """Reads until `done(latest counts)` holds; the latest counts."""
        deadline = time.monotonic() + timeout
        while not done(self.latest()):
            assert time.monotonic() < deadline, f"waited {timeout} s for {what}: {self.latest()}"
            self.poll()
        return self.latest()

    def close(self) -> None:
        self.consumer.close()


def kafka_streams_groups(bootstrap: str, *args: str) -> str:
    """Kafka 4.4's `kafka-streams-groups` (StreamsGroupCommand): its standard output, each run
    of blanks as one space."""
    done = subprocess.run(
        java_command(
            "org.apache.kafka.tools.streams.StreamsGroupCommand",
            "--bootstrap-server",
            bootstrap,
            *args,
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return "\n".join(" ".join(line.split()) for line in done.stdout.strip().splitlines())
