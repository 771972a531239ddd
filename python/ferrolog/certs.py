"""A throwaway certificate authority, for testing secured clients against a secured broker
(`ferrolog.secured`, and ferrolog's own tests): a CA, a broker certificate for 127.0.0.1 and
localhost, client certificates, and the key and trust stores brokers and clients read (PEM
files, PKCS12 files, and a PKCS12 trust store written by the JDK's keytool for the Java
client). Needs `cryptography` (`pip install 'ferrolog[testing]'`): the maintained X.509 and
PKCS12 library of the Python Cryptographic Authority."""

from __future__ import annotations

import datetime
import ipaddress
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

PASSWORD = "ferrolog-secret"


def _name(**attributes: str) -> x509.Name:
    oids = {"C": NameOID.COUNTRY_NAME, "O": NameOID.ORGANIZATION_NAME,
            "OU": NameOID.ORGANIZATIONAL_UNIT_NAME, "CN": NameOID.COMMON_NAME}  # fmt: skip
    return x509.Name([x509.NameAttribute(oids[k], v) for k, v in attributes.items()])


@dataclass
class Issued:
    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate
    cert_pem: Path
    key_pem: Path
    # key and chain in one PEM file (KIP-651's ssl.keystore.location with type PEM)
    keystore_pem: Path
    keystore_p12: Path


class CertificateAuthority:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        subject = _name(C="US", O="ferrolog tests", CN="ferrolog test CA")
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .sign(self.key, hashes.SHA256())
        )
        self.ca_pem = self.dir / "ca.pem"
        self.ca_pem.write_bytes(self.cert.public_bytes(serialization.Encoding.PEM))

    def issue(self, label: str, subject: x509.Name, server: bool) -> Issued:
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        builder = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                # A broker's certificate serves clients and, as Kafka's brokers present their
                # key store to each other, is the client certificate between brokers.
                x509.ExtendedKeyUsage(
                    [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
                    if server
                    else [ExtendedKeyUsageOID.CLIENT_AUTH]
                ),
                critical=False,
            )
        )
        if server:
            builder = builder.add_extension(
                x509.SubjectAlternativeName(
                    [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
                ),
                critical=False,
            )
        cert = builder.sign(self.key, hashes.SHA256())
        cert_pem = cert.public_bytes(serialization.Encoding.PEM)
        key_pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        ca_pem = self.cert.public_bytes(serialization.Encoding.PEM)
        issued = Issued(
            key=key,
            cert=cert,
            cert_pem=self.dir / f"{label}.crt.pem",
            key_pem=self.dir / f"{label}.key.pem",
            keystore_pem=self.dir / f"{label}.keystore.pem",
            keystore_p12=self.dir / f"{label}.keystore.p12",
        )
        issued.cert_pem.write_bytes(cert_pem)
        issued.key_pem.write_bytes(key_pem)
        issued.keystore_pem.write_bytes(key_pem + cert_pem + ca_pem)
        issued.keystore_p12.write_bytes(
            pkcs12.serialize_key_and_certificates(
                label.encode(),
                key,
                cert,
                [self.cert],
                serialization.BestAvailableEncryption(PASSWORD.encode()),
            )
        )
        return issued

    def broker(self) -> Issued:
        return self.issue("broker", _name(C="US", O="ferrolog", CN="localhost"), server=True)

    def client(self, cn: str = "client") -> Issued:
        return self.issue(cn, _name(C="US", O="ferrolog", OU="tests", CN=cn), server=False)

    def java_truststore(self) -> Path:
        """A PKCS12 trust store with the CA, written by keytool as Java users make them."""
        path = self.dir / "truststore.p12"
        if not path.exists():
            keytool = shutil.which("keytool")
            assert keytool is not None, "keytool is needed for a Java trust store"
            subprocess.run(
                [keytool, "-importcert", "-noprompt", "-alias", "ca", "-file", str(self.ca_pem),
                 "-keystore", str(path), "-storetype", "PKCS12", "-storepass", PASSWORD],
                check=True, capture_output=True,
            )  # fmt: skip
        return path


def java_keystore(issued: Issued) -> Path:
    """`issued`'s PKCS12 key store rewritten by keytool, as a Java shop would hand it over."""
    path = issued.keystore_p12.with_suffix(".java.p12")
    if not path.exists():
        keytool = shutil.which("keytool")
        assert keytool is not None, "keytool is needed for a Java key store"
        subprocess.run(
            [
                keytool,
                "-importkeystore",
                "-noprompt",
                "-srckeystore",
                str(issued.keystore_p12),
                "-srcstoretype",
                "PKCS12",
                "-srcstorepass",
                PASSWORD,
                "-destkeystore",
                str(path),
                "-deststoretype",
                "PKCS12",
                "-deststorepass",
                PASSWORD,
            ],
            check=True,
            capture_output=True,
        )
    return path


def broker_ssl_settings(issued: Issued, ca: CertificateAuthority, kind: str) -> dict[str, str]:
    """The broker's `ssl.*` properties for its key store in format `kind`."""
    if kind == "PKCS12":
        return {
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.location": str(issued.keystore_p12),
            "ssl.keystore.password": PASSWORD,
            "ssl.key.password": PASSWORD,
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(ca.ca_pem),
        }
    if kind == "PEM-inline":
        return {
            "ssl.keystore.type": "PEM",
            "ssl.keystore.key": issued.key_pem.read_text(),
            "ssl.keystore.certificate.chain": issued.cert_pem.read_text(),
            "ssl.truststore.type": "PEM",
            "ssl.truststore.certificates": ca.ca_pem.read_text(),
        }
    return {
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(issued.keystore_pem),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(ca.ca_pem),
    }
