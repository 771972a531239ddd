"""The dispatcher's rules on a fake control queue, and a live broker (the embedded broker)
answering real clients: metadata, ApiVersions, and bad requests over a raw socket."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import struct
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from ferrolog.config import BrokerConfig
from ferrolog.dispatcher import Dispatcher
from ferrolog.embedded import READY_PREFIX, EmbeddedBroker
from ferrolog.handlers import Handler
from ferrolog.handlers.context import BrokerServices, RequestContext
from ferrolog.protocol import decode_response, encode_request

from tests.waiting import wait_until

API_VERSIONS, METADATA, CREATE_TOPICS, DELETE_RECORDS = 18, 3, 19, 21


@dataclass
class FakeRequest:
    handle: int
    api_key: int
    api_version: int
    correlation_id: int
    frame: bytes
    peer: str = "127.0.0.1:5555"
    listener_name: str = "PLAINTEXT"
    principal: str = "User:ANONYMOUS"
    token_authenticated: bool = False
    connection_id: int = 1
    sasl_phase: str = "done"


@dataclass
class FakeQueue:
    """The native control queue: a pipe stands in for the eventfd."""

    pending: list[FakeRequest] = field(default_factory=list)
    responses: dict[int, bytes] = field(default_factory=dict)
    answered_at: dict[int, float] = field(default_factory=dict)
    closed: set[int] = field(default_factory=set)
    errors: Counter[tuple[int, int]] = field(default_factory=Counter)
    refusals: list[tuple[int, str | None, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)

    def push(self, request: FakeRequest) -> None:
        self.pending.append(request)
        os.write(self.write_fd, b"x")

    def wakeup_fd(self) -> int:
        return self.read_fd

    def take_requests(self, max_requests: int = 256) -> list[Any]:
        taken, self.pending = self.pending[:max_requests], self.pending[max_requests:]
        if not taken:
            with contextlib.suppress(BlockingIOError):
                os.read(self.read_fd, 4096)
        return taken

    def respond(self, handle: int, response: bytes, throttle_ms: int = 0) -> None:
        self.responses[handle] = response
        self.answered_at[handle] = time.monotonic()

    def record_request_time(
        self, client_id: str | None, busy_ns: int, principal: str = "User:ANONYMOUS"
    ) -> int:
        return 0  # no request quota configured

    def settled(self, requests: list[FakeRequest]) -> bool:
        """Whether every request has been answered or its connection closed."""
        return all(r.handle in self.responses or r.handle in self.closed for r in requests)

    def close_connection(self, handle: int) -> None:
        self.closed.add(handle)

    def answered(
        self, api_key: int, version: int, client_id: str | None, peer: str,
        codes: list[tuple[int, int]],
    ) -> None:  # fmt: skip
        for code, count in codes:
            self.errors[api_key, code] += count

    def refused(
        self, api_key: int, version: int, client_id: str | None, peer: str, reason: str
    ) -> None:
        self.refusals.append((api_key, client_id, reason))


def request(handle: int, key: int, version: int, body: dict[str, Any]) -> FakeRequest:
    frame = encode_request(key, version, handle, "test", body)
    return FakeRequest(handle, key, version, handle, frame)


async def echo_metadata(ctx: RequestContext, req: dict[str, Any]) -> dict[str, Any]:
    return {"brokers": [], "cluster_id": "c", "controller_id": 1, "topics": []}


async def slow_create(ctx: RequestContext, req: dict[str, Any]) -> dict[str, Any]:
    # A handler that takes time on purpose: others must be answered meanwhile.
    await asyncio.sleep(0.5)
    return {"topics": []}


async def broken(ctx: RequestContext, req: dict[str, Any]) -> dict[str, Any]:
    raise RuntimeError("a bug")


async def api_versions(ctx: RequestContext, req: dict[str, Any]) -> dict[str, Any]:
    return {"api_keys": []}


async def delete_records(ctx: RequestContext, req: dict[str, Any]) -> dict[str, Any]:
    partitions = [
        {"partition_index": i, "low_watermark": -1, "error_code": code}
        for i, code in enumerate([0, 3, 3])
    ]
    return {"throttle_time_ms": 0, "topics": [{"name": "t", "partitions": partitions}]}


HANDLERS = {
    METADATA: Handler(METADATA, echo_metadata, 0, 12, "metadata"),
    DELETE_RECORDS: Handler(DELETE_RECORDS, delete_records, 0, 2, "delete_records"),
    CREATE_TOPICS: Handler(CREATE_TOPICS, slow_create, 2, 7, "create_topics"),
    API_VERSIONS: Handler(API_VERSIONS, api_versions, 0, 4, "api_versions"),
    20: Handler(20, broken, 1, 6, "delete_topics"),
}
VERSIONS = {
    METADATA: (0, 12),
    CREATE_TOPICS: (2, 7),
    API_VERSIONS: (0, 4),
    20: (1, 6),
    DELETE_RECORDS: (0, 2),
}


def run_dispatcher(requests: list[FakeRequest]) -> FakeQueue:
    queue = FakeQueue()

    async def main() -> None:
        services = BrokerServices(0, "c", "h", 1, BrokerConfig(), None, None, None)  # type: ignore[arg-type]
        dispatcher = Dispatcher(queue, services, HANDLERS, VERSIONS)
        dispatcher.start()
        for r in requests:
            queue.push(r)
        # In a thread: the dispatcher answers on this loop meanwhile.
        await asyncio.to_thread(wait_until, lambda: queue.settled(requests), 10, 0.01)
        await dispatcher.stop()

    asyncio.run(main())
    return queue


def test_good_request_is_answered() -> None:
    queue = run_dispatcher([request(1, METADATA, 12, {"topics": None})])
    correlation, body = decode_response(METADATA, 12, queue.responses[1])
    assert correlation == 1
    assert body["controller_id"] == 1
    assert not queue.closed


def test_answered_error_codes_are_counted() -> None:
    body = {"topics": [{"name": "t", "partitions": [{"partition_index": 0, "offset": 0}]}],
            "timeout_ms": 1000}  # fmt: skip
    queue = run_dispatcher([request(1, DELETE_RECORDS, 2, body)])
    assert 1 in queue.responses
    # Every error code at any depth, NONE included, as Kafka's errorCounts.
    assert queue.errors == {(DELETE_RECORDS, 0): 1, (DELETE_RECORDS, 3): 2}


def test_unknown_api_key_closes_the_connection() -> None:
    unknown = FakeRequest(1, 9999, 0, 1, b"\x27\x0f\x00\x00\x00\x00\x00\x01\xff\xff")
    queue = run_dispatcher([unknown])
    assert queue.closed == {1}
    assert not queue.responses
    assert queue.refusals == [(9999, None, "unknown API key")]


def test_unadvertised_version_closes_the_connection() -> None:
    # CreateTopics v1 (Kafka 4.0 dropped v0-1): no topics, timeout, validate_only.
    frame = struct.pack(">hhih", CREATE_TOPICS, 1, 1, 4) + b"test" + struct.pack(">iib", 0, 1, 0)
    queue = run_dispatcher([FakeRequest(1, CREATE_TOPICS, 1, 1, frame)])
    assert queue.closed == {1}


def test_unknown_api_versions_version_gets_a_v0_answer() -> None:
    frame = struct.pack(">hhih", API_VERSIONS, 99, 7, -1) + b"\x00garbage"
    queue = run_dispatcher([FakeRequest(1, API_VERSIONS, 99, 7, frame)])
    correlation, body = decode_response(API_VERSIONS, 0, queue.responses[1])
    assert correlation == 7
    assert body["error_code"] == 35
    listed = {k["api_key"]: (k["min_version"], k["max_version"]) for k in body["api_keys"]}
    assert listed == VERSIONS


def test_malformed_body_closes_the_connection() -> None:
    good = request(1, METADATA, 1, {"topics": [{"name": "t"}]})
    queue = run_dispatcher([FakeRequest(1, METADATA, 1, 1, good.frame[:-3])])
    assert queue.closed == {1}
    [(key, client_id, reason)] = queue.refusals
    assert (key, client_id) == (METADATA, "test")
    assert reason.startswith("malformed request")


def test_handler_exception_closes_the_connection(caplog: pytest.LogCaptureFixture) -> None:
    queue = run_dispatcher([request(1, 20, 4, {"topic_names": ["x"], "timeout_ms": 1})])
    assert queue.closed == {1}
    assert "a bug" in caplog.text


def test_slow_handler_does_not_block_other_connections() -> None:
    requests = [
        request(1, CREATE_TOPICS, 7, {"topics": [], "timeout_ms": 1}),
        request(2, METADATA, 12, {"topics": None}),
    ]
    answered_at = run_dispatcher(requests).answered_at
    assert answered_at[2] < answered_at[1]


@pytest.mark.parametrize("fmt", ["kv", "json"])
def test_structured_log_lines(fmt: str) -> None:
    import io
    import json
    import logging

    from ferrolog.logs import setup_logging

    stream = io.StringIO()
    handler = setup_logging("INFO", fmt, stream)
    try:
        logging.getLogger("ferrolog.test").info("created topic topic=%s", "t")
        logging.getLogger("ferrolog.test").debug("not shown")
        try:
            raise ValueError("boom")
        except ValueError:
            logging.getLogger("ferrolog.test").exception("failed")
    finally:
        logging.getLogger().removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    if fmt == "json":
        first, second = (json.loads(line) for line in lines)
        assert (first["level"], first["msg"]) == ("info", "created topic topic=t")
        assert "ValueError: boom" in second["exc"]
    else:
        assert lines[0].startswith("ts=")
        assert 'level=info logger=ferrolog.test msg="created topic topic=t"' in lines[0]
        assert "ValueError: boom" in lines[1]


# A live broker


def raw_exchange(bootstrap: str, frame: bytes, timeout: float = 10) -> bytes | None:
    """Sends one size-prefixed frame; returns the response frame, or None if the broker
    closed the connection. `timeout` bounds each socket operation: an acks=all produce may
    wait far longer than a plain request."""
    host, _, port = bootstrap.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(struct.pack(">i", len(frame)) + frame)
        header = _recv_exactly(sock, 4)
        if header is None:
            return None
        (size,) = struct.unpack(">i", header)
        return _recv_exactly(sock, size)


def _recv_exactly(sock: socket.socket, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        try:
            chunk = sock.recv(n - len(data))
        except ConnectionResetError:
            return None
        if not chunk:
            return None
        data += chunk
    return data


@pytest.mark.native
def test_unknown_api_key_closes_live_connection(ferrolog_broker: EmbeddedBroker) -> None:
    frame = struct.pack(">hhih", 9999, 0, 1, 4) + b"test"
    assert raw_exchange(ferrolog_broker.bootstrap_servers, frame) is None


@pytest.mark.native
def test_live_api_versions_99(ferrolog_broker: EmbeddedBroker) -> None:
    frame = struct.pack(">hhih", API_VERSIONS, 99, 42, 4) + b"test" + b"\x00\x00"
    response = raw_exchange(ferrolog_broker.bootstrap_servers, frame)
    assert response is not None
    correlation, body = decode_response(API_VERSIONS, 0, response)
    assert (correlation, body["error_code"]) == (42, 35)
    keys = {k["api_key"]: (k["min_version"], k["max_version"]) for k in body["api_keys"]}
    assert keys[API_VERSIONS] == (0, 5)
    assert keys[METADATA] == (0, 13)
    assert 0 in keys
    assert 1 in keys


@pytest.mark.native
def test_live_api_versions_v4(ferrolog_broker: EmbeddedBroker) -> None:
    body = {"client_software_name": "ferrolog-test", "client_software_version": "1.0"}
    frame = encode_request(API_VERSIONS, 4, 5, "test", body)
    response = raw_exchange(ferrolog_broker.bootstrap_servers, frame)
    assert response is not None
    correlation, decoded = decode_response(API_VERSIONS, 4, response)
    assert (correlation, decoded["error_code"]) == (5, 0)
    # A new cluster's levels (Kafka 4.4's defaults), at epoch 0.
    assert decoded["finalized_features_epoch"] == 0
    assert {
        f["name"]: (f["min_version_level"], f["max_version_level"])
        for f in decoded["finalized_features"]
    } == {
        "group.version": (1, 1),
        "transaction.version": (2, 2),
        "eligible.leader.replicas.version": (1, 1),
        "share.version": (1, 1),
        "streams.version": (1, 1),
    }


@pytest.mark.native
def test_confluent_admin_lists_metadata(ferrolog_broker: EmbeddedBroker) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": ferrolog_broker.bootstrap_servers})
    name = f"basics-{uuid.uuid4().hex[:8]}"
    admin.create_topics([NewTopic(name, num_partitions=3, replication_factor=1)])[name].result(20)
    metadata = admin.list_topics(timeout=10)
    assert metadata.controller_id == 0
    assert list(metadata.brokers) == [0]
    topic = metadata.topics[name]
    assert topic.error is None
    assert sorted(topic.partitions) == [0, 1, 2]
    assert all(p.leader == 0 and p.isrs == [0] for p in topic.partitions.values())
    assert metadata.cluster_id


@pytest.mark.native
def test_kafka_python_gets_api_versions(ferrolog_broker: EmbeddedBroker) -> None:
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=ferrolog_broker.bootstrap_servers)
    try:
        versions = {int(key): value for key, value in admin.api_versions().items()}
        assert tuple(versions[METADATA]) == (0, 13)
        assert tuple(versions[API_VERSIONS]) == (0, 5)
        assert admin.describe_cluster()["controller_id"] == 0
    finally:
        admin.close()


@pytest.mark.native
def test_metadata_auto_creates_topics(ferrolog_broker: EmbeddedBroker) -> None:
    name = f"auto-{uuid.uuid4().hex[:8]}"
    bootstrap = ferrolog_broker.bootstrap_servers
    request_body = {"topics": [{"name": name}], "allow_auto_topic_creation": True}
    first = raw_exchange(bootstrap, encode_request(METADATA, 12, 1, "t", request_body))
    assert first is not None
    _, body = decode_response(METADATA, 12, first)
    assert body["topics"][0]["error_code"] == 5  # LEADER_NOT_AVAILABLE, as Kafka answers
    second = raw_exchange(bootstrap, encode_request(METADATA, 12, 2, "t", request_body))
    assert second is not None
    _, body = decode_response(METADATA, 12, second)
    topic = body["topics"][0]
    assert topic["error_code"] == 0
    assert topic["topic_id"] != bytes(16)
    assert [p["leader_id"] for p in topic["partitions"]] == [0]

    by_id = {"topics": [{"name": None, "topic_id": topic["topic_id"]}]}
    third = raw_exchange(bootstrap, encode_request(METADATA, 12, 3, "t", by_id))
    assert third is not None
    assert decode_response(METADATA, 12, third)[1]["topics"][0]["name"] == name

    no_create = {"topics": [{"name": name + "-x"}], "allow_auto_topic_creation": False}
    fourth = raw_exchange(bootstrap, encode_request(METADATA, 12, 4, "t", no_create))
    assert fourth is not None
    assert decode_response(METADATA, 12, fourth)[1]["topics"][0]["error_code"] == 3

    invalid = {"topics": [{"name": "bad name!"}], "allow_auto_topic_creation": True}
    fifth = raw_exchange(bootstrap, encode_request(METADATA, 12, 5, "t", invalid))
    assert fifth is not None
    assert decode_response(METADATA, 12, fifth)[1]["topics"][0]["error_code"] == 17


@pytest.mark.native
def test_restart_keeps_topics_and_bumps_leader_epoch(ferrolog_broker_factory: Any) -> None:
    broker = ferrolog_broker_factory()
    name = f"restart-{uuid.uuid4().hex[:8]}"
    body = {"topics": [{"name": name}], "allow_auto_topic_creation": True}

    def describe() -> dict[str, Any]:
        response = raw_exchange(
            broker.bootstrap_servers, encode_request(METADATA, 12, 1, "t", body)
        )
        assert response is not None
        return dict(decode_response(METADATA, 12, response)[1]["topics"][0])

    describe()
    before = describe()
    broker.restart()
    after = describe()
    assert after["topic_id"] == before["topic_id"]
    assert after["partitions"][0]["leader_epoch"] == before["partitions"][0]["leader_epoch"] + 1


@pytest.mark.native
def test_embedded_in_process() -> None:
    with EmbeddedBroker(in_process=True) as broker:
        frame = encode_request(API_VERSIONS, 3, 9, "t", {
            "client_software_name": "x", "client_software_version": "1"})  # fmt: skip
        response = raw_exchange(broker.bootstrap_servers, frame)
        assert response is not None
        assert decode_response(API_VERSIONS, 3, response)[1]["error_code"] == 0


@pytest.mark.native
@pytest.mark.parametrize("version", range(13))
def test_metadata_every_version(ferrolog_broker: EmbeddedBroker, version: int) -> None:
    bootstrap = ferrolog_broker.bootstrap_servers
    name = f"v{version}-{uuid.uuid4().hex[:8]}"
    named: dict[str, Any] = {"topics": [{"name": name}], "allow_auto_topic_creation": True}
    for attempt in range(2):  # the first request creates, the second describes
        response = raw_exchange(bootstrap, encode_request(METADATA, version, attempt, "t", named))
        assert response is not None
    _, body = decode_response(METADATA, version, response)
    assert body["topics"][0]["error_code"] == 0
    assert body["brokers"][0]["node_id"] == 0
    every = {"topics": [] if version == 0 else None}
    response = raw_exchange(bootstrap, encode_request(METADATA, version, 9, "t", every))
    assert response is not None
    _, body = decode_response(METADATA, version, response)
    assert name in {t["name"] for t in body["topics"]}
    if version >= 1:
        assert body["controller_id"] == 0


@pytest.mark.native
@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
def test_broker_reads_server_properties(tmp_path: Path, stop_signal: int) -> None:
    props = tmp_path / "server.properties"
    props.write_text(
        f"listeners=PLAINTEXT://127.0.0.1:0\nlog.dirs={tmp_path / 'data'}\nnum.partitions=3\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "ferrolog", "broker", str(props)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith(READY_PREFIX)
        bootstrap = line[len(READY_PREFIX) :].strip()
        body = {"topics": [{"name": "three"}], "allow_auto_topic_creation": True}
        for attempt in range(2):
            response = raw_exchange(bootstrap, encode_request(METADATA, 9, attempt, "t", body))
            assert response is not None
        assert len(decode_response(METADATA, 9, response)[1]["topics"][0]["partitions"]) == 3
    finally:
        process.send_signal(stop_signal)
        assert process.wait(timeout=30) == 0  # a clean, controlled shutdown
        process.stdout.close()  # type: ignore[union-attr]
    assert (tmp_path / "data" / "ferrolog-metadata.json").exists()


def test_bad_config_exits_with_a_message() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ferrolog", "broker", "--override", "num.partitions=lots"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "num.partitions" in result.stderr
    assert result.stdout == ""


@pytest.mark.native
def test_given_data_dir_is_kept(tmp_path: Path) -> None:
    data = tmp_path / "kept"
    with EmbeddedBroker(data) as broker:
        body = {"topics": [{"name": "kept"}], "allow_auto_topic_creation": True}
        raw_exchange(broker.bootstrap_servers, encode_request(METADATA, 9, 1, "t", body))
    assert (data / "ferrolog-metadata.json").exists()
    with EmbeddedBroker(data, in_process=True) as again:
        response = raw_exchange(
            again.bootstrap_servers, encode_request(METADATA, 9, 1, "t", {"topics": None})
        )
        assert response is not None
        assert [t["name"] for t in decode_response(METADATA, 9, response)[1]["topics"]] == ["kept"]
