"""The client side of an SSL inter-broker listener, against a ferrolog broker whose SSL
listeners require client certificates: the native replica fetchers' connection
(`ferrolog_native.probe_broker` connects exactly as a fetcher does) and the control plane's
`BrokerChannel` present the broker's key store, trust its trust store, and check the other
broker's name per `ssl.endpoint.identification.algorithm`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ferrolog.certs import CertificateAuthority, Issued, broker_ssl_settings
from ferrolog.client.channel import BrokerChannel
from ferrolog.config import BrokerConfig
from ferrolog.config.inter_broker import InterBrokerClient, inter_broker_client
from ferrolog.embedded import EmbeddedBroker
from ferrolog.ports import free_port
from ferrolog.protocol.messages import Apis

pytestmark = pytest.mark.native

fn = pytest.importorskip("ferrolog_native")

FETCH, API_VERSIONS = 1, 18


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> CertificateAuthority:
    return CertificateAuthority(tmp_path_factory.mktemp("ca"))


@pytest.fixture(scope="module")
def broker_cert(ca: CertificateAuthority) -> Issued:
    return ca.broker()


@pytest.fixture(scope="module")
def ports(ca: CertificateAuthority, broker_cert: Issued) -> Iterator[dict[str, int]]:
    """A broker with two SSL listeners requiring client certificates: SSL on 127.0.0.1 (in its
    certificate) and OTHER on 127.0.0.2 (not in it)."""
    ports = {"SSL": free_port(), "OTHER": free_port()}
    broker = EmbeddedBroker(
        overrides={
            "listeners": f"SSL://127.0.0.1:{ports['SSL']},OTHER://127.0.0.2:{ports['OTHER']}",
            "listener.security.protocol.map": "SSL:SSL,OTHER:SSL",
            "inter.broker.listener.name": "SSL",
            "ssl.client.auth": "required",
            **broker_ssl_settings(broker_cert, ca, "PKCS12"),
        }
    )
    broker.start()
    try:
        yield ports
    finally:
        broker.close()


def peer_config(key_store: Issued, ca: CertificateAuthority, **more: str) -> dict[str, str]:
    """The resolved native config of another broker of the cluster (not started)."""
    return BrokerConfig(
        {
            "listeners": f"SSL://127.0.0.1:{free_port()}",
            "inter.broker.listener.name": "SSL",
            "ssl.client.auth": "required",
            **broker_ssl_settings(key_store, ca, "PEM"),
            **more,
        }
    ).native_server_config()


def test_the_fetchers_connection_presents_the_key_store(
    ports: dict[str, int], ca: CertificateAuthority, broker_cert: Issued
) -> None:
    config = peer_config(broker_cert, ca)
    for host in ("127.0.0.1", "localhost"):
        keys = fn.probe_broker(config, "SSL", "SSL", host, ports["SSL"])
        assert FETCH in keys
        assert API_VERSIONS in keys


def test_a_key_store_from_another_ca_is_refused(
    ports: dict[str, int], ca: CertificateAuthority, tmp_path: Path
) -> None:
    other = CertificateAuthority(tmp_path / "other")
    config = peer_config(other.broker(), ca)  # trusts the right CA, presents a foreign cert
    with pytest.raises(ConnectionError):
        fn.probe_broker(config, "SSL", "SSL", "127.0.0.1", ports["SSL"])


def test_a_broker_outside_the_trust_store_is_refused(
    ports: dict[str, int], broker_cert: Issued, tmp_path: Path
) -> None:
    other = CertificateAuthority(tmp_path / "other")
    config = peer_config(broker_cert, other)
    with pytest.raises(ConnectionError, match="certificate"):
        fn.probe_broker(config, "SSL", "SSL", "127.0.0.1", ports["SSL"])


def test_endpoint_identification(
    ports: dict[str, int], ca: CertificateAuthority, broker_cert: Issued
) -> None:
    # Kafka's default, https: 127.0.0.2 is not in the broker's certificate.
    with pytest.raises(ConnectionError, match=r"(?i)not valid for"):
        fn.probe_broker(peer_config(broker_cert, ca), "SSL", "SSL", "127.0.0.2", ports["OTHER"])
    # Empty turns the check off (the chain is still checked), also as a listener override.
    for setting in (
        "ssl.endpoint.identification.algorithm",
        "listener.name.ssl.ssl.endpoint.identification.algorithm",
    ):
        config = peer_config(broker_cert, ca, **{setting: ""})
        assert FETCH in fn.probe_broker(config, "SSL", "SSL", "127.0.0.2", ports["OTHER"])


def test_the_control_planes_channel_connects_the_same_way(
    ports: dict[str, int], ca: CertificateAuthority, broker_cert: Issued, tmp_path: Path
) -> None:
    def ask(client: InterBrokerClient, host: str, port: int) -> int:
        async def run() -> int:
            channel = BrokerChannel(7, lambda node: (host, port), lambda: client)
            try:
                body = {"client_software_name": "ferrolog-tests", "client_software_version": "1"}
                response = await channel.request(0, Apis.API_VERSIONS, 3, body)
            finally:
                await channel.aclose()
            return int(response["error_code"])

        return asyncio.run(run())

    def client_of(key_store: Issued, authority: CertificateAuthority, **more: str) -> Any:
        settings = {
            "listeners": f"SSL://127.0.0.1:{free_port()}",
            "inter.broker.listener.name": "SSL",
            **broker_ssl_settings(key_store, authority, "PKCS12"),
            **more,
        }
        return inter_broker_client(BrokerConfig(settings))

    assert ask(client_of(broker_cert, ca), "localhost", ports["SSL"]) == 0
    with pytest.raises(ConnectionError):
        ask(client_of(broker_cert, ca), "127.0.0.2", ports["OTHER"])
    no_check = client_of(broker_cert, ca, **{"ssl.endpoint.identification.algorithm": ""})
    assert ask(no_check, "127.0.0.2", ports["OTHER"]) == 0
    foreign = CertificateAuthority(tmp_path / "foreign")
    with pytest.raises(ConnectionError):
        ask(client_of(foreign.broker(), ca), "127.0.0.1", ports["SSL"])
