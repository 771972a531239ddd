"""Fixtures of the cluster tests: one ZooKeeper for the session (each cluster under its own
chroot) and a factory of three-broker clusters that are killed at the end of each test, in
plaintext or with one secured listener that is also the inter-broker listener (`secure`)."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from ferrolog.certs import CertificateAuthority, broker_ssl_settings
from ferrolog.controller.scram.model import BY_NAME as SCRAM_MECHANISMS
from ferrolog.controller.scram.model import ScramCredential
from ferrolog.controller.store.zk_configs import encode_entity_config

from tests.cluster.harness import Cluster, ZooKeeper


def _zookeeper_available() -> bool:
    return shutil.which("java") is not None and Path("/usr/share/java/zookeeper.jar").exists()


@pytest.fixture(scope="session")
def zookeeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZooKeeper]:
    if not _zookeeper_available():
        pytest.skip("Debian's zookeeper package is not installed (make test-deps)")
    zk = ZooKeeper(tmp_path_factory.mktemp("zookeeper"))
    zk.start()
    try:
        yield zk
    finally:
        zk.stop()


@pytest.fixture
def cluster_factory(
    zookeeper: ZooKeeper, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Cluster]]:
    clusters: list[Cluster] = []

    def make(
        size: int = 3, security: tuple[str, str | None] | None = None, **overrides: str
    ) -> Cluster:
        """`security`: (protocol, SASL mechanism or None), as `secure` takes them."""
        cluster = Cluster(zookeeper, tmp_path / f"cluster-{len(clusters)}", size, **overrides)
        clusters.append(cluster)
        try:
            if security is not None:
                secure(cluster, *security)
            return cluster.start()
        except BaseException:
            _print_log_tails(cluster)
            raise

    yield make
    failed = request.node.rep_call.failed if hasattr(request.node, "rep_call") else False
    for cluster in clusters:
        if failed:
            _print_log_tails(cluster)
        cluster.stop()


def _print_log_tails(cluster: Cluster) -> None:
    for broker in cluster.brokers.values():
        print(f"--- broker {broker.node_id} log tail ---\n{broker.log_tail(60)}")


PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
BROKER_LOGIN = ("broker", "broker-secret")  # the brokers' own login towards each other
CLIENT_LOGIN = ("alice", "alice-secret")  # a PLAIN user of the tests' clients


def secure(cluster: Cluster, protocol: str, mechanism: str | None) -> None:
    """Before the start: each broker's one listener becomes `protocol` and is the inter-broker
    listener (SSL with ssl.client.auth=required); with SASL, the brokers log in to each other
    with `mechanism`, clients with PLAIN. The harness's clients get the matching settings."""
    ca = CertificateAuthority(cluster.workdir / "ca")
    issued, client = ca.broker(), ca.client()
    settings = {
        "inter.broker.listener.name": protocol,
        **broker_ssl_settings(issued, ca, "PKCS12"),
    }
    client_config = {"security.protocol": protocol, "ssl.ca.location": str(ca.ca_pem)}
    # The same for Kafka's tools and `ferrolog verify-replicas` (`--command-config`).
    command_config = [
        f"security.protocol={protocol}",
        "ssl.truststore.type=PEM",
        f"ssl.truststore.location={ca.ca_pem}",
    ]
    if protocol == "SSL":
        settings["ssl.client.auth"] = "required"
        client_config["ssl.certificate.location"] = str(client.cert_pem)
        client_config["ssl.key.location"] = str(client.key_pem)
        keystore = cluster.workdir / "client-keystore.pem"  # key and chain in one file (KIP-651)
        keystore.write_text(client.key_pem.read_text() + client.cert_pem.read_text())
        command_config += ["ssl.keystore.type=PEM", f"ssl.keystore.location={keystore}"]
    if mechanism is not None:
        user, password = BROKER_LOGIN
        own = f'username="{user}" password="{password}"'
        plain_users = f'user_{user}="{password}" user_{CLIENT_LOGIN[0]}="{CLIENT_LOGIN[1]}"'
        prefix = f"listener.name.{protocol.lower()}"
        settings.update(
            {
                "sasl.enabled.mechanisms": ",".join(dict.fromkeys(["PLAIN", mechanism])),
                "sasl.mechanism.inter.broker.protocol": mechanism,
                f"{prefix}.plain.sasl.jaas.config": f"{PLAIN_MODULE} required {own} {plain_users};",
            }
        )
        if mechanism != "PLAIN":
            settings[f"{prefix}.{mechanism.lower()}.sasl.jaas.config"] = (
                f"{SCRAM_MODULE} required {own};"
            )
            seed_scram_credential(cluster, mechanism, user, password)
        client_config.update(
            {"sasl.mechanism": "PLAIN", "sasl.username": CLIENT_LOGIN[0],
             "sasl.password": CLIENT_LOGIN[1]}
        )  # fmt: skip
        command_config += [
            "sasl.mechanism=PLAIN",
            f"sasl.jaas.config={PLAIN_MODULE} required"
            f' username="{CLIENT_LOGIN[0]}" password="{CLIENT_LOGIN[1]}";',
        ]
    for broker in cluster.brokers.values():
        broker.overrides.update({"listeners": f"{protocol}://127.0.0.1:{broker.port}", **settings})
    cluster.client_config = client_config
    cluster.command_config = cluster.workdir / "client.properties"
    cluster.command_config.write_text("\n".join(command_config) + "\n")


def seed_scram_credential(cluster: Cluster, mechanism: str, user: str, password: str) -> None:
    """The brokers' SCRAM credential, written to ZooKeeper before they start (as Kafka's docs
    have it done with kafka-configs --zookeeper): they need it to reach each other at all."""
    info = SCRAM_MECHANISMS[mechanism]
    salt = os.urandom(16)
    salted = hashlib.pbkdf2_hmac(info.hash_name, password.encode(), salt, 4096)
    credential = ScramCredential.from_salted_password(info, salt, salted, 4096)
    client = cluster.zk.client()
    try:
        client.create(
            f"{cluster.chroot}/config/users/{user}",
            encode_entity_config({mechanism: credential.to_config()}),
            makepath=True,
        )
    finally:
        client.stop()
        client.close()


@pytest.fixture
def cluster(cluster_factory: Callable[..., Cluster]) -> Cluster:
    return cluster_factory()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    report = yield
    if call.when == "call":
        item.rep_call = report  # type: ignore[attr-defined]
    return report
