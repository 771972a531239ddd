"""Brokers with the authorizer on, for the ACL tests: a PLAINTEXT listener whose
`User:ANONYMOUS` is a super user (the tests' administrator, as brokers reach each other in a
cluster), and an SSL listener that requires client certificates, whose principals are
`User:CN=<name>,OU=tests,O=ferrolog,C=US`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)
from ferrolog.certs import CertificateAuthority, Issued, broker_ssl_settings
from ferrolog.embedded import EmbeddedBroker
from ferrolog.ports import free_port
from ferrolog.protocol import decode_response, encode_request

from tests.broker.test_broker_basics import raw_exchange

AUTHORIZER = "kafka.security.authorizer.AclAuthorizer"


def principal(name: str) -> str:
    """The principal of the client certificate `CertificateAuthority.client(name)` issues."""
    return f"User:CN={name},OU=tests,O=ferrolog,C=US"


def secured_settings(ca: CertificateAuthority, broker_cert: Issued) -> dict[str, str]:
    """The authorizer on, `User:ANONYMOUS` (the PLAINTEXT listener's principal) a super user,
    client certificates required on the SSL listener."""
    return {
        "authorizer.class.name": AUTHORIZER,
        "super.users": "User:ANONYMOUS",
        "listener.name.ssl.ssl.client.auth": "required",
        **broker_ssl_settings(broker_cert, ca, "PEM"),
    }


class AclBroker:
    """A running secured broker, its CA and the client certificates issued so far."""

    def __init__(self, workdir: Path, overrides: dict[str, str] | None = None) -> None:
        self.ca = CertificateAuthority(workdir / "ca")
        plaintext, ssl_port = free_port(), free_port()
        self.plaintext = f"127.0.0.1:{plaintext}"
        self.ssl = f"127.0.0.1:{ssl_port}"
        self.broker = EmbeddedBroker(
            overrides={
                "listeners": f"PLAINTEXT://127.0.0.1:{plaintext},SSL://127.0.0.1:{ssl_port}",
                **secured_settings(self.ca, self.ca.broker()),
                **(overrides or {}),
            }
        )
        self.broker.start()
        self._certs: dict[str, Issued] = {}
        self.admin = AdminClient({"bootstrap.servers": self.plaintext})

    def close(self) -> None:
        self.broker.close()

    def client(self, name: str, **extra: Any) -> dict[str, Any]:
        """A client configuration for the SSL listener as principal `name`."""
        if name not in self._certs:
            self._certs[name] = self.ca.client(name)
        cert = self._certs[name]
        return {
            "bootstrap.servers": self.ssl,
            "security.protocol": "SSL",
            "ssl.ca.location": str(self.ca.ca_pem),
            "ssl.certificate.location": str(cert.cert_pem),
            "ssl.key.location": str(cert.key_pem),
            **extra,
        }

    def allow(
        self,
        name: str,
        resource_type: ResourceType,
        resource: str,
        *operations: AclOperation,
        pattern: ResourcePatternType = ResourcePatternType.LITERAL,
        permission: AclPermissionType = AclPermissionType.ALLOW,
    ) -> None:
        """Creates ACLs through the admin API as the super user (`name` "*": everyone)."""
        who = "User:*" if name == "*" else principal(name)
        bindings = [
            AclBinding(resource_type, resource, pattern, who, "*", op, permission)
            for op in operations
        ]
        for future in self.admin.create_acls(bindings, request_timeout=20).values():
            future.result()

    def deny(
        self, name: str, resource_type: ResourceType, resource: str, *operations: AclOperation
    ) -> None:
        self.allow(name, resource_type, resource, *operations, permission=AclPermissionType.DENY)


def request(bootstrap: str, api_key: int, version: int, body: dict[str, Any]) -> dict[str, Any]:
    """One request to exactly the broker at `bootstrap` (PLAINTEXT), with ferrolog's codec:
    clients pick brokers themselves, which tells nothing of one broker's own state."""
    response = raw_exchange(bootstrap, encode_request(api_key, version, 7, "acl-test", body))
    assert response is not None, "the broker closed the connection"
    correlation_id, decoded = decode_response(api_key, version, response)
    assert correlation_id == 7
    return decoded
