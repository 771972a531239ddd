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

from ferrolog.config import jaas
from ferrolog.errors import InvalidConfigError

if TYPE_CHECKING:
    from ferrolog.config.broker import BrokerConfig

# Kafka's `sasl.mechanism.inter.broker.protocol` values ferrolog's brokers can log in with.
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
LOGIN_MODULES = {
    "PLAIN": jaas.PLAIN_LOGIN_MODULE,
    "SCRAM-SHA-256": jaas.SCRAM_LOGIN_MODULE,
    "SCRAM-SHA-512": jaas.SCRAM_LOGIN_MODULE,
}


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
    return InterBrokerClient(listener, protocol, context, sasl_login(config))


def sasl_login(config: BrokerConfig) -> SaslLogin | None:
    """The broker's own login over a SASL inter-broker listener (None for the others), as
    Kafka takes it: `sasl.mechanism.inter.broker.protocol`, which the listener must enable,
    and the `username` and `password` options of the listener's JAAS line for that mechanism
    (`listener.name.<inter>.<mechanism>.sasl.jaas.config`). InvalidConfigError says what is
    missing; the message never holds the password.

    None for a single broker (no zookeeper.connect) too: it never connects to another, so,
    as with TLS's trust store, a laptop broker whose one listener is SASL is served without
    a login of its own (Kafka would insist on one)."""
    listener = config.inter_broker_listener_name
    if not config.zookeeper_connect or not config.security_protocol(listener).startswith("SASL_"):
        return None
    mechanism = (config.get("sasl.mechanism.inter.broker.protocol") or "").strip().upper()
    if mechanism not in SASL_MECHANISMS:
        # Kafka's default is GSSAPI (Kerberos); OAUTHBEARER needs a token endpoint.
        raise InvalidConfigError(
            f"sasl.mechanism.inter.broker.protocol {mechanism}: ferrolog does not support "
            f"{mechanism or 'it'}; brokers authenticate to each other with "
            f"{', '.join(SASL_MECHANISMS)} (inter-broker listener {listener})"
        )
    if mechanism not in config.sasl_mechanisms(listener):
        raise InvalidConfigError(
            f"sasl.mechanism.inter.broker.protocol {mechanism} must be included in "
            f"sasl.enabled.mechanisms of the inter-broker listener {listener}"
        )
    prefix = f"listener.name.{listener.lower()}.{mechanism.lower()}"
    for module in config.jaas_modules(listener, mechanism):
        options = module.options
        if module.name == LOGIN_MODULES[mechanism] and {"username", "password"} <= options.keys():
            return SaslLogin(mechanism, options["username"], options["password"])
    raise InvalidConfigError(
        f"inter-broker listener {listener}: {prefix}.sasl.jaas.config needs "
        f"{LOGIN_MODULES[mechanism]} with username and password, the broker's own "
        "credentials towards the other brokers"
    )


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
