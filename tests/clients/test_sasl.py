"""SASL listeners (SASL_PLAINTEXT and SASL_SSL) with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512:
every client library (confluent-kafka, kafka-python, aiokafka, kcat, Kafka's Java console
tools) authenticates, produces and consumes on each listener with each mechanism; wrong
passwords, unknown users and requests out of order are refused with Kafka's answers and
nothing is written; the bare-token flow after SaslHandshake v0 works; junk (SASL frames and
TLS handshakes) leaves the broker serving.

PLAIN users come from the listener's PlainLoginModule line; SCRAM users are created through
the PLAINTEXT listener with AlterUserScramCredentials, as `kafka-configs` does."""

from __future__ import annotations

import os
import random
import shutil
import socket
import ssl
import struct
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (
    AdminClient,
    NewTopic,
)
from ferrolog.certs import PASSWORD
from ferrolog.embedded import EmbeddedBroker
from ferrolog.ports import free_port
from ferrolog.protocol import decode_response, encode_request
from ferrolog.secured import SecuredBroker

from bench.harness import brokers, kafka_dist
from tests.cluster.harness import java_command
from tests.sasl_broker import JAAS, MECHANISMS, USERS, SaslBroker, credentials
from tests.waiting import wait_until

PROTOCOLS = ("SASL_PLAINTEXT", "SASL_SSL")
# Each client library runs on every SASL listener with every mechanism.
EVERY_LISTENER_AND_MECHANISM = pytest.mark.parametrize(
    ("protocol", "mechanism"), [(p, m) for p in PROTOCOLS for m in MECHANISMS]
)


def new_topic(sasl_broker: SaslBroker) -> str:
    topic = f"sasl-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": sasl_broker.address("PLAINTEXT")})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(20)
    # CreateTopics answers once the topic is decided; the broker opens the partition when it
    # takes the leadership, shortly after (a CI run's ListOffsets just after got
    # UNKNOWN_TOPIC_OR_PARTITION, which get_watermark_offsets does not retry).
    wait_until(lambda: served(sasl_broker, topic), 20, what=f"{topic} served")
    return topic


def served(sasl_broker: SaslBroker, topic: str) -> bool:
    try:
        end_offset(sasl_broker, topic, timeout=5)
    except KafkaException:
        return False
    return True


def end_offset(sasl_broker: SaslBroker, topic: str, timeout: float = 20) -> int:
    consumer = Consumer({"bootstrap.servers": sasl_broker.address("PLAINTEXT"), "group.id": "x"})
    try:
        return consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=timeout)[1]
    finally:
        consumer.close()


