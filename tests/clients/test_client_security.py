"""ferrolog's own clients' TLS settings (`ferrolog.client.security`, which the Spark source and
writer use) against a listener that requires a client certificate: an encrypted PEM key
unlocked with `ssl.key.password`, and a PKCS12 key store whose certificate an intermediate CA
issued, which the broker can only verify when the client sends the intermediate too."""

from __future__ import annotations

import datetime
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from ferrolog.client.connection import Connection
from ferrolog.client.security import ClientSecurity
from ferrolog.secured import SecuredBroker

pytestmark = pytest.mark.native

API_VERSIONS = 18
STORE_PASSWORD = "store-secret"


@pytest.fixture(scope="module")
def strict() -> Iterator[SecuredBroker]:
    with SecuredBroker(overrides={"listener.name.ssl.ssl.client.auth": "required"}) as broker:
        yield broker


def api_versions(broker: SecuredBroker, keystore: dict[str, str]) -> int:
    """ApiVersions over the SSL listener with `keystore`'s properties; its error code."""
    security = ClientSecurity.from_properties(
        {
            "security.protocol": "SSL",
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(broker.ca.ca_pem),
            **keystore,
        }
    )
    host, port = broker.address("SSL").split(":")
    with Connection(host, int(port), 10, "client-security", security=security) as conn:
        return int(conn.request(API_VERSIONS, 0, {})["error_code"])


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _signed(
    subject: str,
    public_key: ec.EllipticCurvePublicKey,
    issuer: x509.Certificate,
    issuer_key: ec.EllipticCurvePrivateKey,
    ca: bool,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer.subject)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), True)
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True,
                crl_sign=True, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )  # fmt: skip
    else:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        )
    return builder.sign(issuer_key, hashes.SHA256())


def test_an_encrypted_pem_key_is_unlocked_with_ssl_key_password(strict: SecuredBroker) -> None:
    issued = strict.client_certificate
    encrypted = issued.key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"key-secret"),
    ).decode()
    keystore = {
        "ssl.keystore.type": "PEM",
        "ssl.keystore.certificate.chain": issued.cert_pem.read_text(),
        "ssl.keystore.key": encrypted,
    }
    assert api_versions(strict, {**keystore, "ssl.key.password": "key-secret"}) == 0
    # Without the password the key cannot be used, and no prompt waits on the terminal.
    with pytest.raises(ssl.SSLError, match="PEM lib"):
        api_versions(strict, keystore)
    # And without a certificate at all, the listener refuses the client.
    with pytest.raises(ssl.SSLError, match="CERTIFICATE_REQUIRED"):
        api_versions(strict, {})


def test_a_pkcs12_key_store_sends_its_intermediate_ca(
    strict: SecuredBroker, tmp_path: Path
) -> None:
    intermediate_key = ec.generate_private_key(ec.SECP256R1())
    intermediate = _signed(
        "ferrolog test intermediate CA",
        intermediate_key.public_key(),
        strict.ca.cert,
        strict.ca.key,
        ca=True,
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _signed("carol", key.public_key(), intermediate, intermediate_key, ca=False)

    def store(name: str, chain: list[x509.Certificate]) -> dict[str, str]:
        path = tmp_path / name
        path.write_bytes(
            pkcs12.serialize_key_and_certificates(
                b"carol", key, cert, chain,
                serialization.BestAvailableEncryption(STORE_PASSWORD.encode()),
            )
        )  # fmt: skip
        return {
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.location": str(path),
            "ssl.keystore.password": STORE_PASSWORD,
        }

    assert api_versions(strict, store("with-intermediate.p12", [intermediate])) == 0
    # The broker trusts the root CA only: without the intermediate it cannot verify carol.
    with pytest.raises(ssl.SSLError, match="UNKNOWN_CA"):
        api_versions(strict, store("alone.p12", []))


def test_librdkafka_properties_read_back_as_the_same_settings(strict: SecuredBroker) -> None:
    """ferrolog's commands take librdkafka's `-X` properties and some of them speak Kafka's
    protocol themselves (the ELR columns of `ferrolog topics describe`)."""
    issued = strict.client_certificate
    security = ClientSecurity.from_librdkafka(
        {
            "security.protocol": "ssl",
            "ssl.ca.location": str(strict.ca.ca_pem),
            "ssl.certificate.location": str(issued.cert_pem),
            "ssl.key.location": str(issued.key_pem),
        }
    )
    host, port = strict.address("SSL").split(":")
    with Connection(host, int(port), 10, "client-security", security=security) as conn:
        assert conn.request(API_VERSIONS, 0, {})["error_code"] == 0
    assert ClientSecurity.from_librdkafka(security.librdkafka()) == security
    sasl = ClientSecurity(
        protocol="SASL_PLAINTEXT", mechanism="SCRAM-SHA-512", username="u", password="p"
    )
    assert ClientSecurity.from_librdkafka(sasl.librdkafka()) == sasl
    with pytest.raises(ValueError, match="GSSAPI"):
        ClientSecurity.from_librdkafka({"security.protocol": "SASL_SSL"})
