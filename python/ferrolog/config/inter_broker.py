"""How this broker reaches the others: Kafka's inter-broker listener and its security, for the
control plane's own broker-to-broker connections (`BrokerChannel`: WriteTxnMarkers, the
transaction verification it forwards, the lag metrics' offsets). The native replica fetchers
connect the same way; their TLS material comes from the same reading of the key and trust
stores (`ferrolog_native.inter_broker_tls`), so both present and trust exactly the same."""

from __future__ import annotations

import base64
import os
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ferrolog.config.broker import BrokerConfig

# Kafka's `sasl.mechanism.inter.broker.protocol` values ferrolog's brokers can log in with.
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")


@dataclass(frozen=True)
class SaslLogin:
    """The broker's own SASL identity towards the others."""

    mechanism: str
    username: str
    password: str = field(repr=False)

    def as_tuple(self) -> tuple[str, str, str]:
        """For `ferrolog_native.Server(..., inter_broker_sasl=...)`."""
        return (self.mechanism, self.username, self.password)


@dataclass(frozen=True)
class InterBrokerClient:
    """The inter-broker listener's name, its security protocol, and what connecting over it
    takes: a TLS context (SSL, SASL_SSL) and a SASL login (SASL_PLAINTEXT, SASL_SSL)."""

    listener: str = "PLAINTEXT"
    protocol: str = "PLAINTEXT"
    ssl_context: ssl.SSLContext | None = None
    sasl: SaslLogin | None = None


def inter_broker_client(config: BrokerConfig) -> InterBrokerClient:
    """The inter-broker client of a broker with `config`. Raises ValueError when its TLS
    stores cannot be read (a single broker with an SSL listener and no trust store never
    needs them, so callers build this only when they connect)."""
    listener = config.inter_broker_listener_name
    protocol = config.security_protocol(listener)
    context = None
    if protocol in ("SSL", "SASL_SSL"):
        context = tls_context(config.native_server_config())
    return InterBrokerClient(listener, protocol, context, None)


def tls_context(native_config: Mapping[str, str]) -> ssl.SSLContext | None:
    """The client TLS context of the inter-broker listener of a broker whose resolved native
    config is `native_config`; None when the listener has no TLS. Raises ValueError when the
    stores cannot be read."""
    import ferrolog_native

    material = ferrolog_native.inter_broker_tls(dict(native_config))
    if material is None:
        return None
    chain, key, kind, trusted, check_name = material
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    context.check_hostname = check_name
    context.load_verify_locations(cadata=b"".join(trusted))
    label = {"PKCS8": "PRIVATE KEY", "SEC1": "EC PRIVATE KEY", "PKCS1": "RSA PRIVATE KEY"}[kind]
    pem = "".join(ssl.DER_cert_to_PEM_cert(cert) for cert in chain) + _pem(label, key)
    # Python's ssl reads a certificate and key only from a file: one readable by this user
    # alone, gone as soon as it is read.
    fd, path = tempfile.mkstemp(prefix="ferrolog-inter-broker-", suffix=".pem")
    try:
        with os.fdopen(fd, "w") as file:
            file.write(pem)
        context.load_cert_chain(path)
    finally:
        os.unlink(path)
    return context


def _pem(label: str, der: bytes) -> str:
    body = base64.encodebytes(der).decode().replace("\n", "")
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----", ""])
