"""A Kafka client's security settings, by the Java client's property names, for ferrolog's own
clients (the Spark reader, the tools): TLS and SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512).

- `ClientSecurity.from_properties` reads `security.protocol`, `ssl.truststore.*`,
  `ssl.keystore.*`, `ssl.key.password`, `ssl.endpoint.identification.algorithm`,
  `sasl.mechanism` and `sasl.jaas.config` (the username and password of Kafka's
  PlainLoginModule or ScramLoginModule line, and ScramLoginModule's `tokenauth="true"`: a
  delegation token's id and HMAC), so Spark's `kafka.*` options work as they are.
- `wrap` puts TLS on a socket and `authenticate` runs the SASL exchange (`sasl`) on a
  blocking connection.
- `librdkafka` gives the same settings in librdkafka's names (the Spark writer's producer),
  and `from_librdkafka` reads them back (ferrolog's commands take librdkafka's `-X`).

PKCS12 stores (and JKS ones that are PKCS12 files, as keytool writes them since Java 9) are
read with `cryptography`, which Python's `ssl` module cannot do; PEM needs nothing more.
"""

from __future__ import annotations

import os
import socket
import ssl
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ferrolog.client import sasl
from ferrolog.config import jaas

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")


@dataclass(frozen=True)
class ClientSecurity:
    protocol: str = "PLAINTEXT"
    # PEM text of the trusted certificates (None: the system's).
    ca_pem: str | None = None
    # The client certificate chain (the client's own certificate first, then any intermediate
    # CAs) and its key, PEM (None: no client certificate).
    cert_pem: str | None = None
    key_pem: str | None = None
    # `ssl.key.password`: what an encrypted PEM key is unlocked with.
    key_password: str | None = None
    check_hostname: bool = True
    mechanism: str | None = None
    username: str = ""
    password: str = ""
    # SCRAM with a delegation token (`username` its id, `password` its HMAC in base64).
    token_auth: bool = False

    @property
    def tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def sasl(self) -> bool:
        return self.protocol.startswith("SASL_")

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> ClientSecurity:
        """From Kafka client properties (names as the Java client's, any case)."""
        p = {k.lower(): v for k, v in props.items()}
        protocol = p.get("security.protocol", "PLAINTEXT").upper()
        if protocol not in PROTOCOLS:
            raise ValueError(f"security.protocol {protocol} is not one of {PROTOCOLS}")
        ca_pem = cert_pem = key_pem = None
        if protocol in ("SSL", "SASL_SSL"):
            ca_pem = _truststore(p)
            cert_pem, key_pem = _keystore(p)
        mechanism = username = password = None
        options: dict[str, str] = {}
        if protocol.startswith("SASL_"):
            mechanism = p.get("sasl.mechanism", "GSSAPI").upper()
            if mechanism not in MECHANISMS:
                raise ValueError(f"sasl.mechanism {mechanism} is not one of {MECHANISMS}")
            for module in jaas.parse(p.get("sasl.jaas.config", "")):
                options.update(module.options)
            username, password = options.get("username"), options.get("password")
            if not username or password is None:
                raise ValueError("sasl.jaas.config needs username and password")
        return cls(
            protocol=protocol,
            ca_pem=ca_pem,
            cert_pem=cert_pem,
            key_pem=key_pem,
            key_password=p.get("ssl.key.password"),
            check_hostname=p.get("ssl.endpoint.identification.algorithm", "https") != "",
            mechanism=mechanism,
            username=username or "",
            password=password or "",
            token_auth=options.get("tokenauth", "false").lower() == "true",
        )

    @classmethod
    def from_librdkafka(cls, config: Mapping[str, Any]) -> ClientSecurity:
        """From librdkafka properties (what ferrolog's own commands take with `-X`), the
        inverse of `librdkafka`: certificates as `ssl.*.location` files or `ssl.*.pem`."""
        c = {k.lower(): str(v) for k, v in config.items()}
        protocol = c.get("security.protocol", "PLAINTEXT").upper()
        if protocol not in PROTOCOLS:
            raise ValueError(f"security.protocol {protocol} is not one of {PROTOCOLS}")

        def pem(name: str) -> str | None:
            if f"ssl.{name}.pem" in c:
                return c[f"ssl.{name}.pem"]
            location = c.get(f"ssl.{name}.location")
            return Path(location).read_text() if location else None

        mechanism = c.get("sasl.mechanism", c.get("sasl.mechanisms", "GSSAPI")).upper()
        if protocol.startswith("SASL_") and mechanism not in MECHANISMS:
            raise ValueError(f"sasl.mechanism {mechanism} is not one of {MECHANISMS}")
        tls = protocol in ("SSL", "SASL_SSL")
        return cls(
            protocol=protocol,
            ca_pem=pem("ca") if tls else None,
            cert_pem=pem("certificate") if tls else None,
            key_pem=pem("key") if tls else None,
            key_password=c.get("ssl.key.password"),
            check_hostname=c.get("ssl.endpoint.identification.algorithm", "https") != "none",
            mechanism=mechanism if protocol.startswith("SASL_") else None,
            username=c.get("sasl.username", ""),
            password=c.get("sasl.password", ""),
        )

    def ssl_context(self) -> ssl.SSLContext:
        context = (
            ssl.create_default_context(cadata=self.ca_pem)
            if self.ca_pem
            else (ssl.create_default_context())
        )
        context.check_hostname = self.check_hostname
        if self.cert_pem and self.key_pem:
            # An encrypted key without `ssl.key.password` fails here: without a password,
            # OpenSSL would prompt on the terminal for one.
            password = self.key_password if self.key_password is not None else _no_password
            with _files(self.cert_pem, self.key_pem) as (cert, key):
                context.load_cert_chain(cert, key, password=password)
        return context

    def wrap(self, sock: socket.socket, host: str) -> socket.socket:
        return self.ssl_context().wrap_socket(sock, server_hostname=host) if self.tls else sock

    def authenticate(self, call: Callable[[int, int, dict[str, Any]], dict[str, Any]]) -> None:
        """The SASL exchange (`ferrolog.client.sasl`) over a blocking `call(api_key, version,
        body) -> response body`; raises SaslError when the broker refuses."""
        if not self.sasl:
            return
        assert self.mechanism is not None
        sasl.run(sasl.exchange(self.mechanism, self.username, self.password, self.token_auth), call)

    def librdkafka(self) -> dict[str, Any]:
        """The same settings as librdkafka properties; ValueError for a delegation token,
        which librdkafka's SCRAM cannot present."""
        if self.token_auth:
            raise ValueError("librdkafka cannot authenticate with a delegation token (tokenauth)")
        config: dict[str, Any] = {"security.protocol": self.protocol}
        if self.tls:
            if self.ca_pem:
                config["ssl.ca.pem"] = self.ca_pem
            if self.cert_pem and self.key_pem:
                config["ssl.certificate.pem"] = self.cert_pem
                config["ssl.key.pem"] = self.key_pem
                if self.key_password is not None:
                    config["ssl.key.password"] = self.key_password
            config["ssl.endpoint.identification.algorithm"] = (
                "https" if self.check_hostname else "none"
            )
        if self.sasl:
            config.update(
                {
                    "sasl.mechanism": self.mechanism,
                    "sasl.username": self.username,
                    "sasl.password": self.password,
                }
            )
        return config