@EVERY_LISTENER_AND_MECHANISM
def test_confluent_kafka(sasl_broker: SaslBroker, protocol: str, mechanism: str) -> None:
    config = sasl_broker.librdkafka(protocol, mechanism)
    topic = new_topic(sasl_broker)
    producer = Producer({**config, "linger.ms": 5})
    sent = [os.urandom(100) for _ in range(30)]
    for value in sent:
        producer.produce(topic, value)
    assert producer.flush(30) == 0
    consumer = Consumer({**config, "group.id": topic, "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    got: list[bytes] = []
    deadline = time.monotonic() + 30
    try:
        while len(got) < len(sent) and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and not message.error():
                got.append(message.value())
    finally:
        consumer.close()
    assert got == sent


@EVERY_LISTENER_AND_MECHANISM
def test_kafka_python(sasl_broker: SaslBroker, protocol: str, mechanism: str) -> None:
    from kafka import KafkaConsumer, KafkaProducer

    args = sasl_broker.kafka_python(protocol, mechanism)
    if protocol == "SASL_SSL":
        args["ssl_cafile"] = str(sasl_broker.ca.ca_pem)
    topic = new_topic(sasl_broker)
    producer = KafkaProducer(**args)
    for i in range(10):
        producer.send(topic, f"v{i}".encode())
    producer.flush(30)
    producer.close()
    consumer = KafkaConsumer(topic, auto_offset_reset="earliest", consumer_timeout_ms=20000, **args)
    values = [m.value for _, m in zip(range(10), consumer, strict=False)]
    consumer.close()
    assert values == [f"v{i}".encode() for i in range(10)]


@EVERY_LISTENER_AND_MECHANISM
def test_aiokafka(sasl_broker: SaslBroker, protocol: str, mechanism: str) -> None:
    import asyncio

    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    args = sasl_broker.kafka_python(protocol, mechanism)
    if protocol == "SASL_SSL":
        args["ssl_context"] = ssl.create_default_context(cafile=str(sasl_broker.ca.ca_pem))
    topic = new_topic(sasl_broker)

    async def run() -> list[bytes]:
        producer = AIOKafkaProducer(**args)
        await producer.start()
        try:
            for i in range(10):
                await producer.send_and_wait(topic, f"v{i}".encode())
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(topic, auto_offset_reset="earliest", **args)
        await consumer.start()
        try:
            got = []
            async with asyncio.timeout(30):
                while len(got) < 10:
                    message = await consumer.getone()
                    got.append(message.value)
            return got
        finally:
            await consumer.stop()

    assert asyncio.run(run()) == [f"v{i}".encode() for i in range(10)]


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed")
@EVERY_LISTENER_AND_MECHANISM
def test_kcat(sasl_broker: SaslBroker, protocol: str, mechanism: str) -> None:
    config = sasl_broker.librdkafka(protocol, mechanism)
    options = [arg for k, v in config.items() for arg in ("-X", f"{k}={v}")]
    topic = new_topic(sasl_broker)
    lines = [f"k{i}:v{i}" for i in range(5)]
    subprocess.run(
        ["kcat", *options, "-P", "-t", topic, "-K", ":"],
        input="\n".join(lines) + "\n", text=True, check=True, timeout=60,
    )  # fmt: skip
    out = subprocess.run(
        ["kcat", *options, "-C", "-t", topic, "-o", "beginning", "-e", "-f", "%k:%s\n"],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    assert out.stdout.split() == lines


@pytest.mark.skipif(
    not brokers.jars_available()
    or not (kafka_dist.libs_dir(kafka_dist.KAFKA4) / ".complete").exists(),
    reason="needs java and Kafka's jars (make kafka-jars fetches them)",
)
@EVERY_LISTENER_AND_MECHANISM
def test_java_console_tools(
    sasl_broker: SaslBroker, tmp_path: Path, protocol: str, mechanism: str
) -> None:
    user, secret = credentials(mechanism)
    module = "plain.PlainLoginModule" if mechanism == "PLAIN" else "scram.ScramLoginModule"
    properties = tmp_path / "client.properties"
    text = (
        f"security.protocol={protocol}\nsasl.mechanism={mechanism}\n"
        f"sasl.jaas.config=org.apache.kafka.common.security.{module} required "
        f'username="{user}" password="{secret}";\n'
    )
    if protocol == "SASL_SSL":
        text += (
            f"ssl.truststore.location={sasl_broker.ca.java_truststore()}\n"
            f"ssl.truststore.type=PKCS12\nssl.truststore.password={PASSWORD}\n"
        )
    properties.write_text(text)
    topic = new_topic(sasl_broker)
    lines = [f"line-{i}" for i in range(5)]
    bootstrap = sasl_broker.address(protocol)
    produced = subprocess.run(
        java_command(
            "org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server", bootstrap,
            "--topic", topic, "--command-config", str(properties),
        ),
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert produced.returncode == 0, produced.stderr[-2000:]
    consumed = subprocess.run(
        java_command(
            "org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server", bootstrap,
            "--topic", topic, "--from-beginning", "--max-messages", "5", "--timeout-ms",
            "60000", "--command-config", str(properties),
        ),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert consumed.returncode == 0, consumed.stderr[-2000:]
    assert consumed.stdout.split() == lines


@pytest.mark.parametrize(
    ("mechanism", "user", "password", "message"),
    [
        ("PLAIN", "alice", "wrong", "Invalid username or password"),
        ("PLAIN", "mallory", "alice-secret", "Invalid username or password"),
        ("SCRAM-SHA-256", "bob", "wrong", "invalid credentials"),
        ("SCRAM-SHA-512", "mallory", "bob-secret", "invalid credentials"),
    ],
)
def test_bad_credentials_are_refused_and_nothing_is_written(
    sasl_broker: SaslBroker, mechanism: str, user: str, password: str, message: str
) -> None:
    topic = new_topic(sasl_broker)
    errors: list[KafkaError] = []
    config = {
        **sasl_broker.librdkafka("SASL_PLAINTEXT", mechanism),
        "sasl.username": user,
        "sasl.password": password,
        "error_cb": errors.append,
        "message.timeout.ms": 3000,
    }
    producer = Producer(config)
    delivered: list[KafkaError | None] = []
    producer.produce(topic, b"must not land", on_delivery=lambda e, m: delivered.append(e))
    producer.flush(10)
    assert delivered
    assert delivered[0] is not None
    auth = [e for e in errors if e.code() == KafkaError._AUTHENTICATION]
    assert auth
    assert message in auth[0].str()
    assert end_offset(sasl_broker, topic) == 0


# The protocol below the clients: requests on raw sockets.


def connect(sasl_broker: SaslBroker, listener: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", sasl_broker.ports[listener]), timeout=10)
    if listener == "SASL_SSL":
        context = ssl.create_default_context(cafile=str(sasl_broker.ca.ca_pem))
        return context.wrap_socket(sock, server_hostname="localhost")
    return sock


def send(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(struct.pack(">i", len(payload)) + payload)


def receive(sock: socket.socket) -> bytes | None:
    """One frame, or None when the broker closed the connection."""
    header = _read(sock, 4)
    if header is None:
        return None
    return _read(sock, struct.unpack(">i", header)[0])


def _read(sock: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        try:
            chunk = sock.recv(size - len(data))
        except (ConnectionResetError, ssl.SSLError):
            return None
        if not chunk:
            return None
        data += chunk
    return data


def call(sock: socket.socket, key: int, version: int, body: dict[str, Any]) -> dict | None:
    send(sock, encode_request(key, version, 1, "raw", body))
    frame = receive(sock)
    return None if frame is None else decode_response(key, version, frame)[1]


def test_requests_before_authentication_close_the_connection(sasl_broker: SaslBroker) -> None:
    topic = new_topic(sasl_broker)
    with connect(sasl_broker, "SASL_PLAINTEXT") as sock:
        versions = call(
            sock, 18, 3, {"client_software_name": "raw", "client_software_version": "1"}
        )
        assert versions is not None
        assert versions["error_code"] == 0
        assert call(sock, 3, 12, {"topics": None, "allow_auto_topic_creation": False}) is None
    produce = {
        "acks": -1,
        "timeout_ms": 1000,
        "topic_data": [{"name": topic, "partition_data": [{"index": 0, "records": None}]}],
    }
    with connect(sasl_broker, "SASL_PLAINTEXT") as sock:
        assert call(sock, 0, 9, produce) is None
    # SaslAuthenticate before SaslHandshake: Kafka's IllegalSaslStateException.
    with connect(sasl_broker, "SASL_PLAINTEXT") as sock:
        assert call(sock, 36, 2, {"auth_bytes": b"\0alice\0alice-secret"}) is None
    assert end_offset(sasl_broker, topic) == 0


def test_handshake_v1_then_authenticate(sasl_broker: SaslBroker) -> None:
    with connect(sasl_broker, "SASL_SSL") as sock:
        answer = call(sock, 17, 1, {"mechanism": "PLAIN"})
        assert answer == {"error_code": 0, "mechanisms": list(MECHANISMS)}
        answer = call(sock, 36, 2, {"auth_bytes": b"\0alice\0alice-secret"})
        assert answer is not None
        assert answer["error_code"] == 0
        metadata = call(sock, 3, 12, {"topics": None, "allow_auto_topic_creation": False})
        assert metadata is not None
        assert metadata["brokers"]
        # Authenticated: no second handshake (no re-authentication configured).
        again = call(sock, 17, 1, {"mechanism": "PLAIN"})
        assert again is not None
        assert again["error_code"] == 34


def test_failed_authenticate_answers_then_closes(sasl_broker: SaslBroker) -> None:
    with connect(sasl_broker, "SASL_PLAINTEXT") as sock:
        assert call(sock, 17, 1, {"mechanism": "SCRAM-SHA-256"}) is not None
        answer = call(sock, 36, 1, {"auth_bytes": b"n,,n=bob,r=abc"})
        assert answer is not None
        assert answer["error_code"] == 0
        final = b"c=biws,r=abc-not-the-servers-nonce,p=AAAA"
        answer = call(sock, 36, 1, {"auth_bytes": final})
        assert answer is not None
        assert answer["error_code"] == 58
        assert "SCRAM-SHA-256" in answer["error_message"]
        assert receive(sock) is None


def test_unsupported_mechanism_lists_the_enabled_ones(sasl_broker: SaslBroker) -> None:
    with connect(sasl_broker, "SASL_PLAINTEXT") as sock:
        answer = call(sock, 17, 1, {"mechanism": "GSSAPI"})
        assert answer == {"error_code": 33, "mechanisms": list(MECHANISMS)}
        assert receive(sock) is None


def test_handshake_on_a_listener_without_sasl(sasl_broker: SaslBroker) -> None:
    with connect(sasl_broker, "PLAINTEXT") as sock:
        assert call(sock, 17, 1, {"mechanism": "PLAIN"}) == {"error_code": 34, "mechanisms": []}


def test_handshake_v0_then_bare_tokens(sasl_broker: SaslBroker) -> None:
    with connect(sasl_broker, "SASL_PLAINTEXT") as sock:
        assert call(sock, 17, 0, {"mechanism": "PLAIN"}) == {
            "error_code": 0,
            "mechanisms": list(MECHANISMS),
        }
        send(sock, b"\0alice\0alice-secret")
        assert receive(sock) == b""  # PLAIN's empty server token
        metadata = call(sock, 3, 12, {"topics": None, "allow_auto_topic_creation": False})
        assert metadata is not None
        assert metadata["brokers"]
    # A bad bare token: the v0 flow cannot say why, the connection closes.
    with connect(sasl_broker, "SASL_PLAINTEXT") as sock:
        assert call(sock, 17, 0, {"mechanism": "PLAIN"}) is not None
        send(sock, b"\0alice\0wrong")
        assert receive(sock) is None


def test_scram_over_bare_tokens(sasl_broker: SaslBroker) -> None:
    import scramp

    user, secret = USERS["SCRAM"]
    client = scramp.ScramClient(["SCRAM-SHA-512"], user, secret)
    with connect(sasl_broker, "SASL_PLAINTEXT") as sock:
        assert call(sock, 17, 0, {"mechanism": "SCRAM-SHA-512"}) is not None
        send(sock, client.get_client_first().encode())
        first = receive(sock)
        assert first is not None
        client.set_server_first(first.decode())
        send(sock, client.get_client_final().encode())
        final = receive(sock)
        assert final is not None
        client.set_server_final(final.decode())  # raises unless the server proved its key
        metadata = call(sock, 3, 12, {"topics": None, "allow_auto_topic_creation": False})
        assert metadata is not None


def test_junk_leaves_the_broker_serving(sasl_broker: SaslBroker) -> None:
    rng = random.Random(12)
    limit = 524288
    for i in range(1000):
        with socket.create_connection(
            ("127.0.0.1", sasl_broker.ports["SASL_PLAINTEXT"]), timeout=10
        ) as sock:
            kind = i % 4
            if kind == 0:  # an oversized SASL token after a v0 handshake
                send(sock, encode_request(17, 0, 1, "junk", {"mechanism": "PLAIN"}))
                receive(sock)
                sock.sendall(struct.pack(">i", limit + 1) + b"x" * 100)
            elif kind == 1:  # a random token after a v1 handshake
                send(sock, encode_request(17, 1, 1, "junk", {"mechanism": "SCRAM-SHA-256"}))
                receive(sock)
                token = rng.randbytes(rng.randrange(0, 200))
                send(sock, encode_request(36, 2, 2, "junk", {"auth_bytes": token}))
            elif kind == 2:  # a frame announcing more than the SASL limit
                sock.sendall(struct.pack(">i", limit + 1) + rng.randbytes(64))
            else:  # random bytes
                sock.sendall(rng.randbytes(rng.randrange(1, 100)))
    # 1,000 TLS handshakes gone wrong, on both TLS listeners; the broker must close each one
    # (a socket timeout here fails the test).
    hello = client_hello()
    for i in range(1000):
        kind = i % 4
        if kind == 0:  # random bytes
            junk = rng.randbytes(rng.randrange(1, 600))
        elif kind == 1:  # a real ClientHello, cut short
            junk = hello[: rng.randrange(1, len(hello))]
        elif kind == 2:  # a valid handshake record header, then garbage
            size = rng.randrange(4, 2048)
            body = rng.randbytes(size)
            if rng.random() < 0.5:  # ... even a ClientHello's own header
                body = b"\x01" + (size - 4).to_bytes(3) + body[4:]
            junk = b"\x16\x03\x01" + struct.pack(">H", size) + body
        else:  # a real ClientHello with a few bytes changed
            mutated = bytearray(hello)
            for _ in range(rng.randrange(1, 8)):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            junk = bytes(mutated)
        listener = "SASL_SSL" if i % 8 < 4 else "SSL"
        send_and_wait_for_close(sasl_broker.ports[listener], junk)
    for protocol in ("SASL_PLAINTEXT", "SASL_SSL"):
        config = sasl_broker.librdkafka(protocol, "SCRAM-SHA-256")
        assert AdminClient(config).list_topics(timeout=20).brokers
    ssl_config = sasl_broker.ssl_client_config(certificate=True)
    assert AdminClient(ssl_config).list_topics(timeout=20).brokers


def client_hello() -> bytes:
    """The first flight of a real TLS client (Python's ssl module): a ClientHello record."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ssl.create_default_context().wrap_bio(incoming, outgoing, server_hostname="localhost")
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    hello = outgoing.read()
    assert hello[:1] == b"\x16"  # a handshake record
    return hello


def send_and_wait_for_close(port: int, junk: bytes) -> None:
    """Sends `junk`, then end of stream, and waits until the broker closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        try:
            sock.sendall(junk)
            sock.shutdown(socket.SHUT_WR)
            while sock.recv(4096):  # a TLS alert, perhaps
                pass
        except (BrokenPipeError, ConnectionResetError):
            pass  # the broker closed first


def test_acls_apply_to_the_sasl_principal(tmp_path: Path) -> None:
    """With the authorizer on, alice (SASL/PLAIN) writes where an ACL lets her and is refused
    elsewhere, natively, nothing written; admin, a super user, sets the ACL up."""
    from confluent_kafka.admin import (
        AclBinding,
        AclOperation,
        AclPermissionType,
        ResourcePatternType,
        ResourceType,
    )

    port = free_port()
    broker = EmbeddedBroker(
        overrides={
            "listeners": f"SASL_PLAINTEXT://127.0.0.1:{port}",
            "sasl.enabled.mechanisms": "PLAIN",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
            "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
            "super.users": "User:admin",
        }
    ).start()
    try:
        base = {
            "bootstrap.servers": f"127.0.0.1:{port}",
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
        }
        admin = AdminClient({**base, "sasl.username": "admin", "sasl.password": "admin-secret"})
        for topic in ("alice-ok", "other"):
            admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(20)
        binding = AclBinding(
            ResourceType.TOPIC, "alice-", ResourcePatternType.PREFIXED, "User:alice", "*",
            AclOperation.WRITE, AclPermissionType.ALLOW,
        )  # fmt: skip
        for future in admin.create_acls([binding]).values():
            future.result(20)
        producer = Producer(
            {**base, "sasl.username": "alice", "sasl.password": "alice-secret",
             "message.timeout.ms": 5000}
        )  # fmt: skip
        results: dict[str, KafkaError | None] = {}
        for topic in ("alice-ok", "other"):
            producer.produce(topic, b"v", on_delivery=lambda e, m, t=topic: results.update({t: e}))
        producer.flush(15)
        assert results["alice-ok"] is None
        refused = results["other"]
        assert refused is not None
        assert refused.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
        watermarks = Consumer({**base, "sasl.username": "admin", "sasl.password": "admin-secret",
                               "group.id": "w"})  # fmt: skip
        try:
            offsets = {
                t: watermarks.get_watermark_offsets(TopicPartition(t, 0), timeout=20)[1]
                for t in ("alice-ok", "other")
            }
        finally:
            watermarks.close()
        assert offsets == {"alice-ok": 1, "other": 0}
    finally:
        broker.close()


def test_the_secured_broker_fixture(ferrolog_secured_broker: SecuredBroker) -> None:
    """What users get to test their own secured clients: SCRAM over SASL_SSL, and a client
    certificate over SSL, against a broker with a throwaway CA."""
    topic = f"secured-{uuid.uuid4().hex[:8]}"
    admin = AdminClient(ferrolog_secured_broker.client_config("alice"))
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(20)
    for config in (
        ferrolog_secured_broker.client_config("bob", "SCRAM-SHA-256"),
        ferrolog_secured_broker.ssl_client_config(certificate=True),
    ):
        producer = Producer(config)
        producer.produce(topic, b"v")
        assert producer.flush(20) == 0
    consumer = Consumer(
        {**ferrolog_secured_broker.client_config("alice", "PLAIN"), "group.id": topic,
         "auto.offset.reset": "earliest"}
    )  # fmt: skip
    consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + 30
    while len(got) < 2 and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is not None and not message.error():
            got.append(message.value())
    consumer.close()
    assert got == [b"v", b"v"]
