"""Bad input over raw sockets gets Kafka's error codes or a closed connection, appends
nothing, and never stops the broker from serving other clients."""

from __future__ import annotations

import os
import random
import socket
import struct
import uuid

import ferrolog_native
import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.protocol import decode_request_header, decode_response, encode_request

from tests.waiting import wait_until

PRODUCE, LIST_OFFSETS, METADATA, API_VERSIONS = 0, 2, 3, 18
CORRUPT_MESSAGE, INVALID_RECORD, UNSUPPORTED_VERSION = 2, 87, 35


def connect(bootstrap: str) -> socket.socket:
    host, port = bootstrap.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=10)
    return s


def send(s: socket.socket, payload: bytes) -> None:
    s.sendall(struct.pack(">i", len(payload)) + payload)


def recv(s: socket.socket) -> bytes | None:
    """One response frame, or None when the broker closed the connection."""

    def exactly(n: int) -> bytes | None:
        buf = b""
        while len(buf) < n:
            try:
                chunk = s.recv(n - len(buf))
            except ConnectionResetError:
                return None
            if not chunk:
                return None
            buf += chunk
        return buf

    head = exactly(4)
    if head is None:
        return None
    return exactly(struct.unpack(">i", head)[0])


def call(bootstrap: str, api_key: int, version: int, body: dict) -> dict:
    with connect(bootstrap) as s:
        send(s, encode_request(api_key, version, 7, "raw-test", body))
        frame = recv(s)
        assert frame is not None, "broker closed a well-formed request's connection"
        correlation_id, response = decode_response(api_key, version, frame)
        assert correlation_id == 7
        return response


def assert_closed(s: socket.socket) -> None:
    assert recv(s) is None


def assert_healthy(bootstrap: str) -> None:
    response = call(
        bootstrap, API_VERSIONS, 3, {"client_software_name": "t", "client_software_version": "1"}
    )
    assert response["error_code"] == 0


def produce(bootstrap: str, topic: str, records: bytes) -> dict:
    response = call(
        bootstrap,
        PRODUCE,
        7,
        {
            "transactional_id": None,
            "acks": -1,
            "timeout_ms": 5000,
            "topic_data": [{"name": topic, "partition_data": [{"index": 0, "records": records}]}],
        },
    )
    return response["responses"][0]["partition_responses"][0]


def latest_offset(bootstrap: str, topic: str) -> int:
    """The log end offset of partition 0; -1 while the partition cannot answer."""
    response = call(
        bootstrap,
        LIST_OFFSETS,
        5,
        {
            "replica_id": -1,
            "isolation_level": 0,
            "topics": [
                {
                    "name": topic,
                    "partitions": [
                        {"partition_index": 0, "current_leader_epoch": -1, "timestamp": -1}
                    ],
                }
            ],
        },
    )
    partition = response["topics"][0]["partitions"][0]
    return -1 if partition["error_code"] else int(partition["offset"])


@pytest.fixture
def topic(ferrolog_broker) -> str:  # type: ignore[no-untyped-def]
    name = f"bad-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": ferrolog_broker.bootstrap_servers})
    admin.create_topics([NewTopic(name, num_partitions=1, replication_factor=1)])[name].result(20)
    # CreateTopics is answered once the topic is recorded; its log opens just after. These
    # tests send raw requests, without a client's retries of the retriable errors meanwhile.
    bootstrap = str(ferrolog_broker.bootstrap_servers)
    wait_until(lambda: latest_offset(bootstrap, name) == 0, what=f"{name} to open")
    return name


@pytest.fixture
def bootstrap(ferrolog_broker) -> str:  # type: ignore[no-untyped-def]
    return str(ferrolog_broker.bootstrap_servers)


def good_batch(n: int = 3) -> bytearray:
    return bytearray(
        ferrolog_native.build_batch(
            [(b"k", f"v{i}".encode(), [], 1_700_000_000_000) for i in range(n)]
        )
    )


@pytest.mark.parametrize("size", [-1, -(2**31), 2**31 - 1, 200 * 1024 * 1024, 0, 3])
def test_absurd_frame_sizes_close_the_connection(bootstrap: str, size: int) -> None:
    with connect(bootstrap) as s:
        s.sendall(struct.pack(">i", size) + b"\x00" * 8)
        assert_closed(s)
    assert_healthy(bootstrap)


def test_unknown_api_key_closes_the_connection(bootstrap: str) -> None:
    with connect(bootstrap) as s:
        send(s, struct.pack(">hhi", 9999, 0, 1) + struct.pack(">h", -1))
        assert_closed(s)
    assert_healthy(bootstrap)


@pytest.mark.parametrize(
    ("api_key", "version"),
    [(METADATA, 99), (PRODUCE, 99), (1, 99), (LIST_OFFSETS, 99), (PRODUCE, 0)],
)
def test_unknown_version_closes_the_connection(bootstrap: str, api_key: int, version: int) -> None:
    with connect(bootstrap) as s:
        send(s, struct.pack(">hhi", api_key, version, 1) + struct.pack(">h", -1) + b"\x00" * 16)
        assert_closed(s)
    assert_healthy(bootstrap)


