"""SSL listeners of the native server: TLS with Kafka's `ssl.*` properties (PEM files, inline
PEM, PKCS12), beside a PLAINTEXT listener. Each client library produces and consumes over
SSL (consuming exercises Fetch, whose record data goes through the TLS stream instead of
sendfile); Metadata answers with the endpoints of the listener the client came through;
`ssl.client.auth=required` refuses a client without a certificate; the principal of a client
certificate, as `ssl.principal.mapping.rules` name it, reaches the control plane with each
request; a plaintext client on the SSL port loses its connection while the broker goes on
serving."""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import struct
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.certs import (
    PASSWORD,
    CertificateAuthority,
    Issued,
    broker_ssl_settings,
    java_keystore,
)
from ferrolog.config import BrokerConfig
from ferrolog.embedded import EmbeddedBroker
from ferrolog.ports import free_port

from bench.harness import brokers, kafka_dist
from tests.cluster.harness import java_command

pytestmark = pytest.mark.native

fn = pytest.importorskip("ferrolog_native")


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> CertificateAuthority:
    return CertificateAuthority(tmp_path_factory.mktemp("ca"))


@pytest.fixture(scope="module")
def broker_cert(ca: CertificateAuthority) -> Issued:
    return ca.broker()


@pytest.fixture(scope="module")
def client_cert(ca: CertificateAuthority) -> Issued:
    return ca.client()


class TlsBroker:
    def __init__(self, broker: EmbeddedBroker, plaintext: int, ssl_port: int) -> None:
        self.broker = broker
        self.plaintext = f"127.0.0.1:{plaintext}"
        self.ssl = f"127.0.0.1:{ssl_port}"
        self.ssl_port = ssl_port


def start_tls_broker(overrides: dict[str, str]) -> TlsBroker:
    plaintext, ssl_port = free_port(), free_port()
    broker = EmbeddedBroker(
        overrides={
            "listeners": f"PLAINTEXT://127.0.0.1:{plaintext},SSL://127.0.0.1:{ssl_port}",
            **overrides,
        }
    )
    broker.start()
    return TlsBroker(broker, plaintext, ssl_port)


@pytest.fixture(scope="module", params=["PEM", "PKCS12"])
def tls_broker(
    request: pytest.FixtureRequest, ca: CertificateAuthority, broker_cert: Issued
) -> Iterator[TlsBroker]:
    started = start_tls_broker(broker_ssl_settings(broker_cert, ca, request.param))
    try:
        yield started
    finally:
        started.broker.close()


def ssl_config(ca: CertificateAuthority, client: Issued | None = None) -> dict[str, Any]:
    config: dict[str, Any] = {"security.protocol": "SSL", "ssl.ca.location": str(ca.ca_pem)}
    if client is not None:
        config["ssl.certificate.location"] = str(client.cert_pem)
        config["ssl.key.location"] = str(client.key_pem)
    return config


def produce_and_consume(bootstrap: str, extra: dict[str, Any], count: int, size: int) -> None:
    topic = f"tls-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap, **extra})
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, **extra})
    sent = {f"k{i}".encode(): os.urandom(size) for i in range(count)}
    for key, value in sent.items():
        producer.produce(topic, value, key)
    assert producer.flush(30) == 0
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": topic,
            "auto.offset.reset": "earliest",
            "fetch.max.bytes": 4 << 20,
            **extra,
        }
    )
    consumer.subscribe([topic])
    got: dict[bytes, bytes] = {}
    deadline = time.monotonic() + 60
    try:
        while len(got) < count and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            got[message.key()] = message.value()
    finally:
        consumer.close()
    assert got == sent


def test_confluent_kafka_produces_and_consumes_over_ssl(
    tls_broker: TlsBroker, ca: CertificateAuthority
) -> None:
    # 3 MB: fetch responses of several file regions, each larger than one TLS read buffer.
    produce_and_consume(tls_broker.ssl, ssl_config(ca), count=1500, size=2000)


def test_plaintext_listener_still_serves(tls_broker: TlsBroker) -> None:
    produce_and_consume(tls_broker.plaintext, {}, count=50, size=100)


