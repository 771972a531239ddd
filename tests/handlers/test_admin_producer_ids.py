"""InitProducerId end to end: raw requests over a socket (to see the ids a client is given)
across a broker restart, and an idempotent confluent-kafka producer."""

from __future__ import annotations

import socket
import struct
import uuid
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.protocol import decode_response, encode_request

INIT_PRODUCER_ID = 22


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("broker closed the connection")
        data += chunk
    return data


def init_producer_id(bootstrap: str, version: int, transactional_id: str | None) -> dict[str, Any]:
    host, _, port = bootstrap.rpartition(":")
    body = {"transactional_id": transactional_id, "transaction_timeout_ms": 60000}
    frame = encode_request(INIT_PRODUCER_ID, version, 42, "ferrolog-test", body)
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(struct.pack(">i", len(frame)) + frame)  # the codec leaves framing to us
        (size,) = struct.unpack(">i", _read_exactly(sock, 4))
        payload = _read_exactly(sock, size)
    correlation_id, response = decode_response(INIT_PRODUCER_ID, version, payload)
    assert correlation_id == 42
    return response


def test_producer_ids_are_unique_across_restarts(
    ferrolog_broker_factory: Callable[..., Any],
) -> None:
    broker = ferrolog_broker_factory()
    before = [init_producer_id(broker.bootstrap_servers, v, None) for v in (0, 2, 4)]
    assert all(r["error_code"] == 0 and r["producer_epoch"] == 0 for r in before)
    ids = [r["producer_id"] for r in before]
    assert len(set(ids)) == 3
    broker.restart()
    after = init_producer_id(broker.bootstrap_servers, 4, None)
    assert after["error_code"] == 0
    assert after["producer_id"] > max(ids)


def test_transactional_id_needs_its_coordinator(
    ferrolog_broker_factory: Callable[..., Any],
) -> None:
    # Before any FindCoordinator created `__transaction_state` (a fresh broker), no broker
    # coordinates the id; the client finds its coordinator and asks there (tests/transactions).
    broker = ferrolog_broker_factory()
    response = init_producer_id(broker.bootstrap_servers, 4, "my-transaction")
    assert response["error_code"] == 16  # NOT_COORDINATOR
    assert response["producer_id"] == -1


def test_idempotent_producer(ferrolog_broker: Any) -> None:
    bootstrap = ferrolog_broker.bootstrap_servers
    name = f"idem-{uuid.uuid4().hex[:10]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, 1, 1)])[name].result(timeout=20)
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    errors: list[str] = []
    for i in range(20):
        producer.produce(
            name,
            value=str(i).encode(),
            on_delivery=lambda err, _msg: errors.append(str(err)) if err else None,
        )
    assert producer.flush(20) == 0
    assert errors == []
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "idem-check", "enable.auto.commit": False}
    )
    try:
        low, high = consumer.get_watermark_offsets(TopicPartition(name, 0), timeout=20)
    finally:
        consumer.close()
    assert (low, high) == (0, 20)
