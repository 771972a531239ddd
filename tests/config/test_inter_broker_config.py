"""The inter-broker listener's client settings a broker of a cluster is refused to start
without: a trust store over TLS; over SASL a mechanism ferrolog has (Kafka's default,
GSSAPI, and OAUTHBEARER are refused by name), enabled on that listener, and the broker's own
username and password in the listener's JAAS line for it."""

from __future__ import annotations

import pytest
from ferrolog.config import BrokerConfig
from ferrolog.config.inter_broker import SaslLogin, sasl_login
from ferrolog.errors import InvalidConfigError

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"


def cluster_broker(protocol: str, **settings: str) -> BrokerConfig:
    return BrokerConfig(
        {
            "zookeeper.connect": "127.0.0.1:2181",
            "listeners": f"{protocol}://127.0.0.1:9093",
            "inter.broker.listener.name": protocol,
            "ssl.keystore.location": "/k.p12",
            **settings,
        }
    )


def test_tls_between_brokers_needs_a_trust_store() -> None:
    with pytest.raises(InvalidConfigError, match="trust store"):
        cluster_broker("SSL")
    cluster_broker("SSL", **{"ssl.truststore.location": "/t.pem"})
    cluster_broker("SSL", **{"listener.name.ssl.ssl.truststore.location": "/t.pem"})


@pytest.mark.parametrize("mechanism", ["GSSAPI", "OAUTHBEARER"])
def test_unsupported_inter_broker_mechanisms_are_refused(mechanism: str) -> None:
    with pytest.raises(InvalidConfigError, match=f"does not support {mechanism}"):
        cluster_broker(
            "SASL_PLAINTEXT",
            **{
                "sasl.enabled.mechanisms": "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config": f"{PLAIN} required "
                'username="b" password="p" user_b="p";',
                **(
                    {}
                    if mechanism == "GSSAPI"
                    else {"sasl.mechanism.inter.broker.protocol": mechanism}
                ),
            },
        )


def test_the_mechanism_must_be_enabled_on_the_listener() -> None:
    with pytest.raises(InvalidConfigError, match=r"must be included in sasl\.enabled\.mechanisms"):
        cluster_broker(
            "SASL_PLAINTEXT",
            **{
                "sasl.enabled.mechanisms": "PLAIN",
                "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-256",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config": f"{PLAIN} required "
                'user_b="p";',
            },
        )


def test_the_brokers_own_login_comes_from_the_listeners_jaas_line() -> None:
    settings = {
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512",
        "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
        "listener.name.sasl_ssl.plain.sasl.jaas.config": f'{PLAIN} required user_b="p";',
        "ssl.truststore.location": "/t.pem",
    }
    with pytest.raises(InvalidConfigError, match=r"scram-sha-512\.sasl\.jaas\.config needs") as e:
        cluster_broker("SASL_SSL", **settings)
    assert "secret" not in str(e.value)
    settings["listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config"] = (
        f'{SCRAM} required username="broker" password="secret";'
    )
    config = cluster_broker("SASL_SSL", **settings)
    assert sasl_login(config) == SaslLogin("SCRAM-SHA-512", "broker", "secret")
    assert "secret" not in repr(sasl_login(config))


def test_a_single_broker_needs_no_login_of_its_own() -> None:
    # Kafka's defaults (GSSAPI between brokers) with one SASL listener: served, never used.
    config = BrokerConfig(
        {
            "listeners": "SASL_PLAINTEXT://127.0.0.1:9093",
            "sasl.enabled.mechanisms": "PLAIN",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config": f'{PLAIN} required user_b="p";',
        }
    )
    assert sasl_login(config) is None
