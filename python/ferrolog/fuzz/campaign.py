"""A fuzzing campaign against one broker: rounds of generated and mutated requests, and the
checks between rounds.

Each fuzzed frame is followed on the same connection by an ApiVersions v0 "ping": a broker
answers a connection's requests in order, so the ping's answer bounds the wait for the
fuzzed one (which may have none: a Produce with acks=0, or a closed connection). What breaks
a rule is a finding:

- `bad-response`: an answer that does not decode as the response of the request's API and
  version, or that carries another correlation id;
- `broker-down`: the broker stops answering a fresh connection's ApiVersions and Metadata,
  or its process is gone;
- `broker-log`: the broker's log (when the campaign is given it) shows a panic, a Python
  traceback or an error-level line;
- `canary`: a record of the canary topic, produced with acks=all between rounds, is refused,
  missing, duplicated or out of order at the end;
- `log`: at the end, a batch of the campaign's topics (read from the leaders as Kafka's
  debugging consumer reads them) has a bad CRC or does not start where the one before it
  ended: a partial or torn append.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import crc32c

from ferrolog.client.connection import Connection
from ferrolog.fuzz.batches import CRC_START
from ferrolog.fuzz.mutate import mutate
from ferrolog.fuzz.values import BodyMaker, Names
from ferrolog.protocol import (
    API_NAMES,
    SCHEMA_VERSIONS,
    ProtocolError,
    decode_request_header,
    decode_response,
    encode_request,
)
from ferrolog.protocol.messages import ApiKey, Apis, ApiVersionsRequest, MetadataRequest

CLIENT_ID = "ferrolog-fuzz"
# The bodies of the health checks: ApiVersions v0 has no fields; Metadata of every topic.
NO_FIELDS: ApiVersionsRequest = {}
EVERY_TOPIC: MetadataRequest = {"topics": None}
# How long one fuzzed request and its ping may take before the broker is checked on a fresh
# connection (a request may legitimately wait: a long poll, a join, acks=all).
ANSWER_TIMEOUT_S = 10.0
BROKER_LOG_ALARMS = re.compile(r"panicked at|Traceback \(most recent call last\)|level=error")


@dataclass
class Finding:
    kind: str
    detail: str
    api: str = ""
    api_version: int = -1
    frame_hex: str = ""
    request: int = 0  # how many requests the campaign had sent (this one included)


@dataclass
class Report:
    seed: int
    requests: int = 0
    mutated: int = 0
    answered: int = 0
    closed: int = 0
    slow: int = 0
    rounds: int = 0
    canary_records: int = 0
    batches_checked: int = 0
    # API name: [sent, answered, connection closed]
    per_api: dict[str, list[int]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    def summary(self) -> str:
        lines = [
            f"seed {self.seed}: {self.requests} requests in {self.rounds} rounds "
            f"({self.mutated} mutated): {self.answered} answered, {self.closed} connections "
            f"closed, {self.slow} slow; {len(self.per_api)} APIs; "
            f"{self.canary_records} canary records and {self.batches_checked} batches checked",
            f"findings: {len(self.findings)}",
        ]
        lines += [f"  {f.kind} {f.api} v{f.api_version}: {f.detail}" for f in self.findings]
        return "\n".join(lines)


class Campaign:
    def __init__(
        self,
        bootstrap: str,
        seed: int,
        *,
        mutate_share: float = 0.5,
        broker_log: Path | None = None,
        process_alive: Callable[[], bool] | None = None,
        out_dir: Path | None = None,
    ) -> None:
        host, _, port = bootstrap.rpartition(":")
        self.host, self.port = host, int(port)
        self.bootstrap = bootstrap
        self.rng = random.Random(seed)
        self.names = Names(self.rng)
        self.bodies = BodyMaker(self.rng, self.names)
        self.mutate_share = mutate_share
        self.broker_log = broker_log
        self._log_pos = broker_log.stat().st_size if broker_log and broker_log.exists() else 0
        self.process_alive = process_alive
        self.out_dir = out_dir
        self.report = Report(seed)
        self.canary_topic = f"ferrolog-fuzz-canary-{seed}"
        self._canary_sent: list[bytes] = []
        self._conn: Connection | None = None
        self._apis: dict[int, tuple[int, int]] = {}

    # The campaign

    def run(self, rounds: int, per_round: int) -> Report:
        self._apis = self._advertised()
        self._create_topics()
        producer = self._canary_producer()
        try:
            for _ in range(rounds):
                for _ in range(per_round):
                    if not self._fuzz_one():
                        return self._finish(producer, check_canary=False)
                self.report.rounds += 1
                if not self._healthy() or not self._produce_canary(producer):
                    return self._finish(producer, check_canary=False)
            return self._finish(producer, check_canary=True)
        finally:
            if self._conn is not None:
                self._conn.close()

    def _finish(self, producer: Any, check_canary: bool) -> Report:
        producer.flush(10)
        if check_canary:
            self._check_canary()
            self._check_logs()
        if self.out_dir is not None:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            (self.out_dir / "report.json").write_text(json.dumps(asdict(self.report), indent=1))
        return self.report

    def _fuzz_one(self) -> bool:
        """Sends one generated (perhaps mutated) request; False once the broker is down."""
        rng = self.rng
        api_key = rng.choice(sorted(self._apis))
        low, high = self._apis[api_key]
        version = rng.randint(low, high)
        try:
            conn = self._connection()
        except OSError:
            return self._healthy(quick=True)  # a refused connection: down, or just busy
        correlation = conn.next_correlation()
        frame = encode_request(
            api_key, version, correlation, CLIENT_ID, self.bodies.body(api_key, version)
        )
        mutated = rng.random() < self.mutate_share
        if mutated:
            frame = mutate(frame, rng, rounds=rng.choice([1, 1, 2, 4]))
            self.report.mutated += 1
        name = API_NAMES.get(api_key, str(api_key))
        self.report.requests += 1
        counts = self.report.per_api.setdefault(name, [0, 0, 0])
        counts[0] += 1
        size = None
        if mutated and rng.random() < 0.05:
            size = rng.choice([-1, 0, len(frame) + 1, 2**31 - 1, 200 * 1024 * 1024])
        try:
            outcome = self._exchange(conn, frame, size)
        except (OSError, ProtocolError) as exc:
            outcome = f"closed: {exc}"
        self._scan_log(api_key, version, frame)
        if outcome is None:
            self.report.answered += 1
            counts[1] += 1
            return True
        self._drop_connection()
        if outcome.startswith("closed"):
            self.report.closed += 1
            counts[2] += 1
            return True
        if outcome == "slow":
            self.report.slow += 1
            if self._healthy(quick=True):
                return True
            self._found("broker-down", "no answer after a request", api_key, version, frame)
            return False
        self._found("bad-response", outcome, api_key, version, frame)
        return True

    def _exchange(self, conn: Connection, frame: bytes, size: int | None) -> str | None:
        """Sends `frame` and a ping; None when everything read back is right, else what was
        wrong ("closed: ...", "slow", or a bad response)."""
        ping = conn.next_correlation()
        if frame[4:8] == ping.to_bytes(4, "big", signed=True):
            # A mutation gave the fuzzed frame the ping's correlation id: its answer would be
            # taken for the ping's, and the ping's for the next request's.
            ping = conn.next_correlation()
        conn.send_frame(frame, size)
        if size is not None:
            return "closed: bad framing sent"  # the broker's framing check, not the ping, matters
        conn.send_frame(encode_request(ApiKey.API_VERSIONS, 0, ping, CLIENT_ID, {}))
        deadline = time.monotonic() + ANSWER_TIMEOUT_S
        while True:
            conn.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                answer = conn.read_frame()
            except TimeoutError:
                return "slow"
            except OSError as exc:
                return f"closed: {exc}"
            try:
                correlation = int.from_bytes(answer[:4], "big", signed=True)
            except ValueError:
                return "a response shorter than its header"
            if correlation == ping:
                return None
            problem = _check_response(frame, answer)
            if problem is not None:
                return problem

    # Checks between rounds

    def _healthy(self, quick: bool = False) -> bool:
        if self.process_alive is not None and not self.process_alive():
            self._found("broker-down", "the broker process exited")
            return False
        try:
            with Connection(self.host, self.port, 10.0, CLIENT_ID) as fresh:
                fresh.request(Apis.API_VERSIONS, 0, NO_FIELDS)
                fresh.request(Apis.METADATA, 1, EVERY_TOPIC)
        except (OSError, ProtocolError) as exc:
            self._found("broker-down", f"a fresh connection failed: {exc!r}")
            return False
        if not quick:
            self._scan_log()
        return True

    def _scan_log(self, api_key: int = -1, version: int = -1, frame: bytes = b"") -> None:
        """Reports alarming lines the broker logged since the last scan (after a request:
        most likely its doing, so the finding carries its frame)."""
        if self.broker_log is None or not self.broker_log.exists():
            return
        with self.broker_log.open("rb") as f:
            f.seek(self._log_pos)
            text = f.read().decode("utf-8", "replace")
            self._log_pos = f.tell()
        for line in text.splitlines():
            if BROKER_LOG_ALARMS.search(line):
                self._found("broker-log", line[:4000], api_key, version, frame)

    def _produce_canary(self, producer: Any) -> bool:
        value = f"canary-{len(self._canary_sent)}".encode()
        errors: list[str] = []
        producer.produce(
            self.canary_topic,
            value,
            on_delivery=lambda err, _msg: errors.append(str(err)) if err else None,
        )
        if producer.flush(30) != 0 or errors:
            self._found("canary", f"a canary record was not acknowledged: {errors or 'timeout'}")
            return False
        self._canary_sent.append(value)
        return True

    def _check_canary(self) -> None:
        from confluent_kafka import Consumer, TopicPartition

        consumer = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                "group.id": f"ferrolog-fuzz-check-{self.report.seed}",
                "enable.auto.commit": False,
                "check.crcs": True,
            }
        )
        got: list[tuple[int | None, bytes | None]] = []
        try:
            consumer.assign([TopicPartition(self.canary_topic, 0, 0)])
            deadline = time.monotonic() + 30
            while len(got) < len(self._canary_sent) and time.monotonic() < deadline:
                message = consumer.poll(0.5)
                if message is None or message.error():
                    continue
                got.append((message.offset(), message.value()))
        finally:
            consumer.close()
        self.report.canary_records = len(got)
        offsets = [offset for offset, _ in got]
        if [value for _, value in got] != self._canary_sent:
            self._found("canary", f"read back {len(got)} of {len(self._canary_sent)} records")
        elif offsets != list(range(len(offsets))):
            self._found("canary", f"offsets not 0, 1, 2, ...: {offsets[:20]}")

    def _check_logs(self) -> None:
        from confluent_kafka.admin import AdminClient

        from ferrolog.replicas import batch_end, read_replica

        md = AdminClient({"bootstrap.servers": self.bootstrap}).list_topics(timeout=30)
        brokers = {b.id: (str(b.host), int(b.port)) for b in md.brokers.values()}
        for name in [self.canary_topic, self.names.data_topic, *self.names.topics]:
            topic = md.topics.get(name)
            if topic is None or topic.error is not None:
                continue  # never created, or deleted by a fuzzed request
            for index, p in sorted(topic.partitions.items()):
                host, port = brokers[p.leader]
                replica = read_replica(host, port, p.leader, name, index, None, 30.0)
                if replica.error is not None:
                    self._found("log", f"{name}-{index}: {replica.error}")
                    continue
                expected = None
                for base, batch in replica.batches:
                    if crc32c.crc32c(batch[CRC_START:]) != int.from_bytes(batch[17:21], "big"):
                        self._found("log", f"{name}-{index}: bad CRC in the batch at {base}")
                        break
                    if expected is not None and base != expected:
                        self._found("log", f"{name}-{index}: batch at {base} after {expected}")
                        break
                    expected = batch_end(batch)
                self.report.batches_checked += len(replica.batches)

    # Plumbing

    def _advertised(self) -> dict[int, tuple[int, int]]:
        with Connection(self.host, self.port, 10.0, CLIENT_ID) as conn:
            response = conn.request(Apis.API_VERSIONS, 0, NO_FIELDS)
        apis = {}
        for entry in response["api_keys"]:
            key = entry["api_key"]
            if key not in SCHEMA_VERSIONS:
                continue  # an API this codec has no schema of: nothing to build it from
            known_low, known_high = SCHEMA_VERSIONS[key]
            low, high = max(entry["min_version"], known_low), min(entry["max_version"], known_high)
            if low <= high:
                apis[key] = (low, high)
        return apis

    def _create_topics(self) -> None:
        from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        wanted = [NewTopic(self.canary_topic, 1), NewTopic(self.names.data_topic, 3)] + [
            NewTopic(topic, partitions)
            for topic, partitions in zip(self.names.topics[:2], (3, 1), strict=True)
        ]
        for future in admin.create_topics(wanted).values():
            try:
                future.result(30)
            except Exception as exc:
                if "TOPIC_ALREADY_EXISTS" not in str(exc):
                    raise

    def _canary_producer(self) -> Any:
        from confluent_kafka import Producer

        return Producer(
            {
                "bootstrap.servers": self.bootstrap,
                "client.id": f"{CLIENT_ID}-canary",
                "acks": "all",
                "enable.idempotence": True,
                "linger.ms": 0,
            }
        )

    def _connection(self) -> Connection:
        if self._conn is None:
            self._conn = Connection(self.host, self.port, ANSWER_TIMEOUT_S, CLIENT_ID)
        return self._conn

    def _drop_connection(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _found(
        self, kind: str, detail: str, api_key: int = -1, version: int = -1, frame: bytes = b""
    ) -> None:
        name = API_NAMES.get(api_key, "")
        finding = Finding(kind, detail, name, version, frame.hex(), self.report.requests)
        self.report.findings.append(finding)
        if self.out_dir is not None:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            with (self.out_dir / "findings.jsonl").open("a") as out:
                out.write(json.dumps(asdict(finding)) + "\n")


def pid_alive(pid: int) -> Callable[[], bool]:
    """Whether process `pid` still runs (a zombie, dead but not reaped, does not)."""

    def alive() -> bool:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return False
        return "\nState:\tZ" not in status

    return alive


def _check_response(request: bytes, answer: bytes) -> str | None:
    """What is wrong with `answer` to the (perhaps mutated) request frame, or None."""
    try:
        header, _ = decode_request_header(request)
    except ProtocolError:
        return None  # not a request this codec can read: nothing to hold the answer to
    key, version = header.api_key, header.api_version
    low_high = SCHEMA_VERSIONS.get(key)
    if low_high is None or not low_high[0] <= version <= low_high[1]:
        if key == ApiKey.API_VERSIONS:
            version = 0  # an unknown ApiVersions version is answered as v0
        else:
            return None  # unknown to this codec (the broker should have closed: see below)
    correlation = int.from_bytes(answer[:4], "big", signed=True)
    if correlation != header.correlation_id:
        return (
            f"correlation id {correlation}, expected {header.correlation_id}: {answer[:48].hex()}"
        )
    try:
        correlation, _ = decode_response(key, version, answer)
    except ProtocolError as exc:
        if key == ApiKey.API_VERSIONS:
            try:
                correlation, _ = decode_response(key, 0, answer)
            except ProtocolError:
                return f"an undecodable ApiVersions answer: {exc}: {answer[:64].hex()}"
        else:
            return f"an undecodable answer: {exc}: {answer[:64].hex()}"
    return None
