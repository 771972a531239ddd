"""The SASL broker of the security tests: `ferrolog.secured.SecuredBroker` (PLAINTEXT to set
things up, SSL, SASL_PLAINTEXT and SASL_SSL, each SASL listener offering PLAIN and
SCRAM-SHA-256/512), with users alice, bob and admin; the tests log alice in with PLAIN and
bob with SCRAM."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from ferrolog.secured import MECHANISMS, SecuredBroker, plain_jaas

__all__ = ["JAAS", "MECHANISMS", "USERS", "SaslBroker", "credentials", "sasl_broker"]

USERS = {"PLAIN": ("alice", "alice-secret"), "SCRAM": ("bob", "bob-secret")}
PASSWORDS = {"alice": "alice-secret", "bob": "bob-secret", "admin": "admin-secret"}
# A PLAIN login line for the brokers the tests start themselves.
JAAS = plain_jaas({"admin": "admin-secret", "alice": "alice-secret"})


def credentials(mechanism: str) -> tuple[str, str]:
    return USERS["PLAIN" if mechanism == "PLAIN" else "SCRAM"]


class SaslBroker(SecuredBroker):
    def librdkafka(self, protocol: str, mechanism: str, password: str | None = None) -> dict:
        user, secret = credentials(mechanism)
        config = self.client_config(user, mechanism, protocol)
        config["sasl.password"] = secret if password is None else password
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
def sasl_broker() -> Iterator[SaslBroker]:
    # No wait before a new group's first rebalance: each consumer here is its group's only
    # member (Kafka's 3 s default would add 3 s to each consuming test).
    with SaslBroker(PASSWORDS, overrides={"group.initial.rebalance.delay.ms": "0"}) as broker:
        yield broker
