"""The client side of a SASL inter-broker listener, against Apache Kafka 4.1 itself (a KRaft
broker with a SASL_PLAINTEXT listener, PLAIN users in its JAAS line and SCRAM users written
by `kafka-storage format --add-scram`): the native replica fetchers' connection
(`ferrolog_native.probe_broker` connects exactly as a fetcher does) and the control plane's
`BrokerChannel` log in with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 as Kafka's Java client
does, and a wrong password or user is refused with Kafka's error."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from ferrolog.client.channel import BrokerChannel
from ferrolog.client.sasl import SaslError
from ferrolog.config.inter_broker import InterBrokerClient, SaslLogin
from ferrolog.ports import free_port
from ferrolog.protocol.messages import Apis

from bench.harness import brokers, kafka_dist
from tests.cluster.harness import needs_kafka_jars

pytestmark = [pytest.mark.native, needs_kafka_jars]

fn = pytest.importorskip("ferrolog_native")

FETCH, API_VERSIONS = 1, 18
PLAIN_JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" user_admin="admin-secret" '
    'user_alice="alice-secret";'
)
SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
LOGINS = [
    SaslLogin("PLAIN", "alice", "alice-secret"),
    SaslLogin("SCRAM-SHA-256", "bob", "bob-secret"),
    SaslLogin("SCRAM-SHA-512", "carol", "carol-secret"),
]


def _java(main: str, *args: str) -> list[str]:
    return ["java", "-Xmx512m", "-cp", kafka_dist.classpath(kafka_dist.KAFKA4), main, *args]


@pytest.fixture(scope="module")
def kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """Apache Kafka 4.1 with one SASL_PLAINTEXT listener offering the three mechanisms."""
    workdir = tmp_path_factory.mktemp("kafka-sasl")
    port, controller = free_port(), free_port()
    listener = "listener.name.sasl_plaintext"
    props = {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.voters": f"1@127.0.0.1:{controller}",
        "listeners": f"SASL_PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}",
        "advertised.listeners": f"SASL_PLAINTEXT://127.0.0.1:{port}",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name": "SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "sasl.mechanism.inter.broker.protocol": "PLAIN",
        f"{listener}.plain.sasl.jaas.config": PLAIN_JAAS,
        f"{listener}.scram-sha-256.sasl.jaas.config": SCRAM_JAAS,
        f"{listener}.scram-sha-512.sasl.jaas.config": SCRAM_JAAS,
        "offsets.topic.replication.factor": "1",
        "transaction.state.log.replication.factor": "1",
        "log.dirs": str(workdir / "data"),
    }
    config = workdir / "server.properties"
    config.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    subprocess.run(
        _java(
            "kafka.tools.StorageTool", "format", "-t", brokers.new_cluster_id(),
            "-c", str(config),
            "--add-scram", "SCRAM-SHA-256=[name=bob,password=bob-secret]",
            "--add-scram", "SCRAM-SHA-512=[name=carol,password=carol-secret]",
        ),
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    log = open(workdir / "kafka.out", "wb")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen(_java("kafka.Kafka", str(config)), stdout=log, stderr=log)
    log.close()
    try:
        brokers.wait_port(port, 90, proc)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def probe(port: int, login: SaslLogin) -> list[int]:
    """The native fetchers' connection to Kafka's SASL_PLAINTEXT listener."""
    return fn.probe_broker({}, "SASL_PLAINTEXT", "SASL_PLAINTEXT", "127.0.0.1", port,
                           login.as_tuple())  # fmt: skip


def ask(port: int, login: SaslLogin) -> int:
    """ApiVersions over the control plane's channel; its error code."""

    async def run() -> int:
        client = InterBrokerClient("SASL_PLAINTEXT", "SASL_PLAINTEXT", None, login)
        channel = BrokerChannel(7, lambda node: ("127.0.0.1", port), lambda: client)
        try:
            body = {"client_software_name": "ferrolog-tests", "client_software_version": "1"}
            response = await channel.request(1, Apis.API_VERSIONS, 3, body)
        finally:
            await channel.aclose()
        return int(response["error_code"])

    return asyncio.run(run())


@pytest.mark.parametrize("login", LOGINS, ids=lambda login: login.mechanism)
def test_the_fetchers_connection_logs_in(kafka: int, login: SaslLogin) -> None:
    keys = probe(kafka, login)
    assert FETCH in keys
    assert API_VERSIONS in keys


@pytest.mark.parametrize("login", LOGINS, ids=lambda login: login.mechanism)
def test_the_control_planes_channel_logs_in(kafka: int, login: SaslLogin) -> None:
    assert ask(kafka, login) == 0


@pytest.mark.parametrize(
    "login",
    [
        SaslLogin("PLAIN", "alice", "wrong"),
        SaslLogin("PLAIN", "mallory", "alice-secret"),
        SaslLogin("SCRAM-SHA-256", "bob", "wrong"),
        SaslLogin("SCRAM-SHA-512", "carol", "bob-secret"),
        # bob has no SCRAM-SHA-512 credential
        SaslLogin("SCRAM-SHA-512", "bob", "bob-secret"),
    ],
    ids=lambda login: f"{login.mechanism}-{login.username}-{login.password}",
)
def test_wrong_credentials_are_refused_with_kafkas_error(kafka: int, login: SaslLogin) -> None:
    # 58: SASL_AUTHENTICATION_FAILED, with Kafka's message.
    with pytest.raises(ConnectionError, match="error 58"):
        probe(kafka, login)
    with pytest.raises(SaslError, match="error 58"):
        ask(kafka, login)


def test_a_mechanism_the_broker_does_not_offer(tmp_path: Path, kafka: int) -> None:
    with pytest.raises(ValueError, match="PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"):
        fn.probe_broker({}, "SASL_PLAINTEXT", "SASL_PLAINTEXT", "127.0.0.1", kafka,
                        ("GSSAPI", "a", "b"))  # fmt: skip