def _truststore(p: Mapping[str, str]) -> str | None:
    kind = p.get("ssl.truststore.type", "JKS").upper()
    if kind == "PEM":
        inline = p.get("ssl.truststore.certificates")
        if inline:
            return inline
        location = p.get("ssl.truststore.location")
        return Path(location).read_text() if location else None
    location = p.get("ssl.truststore.location")
    if not location:
        return None
    _, cert, others = _pkcs12(location, p.get("ssl.truststore.password"))
    return (cert or "") + (others or "") or None


def _keystore(p: Mapping[str, str]) -> tuple[str | None, str | None]:
    kind = p.get("ssl.keystore.type", "JKS").upper()
    if kind == "PEM":
        chain, key = p.get("ssl.keystore.certificate.chain"), p.get("ssl.keystore.key")
        if chain and key:
            return chain, key
        location = p.get("ssl.keystore.location")
        if location:
            text = Path(location).read_text()  # key and chain in one file, as Kafka takes it
            return text, text
        return None, None
    location = p.get("ssl.keystore.location")
    if not location:
        return None, None
    # The key's certificate first, then the rest of its chain (intermediate CAs), which the
    # broker needs to reach a CA it trusts.
    key, chain, others = _pkcs12(location, p.get("ssl.keystore.password"))
    return (chain + (others or "") if chain else None), key


def _pkcs12(location: str, password: str | None) -> tuple[str | None, str | None, str | None]:
    """(key, certificate chain, other certificates) of a PKCS12 file, as PEM."""
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.serialization import pkcs12
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ValueError(f"{location}: reading a PKCS12 store needs `cryptography`") from exc
    pem = serialization.Encoding.PEM
    store = pkcs12.load_pkcs12(Path(location).read_bytes(), password.encode() if password else None)
    key = chain = None
    if store.key is not None:
        key = store.key.private_bytes(
            pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
    if store.cert is not None:
        chain = store.cert.certificate.public_bytes(pem).decode()
    others = "".join(c.certificate.public_bytes(pem).decode() for c in store.additional_certs)
    return key, chain, others or None


def _no_password() -> bytes:
    return b""


class _files:
    """PEM texts in private temporary files for `load_cert_chain`, removed after."""

    def __init__(self, *texts: str) -> None:
        self._texts = texts
        self._paths: list[str] = []

    def __enter__(self) -> tuple[str, ...]:
        for text in self._texts:
            fd, path = tempfile.mkstemp(suffix=".pem")
            with os.fdopen(fd, "w") as f:
                f.write(text)
            self._paths.append(path)
        return tuple(self._paths)

    def __exit__(self, *exc: object) -> None:
        for path in self._paths:
            os.unlink(path)
