"""Each client library over SSL, with and without a client certificate: a broker with an SSL
listener that asks for none and one (`MTLS`) that requires one (`ssl.client.auth=required`
for that listener alone). confluent-kafka's runs are in tests/native/test_tls.py."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.certs import (
    PASSWORD,
    CertificateAuthority,
    Issued,
    broker_ssl_settings,
    java_keystore,
)
from ferrolog.embedded import EmbeddedBroker
from ferrolog.ports import free_port

from bench.harness import brokers, kafka_dist
from tests.cluster.harness import java_command

COUNT = 10


@dataclass
class Listeners:
    ca: CertificateAuthority
    client: Issued
    ports: dict[str, int]

    def address(self, with_cert: bool) -> str:
        return f"127.0.0.1:{self.ports['MTLS' if with_cert else 'SSL']}"

    def topic(self) -> str:
        name = f"ssl-{uuid.uuid4().hex[:8]}"
        admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{self.ports['PLAINTEXT']}"})
        admin.create_topics([NewTopic(name, 1, 1)])[name].result(20)
        return name


@pytest.fixture(scope="module")
def listeners(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Listeners]:
    ca = CertificateAuthority(tmp_path_factory.mktemp("ca"))
    ports = {name: free_port() for name in ("PLAINTEXT", "SSL", "MTLS")}
    broker = EmbeddedBroker(
        overrides={
            "listeners": ",".join(f"{n}://127.0.0.1:{p}" for n, p in ports.items()),
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL",
            "listener.name.mtls.ssl.client.auth": "required",
            **broker_ssl_settings(ca.broker(), ca, "PEM"),
        }
    ).start()
    try:
        yield Listeners(ca, ca.client(), ports)
    finally:
        broker.close()


WITH_AND_WITHOUT = pytest.mark.parametrize("with_cert", [False, True], ids=["no-cert", "cert"])
VALUES = [f"v{i}" for i in range(COUNT)]


@WITH_AND_WITHOUT
def test_kafka_python(listeners: Listeners, with_cert: bool) -> None:
    from kafka import KafkaConsumer, KafkaProducer

    args: dict[str, Any] = {
        "bootstrap_servers": listeners.address(with_cert),
        "security_protocol": "SSL",
        "ssl_cafile": str(listeners.ca.ca_pem),
    }
    if with_cert:
        args |= {
            "ssl_certfile": str(listeners.client.cert_pem),
            "ssl_keyfile": str(listeners.client.key_pem),
        }
    topic = listeners.topic()
    producer = KafkaProducer(**args)
    for value in VALUES:
        producer.send(topic, value.encode())
    producer.flush(30)
    producer.close()
    consumer = KafkaConsumer(topic, auto_offset_reset="earliest", consumer_timeout_ms=20000, **args)
    got = [m.value.decode() for _, m in zip(range(COUNT), consumer, strict=False)]
    consumer.close()
    assert got == VALUES


@WITH_AND_WITHOUT
def test_aiokafka(listeners: Listeners, with_cert: bool) -> None:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    context = ssl.create_default_context(cafile=str(listeners.ca.ca_pem))
    if with_cert:
        context.load_cert_chain(str(listeners.client.cert_pem), str(listeners.client.key_pem))
    args: dict[str, Any] = {
        "bootstrap_servers": listeners.address(with_cert),
        "security_protocol": "SSL",
        "ssl_context": context,
    }
    topic = listeners.topic()

    async def run() -> list[str]:
        producer = AIOKafkaProducer(**args)
        await producer.start()
        try:
            for value in VALUES:
                await producer.send_and_wait(topic, value.encode())
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(topic, auto_offset_reset="earliest", **args)
        await consumer.start()
        try:
            async with asyncio.timeout(30):
                return [(await consumer.getone()).value.decode() for _ in VALUES]
        finally:
            await consumer.stop()

    assert asyncio.run(run()) == VALUES


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed")
@WITH_AND_WITHOUT
def test_kcat(listeners: Listeners, with_cert: bool) -> None:
    options = {
        "bootstrap.servers": listeners.address(with_cert),
        "security.protocol": "SSL",
        "ssl.ca.location": str(listeners.ca.ca_pem),
    }
    if with_cert:
        options |= {
            "ssl.certificate.location": str(listeners.client.cert_pem),
            "ssl.key.location": str(listeners.client.key_pem),
        }
    args = [arg for k, v in options.items() for arg in ("-X", f"{k}={v}")]
    topic = listeners.topic()
    subprocess.run(
        ["kcat", *args, "-P", "-t", topic], input="\n".join(VALUES) + "\n", text=True,
        check=True, timeout=60,
    )  # fmt: skip
    out = subprocess.run(
        ["kcat", *args, "-C", "-t", topic, "-o", "beginning", "-e"],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    assert out.stdout.split() == VALUES


@pytest.mark.skipif(
    not brokers.jars_available()
    or not (kafka_dist.libs_dir(kafka_dist.KAFKA4) / ".complete").exists()
    or shutil.which("keytool") is None,
    reason="needs java, keytool and Kafka's jars (make kafka-jars fetches them)",
)
@WITH_AND_WITHOUT
def test_java_console_tools(listeners: Listeners, with_cert: bool, tmp_path: Path) -> None:
    properties = tmp_path / "client.properties"
    text = (
        f"security.protocol=SSL\nssl.truststore.location={listeners.ca.java_truststore()}\n"
        f"ssl.truststore.type=PKCS12\nssl.truststore.password={PASSWORD}\n"
    )
    if with_cert:
        text += (
            f"ssl.keystore.location={java_keystore(listeners.client)}\n"
            f"ssl.keystore.type=PKCS12\nssl.keystore.password={PASSWORD}\n"
            f"ssl.key.password={PASSWORD}\n"
        )
    properties.write_text(text)
    topic = listeners.topic()
    bootstrap = listeners.address(with_cert)
    produced = subprocess.run(
        java_command(
            "org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server", bootstrap,
            "--topic", topic, "--command-config", str(properties),
        ),
        input="\n".join(VALUES) + "\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert produced.returncode == 0, produced.stderr[-2000:]
    consumed = subprocess.run(
        java_command(
            "org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server", bootstrap,
            "--topic", topic, "--from-beginning", "--max-messages", str(COUNT),
            "--timeout-ms", "60000", "--command-config", str(properties),
        ),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert consumed.returncode == 0, consumed.stderr[-2000:]
    assert consumed.stdout.split() == VALUES