def test_kafka_python_over_ssl(tls_broker: TlsBroker, ca: CertificateAuthority) -> None:
    from kafka import KafkaConsumer, KafkaProducer
    from kafka.admin import KafkaAdminClient
    from kafka.admin import NewTopic as KpNewTopic

    topic = f"kp-tls-{uuid.uuid4().hex[:8]}"
    ssl_args: dict[str, Any] = {"security_protocol": "SSL", "ssl_cafile": str(ca.ca_pem)}
    admin = KafkaAdminClient(bootstrap_servers=tls_broker.ssl, **ssl_args)
    admin.create_topics([KpNewTopic(topic, 1, 1)])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=tls_broker.ssl, **ssl_args)
    for i in range(20):
        producer.send(topic, f"value-{i}".encode())
    producer.flush(30)
    producer.close()
    consumer = KafkaConsumer(
        topic, bootstrap_servers=tls_broker.ssl, auto_offset_reset="earliest",
        consumer_timeout_ms=20000, **ssl_args,
    )  # fmt: skip
    values = []
    for message in consumer:
        values.append(message.value)
        if len(values) == 20:
            break
    consumer.close()
    assert values == [f"value-{i}".encode() for i in range(20)]


def test_metadata_answers_with_the_listener_of_the_client(
    tls_broker: TlsBroker, ca: CertificateAuthority
) -> None:
    via_ssl = AdminClient({"bootstrap.servers": tls_broker.ssl, **ssl_config(ca)})
    brokers_seen = via_ssl.list_topics(timeout=20).brokers
    assert [f"{b.host}:{b.port}" for b in brokers_seen.values()] == [tls_broker.ssl]
    via_plain = AdminClient({"bootstrap.servers": tls_broker.plaintext})
    brokers_seen = via_plain.list_topics(timeout=20).brokers
    assert [f"{b.host}:{b.port}" for b in brokers_seen.values()] == [tls_broker.plaintext]


def test_plaintext_client_on_the_ssl_port_is_disconnected(
    tls_broker: TlsBroker, ca: CertificateAuthority
) -> None:
    frame = struct.pack(">hhih", 18, 0, 7, 1) + b"t"  # ApiVersions v0
    with socket.create_connection(("127.0.0.1", tls_broker.ssl_port), timeout=10) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        try:
            answer = s.recv(4096)
        except ConnectionResetError:
            answer = b""
    # At most a TLS alert record (content type 21), never a Kafka response.
    assert answer == b"" or answer[0] == 21, answer
    AdminClient({"bootstrap.servers": tls_broker.ssl, **ssl_config(ca)}).list_topics(timeout=20)
    AdminClient({"bootstrap.servers": tls_broker.plaintext}).list_topics(timeout=20)


@pytest.fixture(scope="module")
def client_auth_broker(ca: CertificateAuthority, broker_cert: Issued) -> Iterator[TlsBroker]:
    # Inline PEM, and client auth asked of the SSL listener alone (Kafka's listener prefix).
    started = start_tls_broker(
        {
            **broker_ssl_settings(broker_cert, ca, "PEM-inline"),
            "listener.name.ssl.ssl.client.auth": "required",
        }
    )
    try:
        yield started
    finally:
        started.broker.close()


def test_client_auth_required_refuses_a_client_without_certificate(
    client_auth_broker: TlsBroker, ca: CertificateAuthority, client_cert: Issued
) -> None:
    anonymous = AdminClient({"bootstrap.servers": client_auth_broker.ssl, **ssl_config(ca)})
    with pytest.raises(KafkaException):
        anonymous.list_topics(timeout=5)
    produce_and_consume(client_auth_broker.ssl, ssl_config(ca, client_cert), count=20, size=50)
    # the override is the SSL listener's: PLAINTEXT clients need no certificate
    AdminClient({"bootstrap.servers": client_auth_broker.plaintext}).list_topics(timeout=20)


