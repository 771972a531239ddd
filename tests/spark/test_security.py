"""The Spark data source over TLS and SASL, with Spark's own option names for them
(`kafka.security.protocol`, `kafka.sasl.mechanism`, `kafka.sasl.jaas.config`,
`kafka.ssl.truststore.*`, `kafka.ssl.keystore.*`): ferrolog's writer writes and its reader
reads back, SCRAM over SASL_SSL with a PKCS12 trust store as a Java shop has it, PLAIN over
SASL_PLAINTEXT, and a PKCS12 client certificate over SSL on a listener that requires one."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.certs import (
    PASSWORD,
    CertificateAuthority,
    Issued,
    broker_ssl_settings,
    java_keystore,
)
from ferrolog.embedded import EmbeddedBroker
from ferrolog.ports import free_port
from pyspark.sql import DataFrame, SparkSession

from tests.sasl_broker import SaslBroker, credentials


def options(sasl_broker: SaslBroker, protocol: str, mechanism: str) -> dict[str, str]:
    user, secret = credentials(mechanism)
    module = "plain.PlainLoginModule" if mechanism == "PLAIN" else "scram.ScramLoginModule"
    opts = {
        "kafka.bootstrap.servers": sasl_broker.address(protocol),
        "kafka.security.protocol": protocol,
        "kafka.sasl.mechanism": mechanism,
        "kafka.sasl.jaas.config": f"org.apache.kafka.common.security.{module} required "
        f'username="{user}" password="{secret}";',
    }
    if protocol == "SASL_SSL":
        opts |= {
            "kafka.ssl.truststore.location": str(sasl_broker.ca.java_truststore()),
            "kafka.ssl.truststore.type": "PKCS12",
            "kafka.ssl.truststore.password": PASSWORD,
        }
    return opts


@pytest.mark.parametrize(
    ("protocol", "mechanism"), [("SASL_SSL", "SCRAM-SHA-512"), ("SASL_PLAINTEXT", "PLAIN")]
)
def test_write_then_read_back(
    spark: SparkSession, sasl_broker: SaslBroker, protocol: str, mechanism: str
) -> None:
    topic = create_topic(sasl_broker.address("PLAINTEXT"))
    write_then_read_back(spark, options(sasl_broker, protocol, mechanism), topic)


def create_topic(plaintext: str) -> str:
    topic = f"spark-sec-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": plaintext})
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(20)
    return topic


def read(spark: SparkSession, opts: dict[str, str], topic: str) -> DataFrame:
    return spark.read.format("ferrolog").options(**opts).option("subscribe", topic).load()


def write_then_read_back(spark: SparkSession, opts: dict[str, str], topic: str) -> None:
    rows = [(f"k{i}", f"v{i}") for i in range(50)]
    frame = spark.createDataFrame(rows, "key string, value string")
    frame.write.format("ferrolog").mode("append").options(**opts).option("topic", topic).save()
    got = (
        read(spark, opts, topic)
        .selectExpr("CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v")
        .collect()
    )
    assert sorted((r.k, r.v) for r in got) == sorted(rows)


def test_bad_password_fails_the_read(spark: SparkSession, sasl_broker: SaslBroker) -> None:
    opts = options(sasl_broker, "SASL_PLAINTEXT", "SCRAM-SHA-256")
    opts["kafka.sasl.jaas.config"] = opts["kafka.sasl.jaas.config"].replace("bob-secret", "no")
    with pytest.raises(Exception, match="invalid credentials"):
        spark.read.format("ferrolog").options(**opts).option("subscribe", "any").load().collect()


@dataclass
class MutualTls:
    ca: CertificateAuthority
    client: Issued
    ports: dict[str, int]


@pytest.fixture(scope="module")
def mutual_tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MutualTls]:
    """A broker whose SSL listener requires a client certificate (`ssl.client.auth=required`),
    and a PLAINTEXT one to create topics."""
    ca = CertificateAuthority(tmp_path_factory.mktemp("ca"))
    ports = {"PLAINTEXT": free_port(), "SSL": free_port()}
    broker = EmbeddedBroker(
        overrides={
            "listeners": ",".join(f"{n}://127.0.0.1:{p}" for n, p in ports.items()),
            "ssl.client.auth": "required",
            **broker_ssl_settings(ca.broker(), ca, "PEM"),
        }
    ).start()
    try:
        yield MutualTls(ca, ca.client(), ports)
    finally:
        broker.close()


def test_ssl_with_a_client_certificate(spark: SparkSession, mutual_tls: MutualTls) -> None:
    """The client certificate in a PKCS12 key store written by keytool, and the CA in a PKCS12
    trust store, by Spark's option names; without the key store the broker refuses the read."""
    truststore = {
        "kafka.bootstrap.servers": f"127.0.0.1:{mutual_tls.ports['SSL']}",
        "kafka.security.protocol": "SSL",
        "kafka.ssl.truststore.location": str(mutual_tls.ca.java_truststore()),
        "kafka.ssl.truststore.type": "PKCS12",
        "kafka.ssl.truststore.password": PASSWORD,
    }
    keystore = {
        "kafka.ssl.keystore.location": str(java_keystore(mutual_tls.client)),
        "kafka.ssl.keystore.type": "PKCS12",
        "kafka.ssl.keystore.password": PASSWORD,
        "kafka.ssl.key.password": PASSWORD,
    }
    topic = create_topic(f"127.0.0.1:{mutual_tls.ports['PLAINTEXT']}")
    write_then_read_back(spark, truststore | keystore, topic)
    with pytest.raises(Exception, match="certificate required"):
        read(spark, truststore, topic).collect()
