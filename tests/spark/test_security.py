"""The Spark data source over TLS and SASL, with Spark's own option names for them
(`kafka.security.protocol`, `kafka.sasl.mechanism`, `kafka.sasl.jaas.config`,
`kafka.ssl.truststore.*`): ferrolog's writer writes and its reader reads back, SCRAM over
SASL_SSL with a PKCS12 trust store as a Java shop has it, PLAIN over SASL_PLAINTEXT."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.certs import PASSWORD
from pyspark.sql import SparkSession

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
    topic = f"spark-sasl-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": sasl_broker.address("PLAINTEXT")})
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(20)
    opts = options(sasl_broker, protocol, mechanism)
    rows = [(f"k{i}", f"v{i}") for i in range(50)]
    frame = spark.createDataFrame(rows, "key string, value string")
    frame.write.format("ferrolog").mode("append").options(**opts).option("topic", topic).save()
    read = (
        spark.read.format("ferrolog")
        .options(**opts)
        .option("subscribe", topic)
        .load()
        .selectExpr("CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v")
        .collect()
    )
    assert sorted((r.k, r.v) for r in read) == sorted(rows)


def test_bad_password_fails_the_read(spark: SparkSession, sasl_broker: SaslBroker) -> None:
    opts = options(sasl_broker, "SASL_PLAINTEXT", "SCRAM-SHA-256")
    opts["kafka.sasl.jaas.config"] = opts["kafka.sasl.jaas.config"].replace("bob-secret", "no")
    with pytest.raises(Exception, match="invalid credentials"):
        spark.read.format("ferrolog").options(**opts).option("subscribe", "any").load().collect()
