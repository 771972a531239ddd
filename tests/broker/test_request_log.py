"""Refused and failed requests leave a line in the broker's log (at INFO, the default level),
naming the API, the error or reason, the client id and the address, rate-limited per kind."""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable

import ferrolog_native
import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.embedded import EmbeddedBroker
from ferrolog.protocol import decode_response, encode_request

from tests.waiting import wait_until

pytestmark = pytest.mark.native

Factory = Callable[..., EmbeddedBroker]
PRODUCE, METADATA = 0, 3


def exchange(bootstrap: str, frame: bytes) -> bytes | None:
    """Sends one frame on a new connection; the response, or None if it was closed."""
    host, port = bootstrap.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        head = s.recv(4, socket.MSG_WAITALL)
        if len(head) < 4:
            return None
        return s.recv(struct.unpack(">i", head)[0], socket.MSG_WAITALL)


def produce_frame(topic: str, partition: int) -> bytes:
    batch = ferrolog_native.build_batch([(b"k", b"v", [], 1_700_000_000_000)])
    body = {"transactional_id": None, "acks": 1, "timeout_ms": 5000, "topic_data": [
        {"name": topic, "partition_data": [{"index": partition, "records": batch}]}]}  # fmt: skip
    return encode_request(PRODUCE, 7, 1, "orders-app", body)


def lines(broker: EmbeddedBroker, start: str) -> list[str]:
    return [
        line for line in broker.log_path.read_text(errors="replace").splitlines() if start in line
    ]


def test_failed_and_refused_requests_are_logged_once_per_kind(
    ferrolog_broker_factory: Factory,
) -> None:
    broker = ferrolog_broker_factory(overrides={"auto.create.topics.enable": "false"})
    bootstrap = broker.bootstrap_servers
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("one", num_partitions=1, replication_factor=1)])["one"].result(20)

    # A natively served request with a partition error, five times: one line.
    for _ in range(5):
        response = exchange(bootstrap, produce_frame("one", 7))
        assert response is not None
        _, body = decode_response(PRODUCE, 7, response)
        assert body["responses"][0]["partition_responses"][0]["error_code"] == 3
    failed = "request failed api=Produce version=7 client_id=orders-app"
    wait_until(lambda: lines(broker, failed), what="the failed produce logged")
    [line] = lines(broker, failed)
    assert "error=UNKNOWN_TOPIC_OR_PARTITION" in line
    assert "peer=127.0.0.1:" in line

    # Refused natively: a produce at a version outside the served range.
    frame = bytearray(produce_frame("one", 0))
    frame[2:4] = struct.pack(">h", 99)
    assert exchange(bootstrap, bytes(frame)) is None
    refused = "request refused, connection closed api=Produce version=99 client_id=orders-app"
    wait_until(lambda: lines(broker, refused), what="the refused produce logged")

    # Refused by the control plane: a Metadata body cut short.
    metadata = encode_request(METADATA, 12, 1, "admin-tool", {"topics": [{"name": "one"}]})
    assert exchange(bootstrap, metadata[:-3]) is None
    cut = "request refused, connection closed api=Metadata version=12 client_id=admin-tool"
    wait_until(lambda: lines(broker, cut), what="the malformed metadata logged")
    assert "malformed request" in lines(broker, cut)[0]

    # Answered by the control plane with an error.
    with pytest.raises(Exception, match="TOPIC_ALREADY_EXISTS"):
        admin.create_topics([NewTopic("one", num_partitions=1, replication_factor=1)])[
            "one"
        ].result(20)
    exists = "request failed api=CreateTopics"
    wait_until(lambda: lines(broker, exists), what="the failed CreateTopics logged")
    assert "error=TOPIC_ALREADY_EXISTS" in lines(broker, exists)[0]
