"""A broker with SASL listeners for the tests that need one: PLAINTEXT (to set things up),
SASL_PLAINTEXT and SASL_SSL, each offering PLAIN (users from the listener's JAAS line) and
SCRAM-SHA-256/512 (a user created through AlterUserScramCredentials, as `kafka-configs`
does)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)
from ferrolog.embedded import EmbeddedBroker

from tests.cluster.harness import free_port
from tests.tls_certs import CertificateAuthority, broker_ssl_settings

MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
USERS = {"PLAIN": ("alice", "alice-secret"), "SCRAM": ("bob", "bob-secret")}
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" '
    'user_admin="admin-secret" user_alice="alice-secret";'
)


def credentials(mechanism: str) -> tuple[str, str]:
    return USERS["PLAIN" if mechanism == "PLAIN" else "SCRAM"]


@dataclass
class SaslBroker:
    broker: EmbeddedBroker
    ca: CertificateAuthority
    ports: dict[str, int]

    def address(self, listener: str) -> str:
        return f"127.0.0.1:{self.ports[listener]}"

    def librdkafka(self, protocol: str, mechanism: str, password: str | None = None) -> dict:
        user, secret = credentials(mechanism)
        config: dict[str, Any] = {
            "bootstrap.servers": self.address(protocol),
            "security.protocol": protocol,
            "sasl.mechanism": mechanism,
            "sasl.username": user,
            "sasl.password": secret if password is None else password,
        }
        if protocol == "SASL_SSL":
            config["ssl.ca.location"] = str(self.ca.ca_pem)
        return config

    def kafka_python(self, protocol: str, mechanism: str) -> dict[str, Any]:
        """kafka-python's and aiokafka's settings (they share the names)."""
        user, secret = credentials(mechanism)
        return {
            "bootstrap_servers": self.address(protocol),
            "security_protocol": protocol,
            "sasl_mechanism": mechanism,
            "sasl_plain_username": user,
            "sasl_plain_password": secret,
        }


@pytest.fixture(scope="module")
def sasl_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SaslBroker]:
    ca = CertificateAuthority(tmp_path_factory.mktemp("ca"))
    ports = {name: free_port() for name in ("PLAINTEXT", "SASL_PLAINTEXT", "SASL_SSL")}
    broker = EmbeddedBroker(
        overrides={
            "listeners": ",".join(f"{name}://127.0.0.1:{port}" for name, port in ports.items()),
            "sasl.enabled.mechanisms": ",".join(MECHANISMS),
            "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
            "listener.name.sasl_ssl.plain.sasl.jaas.config": JAAS,
            **broker_ssl_settings(ca.broker(), ca, "PEM"),
        }
    ).start()
    try:
        admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{ports['PLAINTEXT']}"})
        user, secret = USERS["SCRAM"]
        upserts = [
            UserScramCredentialUpsertion(user, ScramCredentialInfo(m, 4096), secret.encode())
            for m in (ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512)
        ]
        for future in admin.alter_user_scram_credentials(upserts).values():
            future.result(20)
        yield SaslBroker(broker, ca, ports)
    finally:
        broker.close()
