"""A secured single broker for testing secured clients: TLS with certificates from a
throwaway CA, and SASL users, started like `EmbeddedBroker` (and by the `ferrolog_secured_broker`
pytest fixture).

    with SecuredBroker(users={"alice": "alice-secret"}) as broker:
        producer = confluent_kafka.Producer(broker.client_config("alice"))

Its listeners, each on a free loopback port:
- `SASL_SSL` (the bootstrap servers) and `SASL_PLAINTEXT`: PLAIN, SCRAM-SHA-256 and
  SCRAM-SHA-512, every user under each mechanism;
- `SSL`: TLS, a client certificate requested (its principal is `User:<subject DN>`);
- `PLAINTEXT`: how the broker itself is set up (the SCRAM credentials), for admin tasks.

The CA, the broker's and a client's certificate and key are PEM files in `work_dir`
(`ca.ca_pem`, `client_certificate`), with PKCS12 stores beside them, removed on close."""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ferrolog.certs import CertificateAuthority, Issued, broker_ssl_settings
from ferrolog.embedded import EmbeddedBroker
from ferrolog.ports import free_port

MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
LISTENERS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_ITERATIONS = 4096


def plain_jaas(users: Mapping[str, str]) -> str:
    """Kafka's PlainLoginModule line with `users` as its `user_<name>` entries."""
    entries = " ".join(f'user_{name}="{password}"' for name, password in users.items())
    return f"{PLAIN_LOGIN_MODULE} required {entries};"


def add_scram_users(
    bootstrap: str,
    users: Mapping[str, str],
    mechanisms: tuple[str, ...] = ("SCRAM-SHA-256", "SCRAM-SHA-512"),
) -> None:
    """Gives each of `users` (name -> password) a SCRAM credential of each of `mechanisms`,
    through the broker's own API at `bootstrap`, as `kafka-configs` would: the credentials
    land where the broker keeps them."""
    # confluent-kafka's stubs do not re-export its SCRAM types.
    from confluent_kafka.admin import (  # type: ignore[attr-defined]
        AdminClient,
        ScramCredentialInfo,
        ScramMechanism,
        UserScramCredentialUpsertion,
    )

    admin = AdminClient({"bootstrap.servers": bootstrap})
    by_name = {
        "SCRAM-SHA-256": ScramMechanism.SCRAM_SHA_256,
        "SCRAM-SHA-512": ScramMechanism.SCRAM_SHA_512,
    }
    upserts = [
        UserScramCredentialUpsertion(
            user, ScramCredentialInfo(by_name[mechanism], SCRAM_ITERATIONS), password.encode()
        )
        for user, password in users.items()
        for mechanism in mechanisms
    ]
    for future in admin.alter_user_scram_credentials(upserts).values():  # type: ignore[arg-type]
        future.result(30)


class SecuredBroker:
    def __init__(
        self,
        users: Mapping[str, str] | None = None,
        *,
        overrides: Mapping[str, str] | None = None,
        in_process: bool = False,
    ) -> None:
        self.users = dict(users or {"alice": "alice-secret"})
        self.ports = {name: free_port() for name in LISTENERS}
        self.work_dir = Path(tempfile.mkdtemp(prefix="ferrolog-secured-"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, self.work_dir, True)
        self.ca = CertificateAuthority(self.work_dir)
        self.client_certificate: Issued = self.ca.client()
        jaas = plain_jaas(self.users)
        self._broker = EmbeddedBroker(
            in_process=in_process,
            overrides={
                "listeners": ",".join(f"{n}://127.0.0.1:{p}" for n, p in self.ports.items()),
                "sasl.enabled.mechanisms": ",".join(MECHANISMS),
                "listener.name.sasl_plaintext.plain.sasl.jaas.config": jaas,
                "listener.name.sasl_ssl.plain.sasl.jaas.config": jaas,
                "listener.name.ssl.ssl.client.auth": "requested",
                **broker_ssl_settings(self.ca.broker(), self.ca, "PEM"),
                **(overrides or {}),
            },
        )

    @property
    def embedded(self) -> EmbeddedBroker:
        return self._broker

    @property
    def bootstrap_servers(self) -> str:
        return self.address("SASL_SSL")

    def address(self, listener: str) -> str:
        return f"127.0.0.1:{self.ports[listener]}"

    def client_config(
        self, user: str, mechanism: str = "SCRAM-SHA-512", protocol: str = "SASL_SSL"
    ) -> dict[str, Any]:
        """confluent-kafka (librdkafka) settings for `user` on the SASL listener `protocol`."""
        config: dict[str, Any] = {
            "bootstrap.servers": self.address(protocol),
            "security.protocol": protocol,
            "sasl.mechanism": mechanism,
            "sasl.username": user,
            "sasl.password": self.users[user],
        }
        if protocol == "SASL_SSL":
            config["ssl.ca.location"] = str(self.ca.ca_pem)
        return config

    def ssl_client_config(self, certificate: bool = True) -> dict[str, Any]:
        """confluent-kafka settings for the SSL listener, with the client certificate or
        without (then the principal is `User:ANONYMOUS`)."""
        config: dict[str, Any] = {
            "bootstrap.servers": self.address("SSL"),
            "security.protocol": "SSL",
            "ssl.ca.location": str(self.ca.ca_pem),
        }
        if certificate:
            config["ssl.certificate.location"] = str(self.client_certificate.cert_pem)
            config["ssl.key.location"] = str(self.client_certificate.key_pem)
        return config

    def start(self) -> SecuredBroker:
        self._broker.start()
        try:
            add_scram_users(self.address("PLAINTEXT"), self.users)
        except BaseException:
            self._broker.close()
            raise
        return self

    def close(self) -> None:
        self._broker.close()
        self._cleanup()

    def __enter__(self) -> SecuredBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