@pytest.mark.skipif(
    not brokers.jars_available()
    or not (kafka_dist.libs_dir(kafka_dist.KAFKA4) / ".complete").exists(),
    reason="needs java and Kafka's jars (make kafka-jars fetches them)",
)
def test_java_console_tools_over_ssl_with_a_pkcs12_truststore(
    tmp_path: Path, ca: CertificateAuthority, broker_cert: Issued
) -> None:
    started = start_tls_broker(broker_ssl_settings(broker_cert, ca, "PKCS12"))
    try:
        properties = tmp_path / "client.properties"
        properties.write_text(
            "security.protocol=SSL\n"
            f"ssl.truststore.location={ca.java_truststore()}\n"
            "ssl.truststore.type=PKCS12\n"
            f"ssl.truststore.password={PASSWORD}\n"
        )
        topic = "java-tls"
        lines = [f"line-{i}" for i in range(10)]
        produced = subprocess.run(
            java_command(
                "org.apache.kafka.tools.ConsoleProducer",
                "--bootstrap-server",
                started.ssl,
                "--topic",
                topic,
                "--command-config",
                str(properties),
            ),
            input="\n".join(lines) + "\n",
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert produced.returncode == 0, produced.stderr[-2000:]
        consumed = subprocess.run(
            java_command(
                "org.apache.kafka.tools.consumer.ConsoleConsumer",
                "--bootstrap-server",
                started.ssl,
                "--topic",
                topic,
                "--from-beginning",
                "--max-messages",
                "10",
                "--timeout-ms",
                "60000",
                "--command-config",
                str(properties),
            ),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert consumed.returncode == 0, consumed.stderr[-2000:]
        assert consumed.stdout.split() == lines
    finally:
        started.broker.close()


@pytest.mark.skipif(shutil.which("keytool") is None, reason="needs the JDK's keytool")
def test_key_and_trust_stores_written_by_keytool(
    ca: CertificateAuthority, broker_cert: Issued, client_cert: Issued
) -> None:
    """PKCS12 files as the JDK writes them: the broker's key store and the trust store it
    checks client certificates against (`ssl.client.auth=required`)."""
    started = start_tls_broker(
        {
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.location": str(java_keystore(broker_cert)),
            "ssl.keystore.password": PASSWORD,
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.location": str(ca.java_truststore()),
            "ssl.truststore.password": PASSWORD,
            "ssl.client.auth": "required",
        }
    )
    try:
        produce_and_consume(started.ssl, ssl_config(ca, client_cert), count=20, size=50)
        with pytest.raises(KafkaException):
            AdminClient({"bootstrap.servers": started.ssl, **ssl_config(ca)}).list_topics(timeout=5)
    finally:
        started.broker.close()


def test_each_request_names_its_listener_and_principal(
    tmp_path: Path, ca: CertificateAuthority, broker_cert: Issued, client_cert: Issued
) -> None:
    config = BrokerConfig(
        {
            "node.id": "1",
            "log.dirs": str(tmp_path),
            "listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
            "ssl.client.auth": "requested",
            **broker_ssl_settings(broker_cert, ca, "PEM"),
        }
    )
    server = fn.Server(config.native_server_config())
    server.start()
    try:
        ports = dict(server.ports)
        assert set(ports) == {"PLAINTEXT", "SSL"}
        assert server.port == ports["PLAINTEXT"]
        context = ssl.create_default_context(cafile=str(ca.ca_pem))
        context.load_cert_chain(str(client_cert.cert_pem), str(client_cert.key_pem))
        anonymous = ssl.create_default_context(cafile=str(ca.ca_pem))
        frame = struct.pack(">hhih", 18, 0, 7, 1) + b"t"
        cases = [
            (context, "SSL", "User:CN=client,OU=tests,O=ferrolog,C=US"),
            (anonymous, "SSL", "User:ANONYMOUS"),
            (None, "PLAINTEXT", "User:ANONYMOUS"),
        ]
        for tls, listener, principal in cases:
            _served_as(server, ports[listener], tls, frame, listener, principal)
    finally:
        server.shutdown()


def test_principal_mapping_rules_name_the_principal(
    tmp_path: Path, ca: CertificateAuthority, broker_cert: Issued
) -> None:
    """`ssl.principal.mapping.rules` (KIP-371): the first rule whose pattern matches the
    subject names the principal. On a listener whose own rules (`listener.name.<name>.`) have
    none for the certificate, the connection fails authentication: closed, nothing served."""
    alice = ca.client("Alice")
    config = BrokerConfig(
        {
            "node.id": "1",
            "log.dirs": str(tmp_path),
            "listeners": "SSL://127.0.0.1:0,STRICT://127.0.0.1:0",
            "listener.security.protocol.map": "SSL:SSL,STRICT:SSL",
            "ssl.client.auth": "requested",
            "ssl.principal.mapping.rules": "RULE:^CN=(.*?),.*$/$1/L,DEFAULT",
            "listener.name.strict.ssl.principal.mapping.rules": "RULE:^CN=admin,.*$/admin/",
            **broker_ssl_settings(broker_cert, ca, "PEM"),
        }
    )
    server = fn.Server(config.native_server_config())
    server.start()
    try:
        ports = dict(server.ports)
        with_alice = ssl.create_default_context(cafile=str(ca.ca_pem))
        with_alice.load_cert_chain(str(alice.cert_pem), str(alice.key_pem))
        anonymous = ssl.create_default_context(cafile=str(ca.ca_pem))
        frame = struct.pack(">hhih", 18, 0, 7, 1) + b"t"  # ApiVersions v0
        cases = [
            (with_alice, "SSL", "User:alice"),
            # no certificate, no rule to apply
            (anonymous, "STRICT", "User:ANONYMOUS"),
        ]
        for context, listener, principal in cases:
            _served_as(server, ports[listener], context, frame, listener, principal)

        raw = socket.create_connection(("127.0.0.1", ports["STRICT"]), timeout=10)
        try:
            with with_alice.wrap_socket(raw, server_hostname="localhost") as sock:
                sock.sendall(struct.pack(">i", len(frame)) + frame)
                answer = sock.recv(4096)
        except OSError:  # the close may come as a reset, or an EOF TLS calls an error
            answer = b""
        assert answer == b""
        assert not server.take_requests()
    finally:
        server.shutdown()


def _served_as(
    server: Any,
    port: int,
    tls: ssl.SSLContext | None,
    frame: bytes,
    listener: str,
    principal: str,
) -> None:
    """Sends `frame` on a new connection to `port` (over TLS with `tls`); the request the
    server hands over names `listener` and `principal`, and its answer comes back."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock = tls.wrap_socket(raw, server_hostname="localhost") if tls else raw
    with sock:
        sock.sendall(struct.pack(">i", len(frame)) + frame)
        request = _take_one(server)
        assert (request.listener_name, request.principal) == (listener, principal)
        server.respond(request.handle, struct.pack(">i", 7) + b"answer")
        size = struct.unpack(">i", _read_exactly(sock, 4))[0]
        assert _read_exactly(sock, size) == struct.pack(">i", 7) + b"answer"


def _take_one(server: Any) -> Any:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        requests = server.take_requests()
        if requests:
            return requests[0]
        time.sleep(0.02)
    raise AssertionError("no control request arrived")


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        assert chunk, "connection closed"
        data += chunk
    return data


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"ssl.keystore.type": "PEM"}, "ssl.keystore.location"),
        (
            {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "/nonexistent.p12"},
            "/nonexistent.p12",
        ),
        ({"ssl.principal.mapping.rules": "RULE:^CN=(.*?),.*$/$1/L/U"}, "invalid rule"),
        ({"ssl.principal.mapping.rules": "RULE:^CN=(?!admin)(.*)$/$1/"}, "look-around"),
    ],
)
def test_bad_ssl_settings_fail_at_start(
    tmp_path: Path, broker_cert: Issued, ca: CertificateAuthority,
    settings: dict[str, str], message: str,
) -> None:  # fmt: skip
    base = broker_ssl_settings(broker_cert, ca, "PEM")
    base.pop("ssl.keystore.location")
    config = BrokerConfig(
        {
            "node.id": "1",
            "log.dirs": str(tmp_path),
            "listeners": "SSL://127.0.0.1:0",
            **base,
            **settings,
        }
    )
    with pytest.raises(Exception, match="SSL") as raised:
        fn.Server(config.native_server_config())
    assert message in str(raised.value)


def test_client_certificate_from_another_ca_is_refused(
    client_auth_broker: TlsBroker, ca: CertificateAuthority, tmp_path: Path
) -> None:
    """`ssl.client.auth=required`: a certificate the trust store does not vouch for fails the
    handshake; nothing is served on that connection, and the broker goes on serving."""
    stranger = CertificateAuthority(tmp_path / "other-ca").client()
    refused = AdminClient({"bootstrap.servers": client_auth_broker.ssl, **ssl_config(ca, stranger)})
    with pytest.raises(KafkaException):
        refused.list_topics(timeout=5)
    host, port = client_auth_broker.ssl.split(":")
    context = ssl.create_default_context(cafile=str(ca.ca_pem))
    context.load_cert_chain(str(stranger.cert_pem), str(stranger.key_pem))
    frame = struct.pack(">hhih", 18, 0, 7, 1) + b"t"  # ApiVersions v0
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        try:
            with context.wrap_socket(raw, server_hostname="localhost") as sock:
                sock.sendall(struct.pack(">i", len(frame)) + frame)
                answer = sock.recv(4096)
        except (ssl.SSLError, ConnectionResetError):
            answer = b""
    assert answer == b""
    AdminClient({"bootstrap.servers": client_auth_broker.plaintext}).list_topics(timeout=20)
