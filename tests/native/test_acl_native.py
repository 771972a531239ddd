"""The native core's ACL checks (Produce, Fetch, ListOffsets) with real clients over TLS, two
principals by client certificate: one allowed, one refused with Kafka's error and nothing
written or read; a DENY overriding an ALLOW; allow.everyone.if.no.acl.found."""

from __future__ import annotations

import socket
import ssl
import struct
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AclOperation, NewTopic, ResourcePatternType, ResourceType

from tests.acl_broker import AclBroker

pytestmark = pytest.mark.native

READ, WRITE, DESCRIBE = AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE
TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP
TOPIC_AUTHORIZATION_FAILED = 29


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclBroker]:
    broker = AclBroker(tmp_path_factory.mktemp("acl-native"))
    try:
        yield broker
    finally:
        broker.close()


def new_topic(broker: AclBroker, prefix: str) -> str:
    topic = f"{prefix}-{uuid.uuid4().hex[:6]}"
    broker.admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(20)
    return topic


def produce(config: dict[str, object], topic: str, count: int) -> list[KafkaError | None]:
    """Each record's delivery error (None: written)."""
    errors: list[KafkaError | None] = []
    producer = Producer({**config, "message.timeout.ms": 10000, "retries": 0})
    for i in range(count):
        producer.produce(topic, f"v{i}".encode(), on_delivery=lambda e, _m: errors.append(e))
    producer.flush(20)
    return errors


def end_offset(broker: AclBroker, topic: str) -> int:
    consumer = Consumer({"bootstrap.servers": broker.plaintext, "group.id": "inspect"})
    try:
        return int(consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1])
    finally:
        consumer.close()


def fetch_error(broker: AclBroker, name: str, topic: str) -> KafkaError | None:
    """The error of the first message an assigned consumer gets as principal `name`, None if
    it reads a record. Its group (which librdkafka looks up even when assigning) is open to
    everyone."""
    broker.allow("*", GROUP, "fetcher", READ)
    config = broker.client(name)
    consumer = Consumer({**config, "group.id": "fetcher", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    try:
        for _ in range(40):
            message = consumer.poll(0.5)
            if message is None:
                continue
            return message.error()
    finally:
        consumer.close()
    raise AssertionError("no answer to the fetch")


def test_produce_needs_write_on_the_topic(secured: AclBroker) -> None:
    topic = new_topic(secured, "produce")
    secured.allow("alice", TOPIC, topic, WRITE)
    # bob may see the topic (DESCRIBE, through READ) but not write to it: the Produce itself
    # is refused, by the native core.
    secured.allow("bob", TOPIC, topic, READ)
    assert produce(secured.client("alice"), topic, 5) == [None] * 5
    refused = produce(secured.client("bob"), topic, 3)
    assert [e.code() if e else None for e in refused] == [KafkaError.TOPIC_AUTHORIZATION_FAILED] * 3
    assert end_offset(secured, topic) == 5


def test_fetch_and_list_offsets_need_read_and_describe(secured: AclBroker) -> None:
    topic = new_topic(secured, "fetch")
    assert produce({"bootstrap.servers": secured.plaintext}, topic, 3) == [None] * 3
    secured.allow("alice", TOPIC, topic, READ)
    secured.allow("bob", TOPIC, topic, WRITE)  # implies DESCRIBE, not READ
    assert fetch_error(secured, "alice", topic) is None
    error = fetch_error(secured, "bob", topic)
    assert error is not None
    assert error.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    # ListOffsets needs DESCRIBE: bob has it (through WRITE), carol nothing. Clients never
    # ask without having seen the topic in Metadata, so carol's request is sent by hand.
    bob = Consumer({**secured.client("bob"), "group.id": "fetcher"})
    try:
        assert bob.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1] == 3
    finally:
        bob.close()
    assert list_offsets_error(secured, "bob", topic) == 0
    assert list_offsets_error(secured, "carol", topic) == TOPIC_AUTHORIZATION_FAILED


def list_offsets_error(broker: AclBroker, name: str, topic: str) -> int:
    """The error code of a ListOffsets v1 (latest offset of partition 0) sent as `name`."""
    config = broker.client(name)
    context = ssl.create_default_context(cafile=config["ssl.ca.location"])
    context.load_cert_chain(config["ssl.certificate.location"], config["ssl.key.location"])
    encoded = topic.encode()
    body = struct.pack(">ii", -1, 1) + struct.pack(">h", len(encoded)) + encoded
    body += struct.pack(">iiq", 1, 0, -1)
    frame = struct.pack(">hhih", 2, 1, 7, 4) + b"test" + body
    host, port = broker.ssl.split(":")
    with (
        socket.create_connection((host, int(port)), timeout=10) as raw,
        context.wrap_socket(raw, server_hostname="localhost") as tls,
    ):
        tls.sendall(struct.pack(">i", len(frame)) + frame)
        answer = b""
        while len(answer) < 4 or len(answer) < 4 + struct.unpack(">i", answer[:4])[0]:
            chunk = tls.recv(65536)
            assert chunk, "connection closed"
            answer += chunk
    # size, correlation id, topics count, topic name, partitions count, partition, error code
    (name_length,) = struct.unpack_from(">h", answer, 12)
    offset = 14 + name_length + 8
    return int(struct.unpack_from(">h", answer, offset)[0])


def test_deny_overrides_allow(secured: AclBroker) -> None:
    prefix = f"deny-{uuid.uuid4().hex[:6]}"
    allowed, denied = new_topic(secured, prefix), new_topic(secured, prefix)
    secured.allow("dave", TOPIC, prefix, WRITE, DESCRIBE, pattern=ResourcePatternType.PREFIXED)
    secured.deny("dave", TOPIC, denied, WRITE)
    assert produce(secured.client("dave"), allowed, 2) == [None, None]
    refused = produce(secured.client("dave"), denied, 2)
    assert [e.code() if e else None for e in refused] == [KafkaError.TOPIC_AUTHORIZATION_FAILED] * 2
    assert end_offset(secured, denied) == 0


def test_allow_everyone_if_no_acl_found(tmp_path: Path) -> None:
    broker = AclBroker(tmp_path, {"allow.everyone.if.no.acl.found": "true"})
    try:
        open_topic, guarded = new_topic(broker, "open"), new_topic(broker, "guarded")
        broker.allow("alice", TOPIC, guarded, WRITE)
        assert produce(broker.client("bob"), open_topic, 2) == [None, None]
        assert fetch_error(broker, "bob", open_topic) is None
        # An ACL on the topic, none of them bob's: closed to him.
        refused = produce(broker.client("bob"), guarded, 1)
        assert [e.code() if e else None for e in refused] == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
        assert produce(broker.client("alice"), guarded, 1) == [None]
    finally:
        broker.close()