def test_api_versions_at_unknown_version_answers_v0(bootstrap: str) -> None:
    with connect(bootstrap) as s:
        send(s, struct.pack(">hhi", API_VERSIONS, 99, 5) + struct.pack(">h", -1) + b"\x00\x00")
        frame = recv(s)
    assert frame is not None
    correlation_id, response = decode_response(API_VERSIONS, 0, frame)
    assert correlation_id == 5
    assert response["error_code"] == UNSUPPORTED_VERSION
    keys = {entry["api_key"] for entry in response["api_keys"]}
    assert {PRODUCE, 1, LIST_OFFSETS, METADATA, API_VERSIONS} <= keys


def test_produce_v0_to_v2_are_advertised_but_refused(bootstrap: str, topic: str) -> None:
    """As Kafka 4.x: listed so librdkafka < 2.11.1 keeps compression on, never served."""
    response = call(
        bootstrap, API_VERSIONS, 3, {"client_software_name": "t", "client_software_version": "1"}
    )
    produce_range = next(a for a in response["api_keys"] if a["api_key"] == PRODUCE)
    assert produce_range["min_version"] == 0
    body = {
        "transactional_id": None,
        "acks": 1,
        "timeout_ms": 1000,
        "topic_data": [
            {"name": topic, "partition_data": [{"index": 0, "records": bytes(good_batch())}]}
        ],
    }
    v3 = encode_request(PRODUCE, 3, 1, "old", body)
    _, body_at = decode_request_header(v3)
    for version in (0, 1, 2):
        # The codec knows only Kafka 4.4's versions; v0-2 are v3 without its first field,
        # the null transactional id (two bytes).
        old = v3[:2] + version.to_bytes(2, "big") + v3[4:body_at] + v3[body_at + 2 :]
        with connect(bootstrap) as s:
            send(s, old)
            assert_closed(s)
    assert latest_offset(bootstrap, topic) == 0


def test_corrupted_crc_is_refused_and_appends_nothing(bootstrap: str, topic: str) -> None:
    batch = good_batch()
    batch[-1] ^= 0xFF  # a byte of the last record's value: covered by the CRC
    assert produce(bootstrap, topic, bytes(batch))["error_code"] == CORRUPT_MESSAGE
    assert latest_offset(bootstrap, topic) == 0
    assert produce(bootstrap, topic, bytes(good_batch()))["error_code"] == 0
    assert latest_offset(bootstrap, topic) == 3


@pytest.mark.parametrize("delta", [1, 100, -1, -20, 2**30])
def test_lying_length_field_is_refused(bootstrap: str, topic: str, delta: int) -> None:
    batch = good_batch()
    length = struct.unpack_from(">i", batch, 8)[0]
    struct.pack_into(">i", batch, 8, length + delta)
    error = produce(bootstrap, topic, bytes(batch))["error_code"]
    assert error in (CORRUPT_MESSAGE, INVALID_RECORD)
    assert latest_offset(bootstrap, topic) == 0


def test_truncated_frames_and_random_bytes(bootstrap: str, topic: str) -> None:
    rng = random.Random(1234)
    valid = encode_request(
        PRODUCE,
        7,
        1,
        "raw",
        {
            "transactional_id": None,
            "acks": 1,
            "timeout_ms": 1000,
            "topic_data": [
                {"name": topic, "partition_data": [{"index": 0, "records": bytes(good_batch())}]}
            ],
        },
    )
    for _ in range(30):
        with connect(bootstrap) as s:
            cut = rng.randrange(1, len(valid))
            s.sendall(struct.pack(">i", len(valid)) + valid[:cut])  # then hang up mid-frame
    for _ in range(60):
        with connect(bootstrap) as s:
            junk = os.urandom(rng.randrange(1, 200))
            try:
                send(s, junk)
                s.settimeout(2)
                recv(s)
            except (TimeoutError, OSError):
                pass
    for _ in range(60):  # valid frames with random byte flips inside
        mutated = bytearray(valid)
        for _ in range(rng.randrange(1, 5)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        with connect(bootstrap) as s:
            try:
                send(s, bytes(mutated))
                s.settimeout(5)
                recv(s)
            except (TimeoutError, OSError):
                pass
    assert_healthy(bootstrap)
    # Nothing partial was appended: whatever landed is whole batches of 3 records.
    assert latest_offset(bootstrap, topic) % 3 == 0


def test_api_versions_v5_answers_only_the_node_it_names(bootstrap: str) -> None:
    """KIP-1242: a client may name the cluster and node it means to reach; another node (or
    cluster) says REBOOTSTRAP_REQUIRED and lists no APIs; naming only one is INVALID_REQUEST."""
    meta = call(bootstrap, METADATA, 12, {"topics": [], "allow_auto_topic_creation": False})
    cluster, node = meta["cluster_id"], meta["brokers"][0]["node_id"]
    software = {"client_software_name": "t", "client_software_version": "1"}

    def ask(**target: object) -> tuple[int, int]:
        answer = call(bootstrap, API_VERSIONS, 5, {**software, **target})
        return answer["error_code"], len(answer["api_keys"])

    listed = ask()[1]
    assert listed > 40
    assert ask(cluster_id=cluster, node_id=node) == (0, listed)
    assert ask(cluster_id="x" * 22, node_id=node) == (129, 0)
    assert ask(cluster_id=cluster, node_id=node + 1) == (129, 0)
    assert ask(cluster_id=cluster) == (42, 0)
    assert ask(node_id=node) == (42, 0)
