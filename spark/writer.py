"""`df.write.format("ferrolog")` and `writeStream.format("ferrolog")`: rows produced to Kafka
topics with an idempotent librdkafka producer, one per task, with the columns of Spark's Kafka
sink: `value` (required), `key`, `topic` (or the `topic` option, which wins), `partition`,
`headers`. Like Spark's Kafka sink the guarantee is at least once: a retried task produces
its rows again, while idempotence keeps the producer's own retries from duplicating."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from confluent_kafka import KafkaException, Producer
from ferrolog.client.security import ClientSecurity
from pyspark.sql.datasource import (
    DataSourceArrowWriter,
    DataSourceStreamArrowWriter,
    WriterCommitMessage,
)
from pyspark.sql.types import StructType

# Kafka options Spark's sink sets itself or that are consumer-side; the rest of `kafka.*` goes
# to librdkafka as it is (the common producer settings have the same names in Java and
# librdkafka: acks, linger.ms, compression.type, batch.size, ...).
_NOT_FOR_PRODUCER = {"isolation.level", "key.serializer", "value.serializer"}


@dataclass(frozen=True)
class Produced(WriterCommitMessage):
    records: int


def producer_config(options: dict[str, str]) -> dict[str, Any]:
    lower = {k.lower(): v for k, v in options.items()}
    bootstrap = lower.get("kafka.bootstrap.servers")
    if not bootstrap:
        raise ValueError("option kafka.bootstrap.servers is required")
    config: dict[str, Any] = {
        "linger.ms": 5,
        "client.id": "ferrolog-spark-writer",
    }
    kafka = {k[6:]: v for k, v in options.items() if k.lower().startswith("kafka.")}
    for key, value in kafka.items():
        if key not in _NOT_FOR_PRODUCER and not _is_security(key):
            config[key] = value
    # The Java client's TLS and SASL settings (JAAS line, key and trust stores), in
    # librdkafka's terms.
    config.update(ClientSecurity.from_properties(kafka).librdkafka())
    config["bootstrap.servers"] = bootstrap
    # Idempotence is what keeps librdkafka's internal retries from writing a record twice.
    config["enable.idempotence"] = True
    return config


def _is_security(key: str) -> bool:
    key = key.lower()
    return key == "security.protocol" or key.startswith(("ssl.", "sasl."))


def _column(batch: pa.RecordBatch, name: str) -> list[Any] | None:
    index = batch.schema.get_field_index(name)
    return None if index < 0 else batch.column(index).to_pylist()


def _bytes(v: Any) -> bytes | None:
    if v is None or isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode()
    return bytes(v)


def check_schema(schema: StructType, default_topic: str | None) -> None:
    names = {f.name for f in schema.fields}
    if "value" not in names:
        raise ValueError("the data to write needs a 'value' column (string or binary)")
    if "topic" not in names and default_topic is None:
        raise ValueError("give the topic: the 'topic' option or a 'topic' column")


def produce_batches(options: dict[str, str], batches: Iterator[pa.RecordBatch]) -> int:
    """Produces every row; returns how many, after all were acknowledged."""
    lower = {k.lower(): v for k, v in options.items()}
    default_topic = lower.get("topic")
    errors: list[str] = []

    def delivered(err: Any, msg: Any) -> None:
        if err is not None:
            errors.append(str(err))

    producer = Producer({**producer_config(options), "error_cb": lambda e: None})
    count = 0
    for batch in batches:
        values = _column(batch, "value") or []
        keys = _column(batch, "key")
        topics = _column(batch, "topic")
        partitions = _column(batch, "partition")
        headers = _column(batch, "headers")
        for i, value in enumerate(values):
            topic = default_topic or (topics[i] if topics is not None else None)
            if topic is None:
                raise ValueError("a row has no topic (null 'topic' and no 'topic' option)")
            kwargs: dict[str, Any] = {
                "value": _bytes(value),
                "key": _bytes(keys[i]) if keys is not None else None,
                "on_delivery": delivered,
            }
            if partitions is not None and partitions[i] is not None:
                kwargs["partition"] = partitions[i]
            if headers is not None and headers[i]:
                kwargs["headers"] = [(h["key"], _bytes(h["value"])) for h in headers[i]]
            while True:
                try:
                    producer.produce(topic, **kwargs)
                    break
                except BufferError:
                    producer.poll(0.1)  # the local queue is full: wait for acknowledgements
            count += 1
        producer.poll(0)
        if errors:
            break
    remaining = producer.flush(120)
    if errors:
        raise KafkaException(f"{len(errors)} records failed: {errors[0]}")
    if remaining:
        raise KafkaException(f"{remaining} records not acknowledged within 120 s")
    return count


class FerrologWriter(DataSourceArrowWriter):
    def __init__(self, options: dict[str, str], schema: StructType) -> None:
        self.options = options
        check_schema(schema, {k.lower(): v for k, v in options.items()}.get("topic"))

    def write(self, iterator: Iterator[pa.RecordBatch]) -> Produced:
        return Produced(produce_batches(self.options, iterator))


class FerrologStreamWriter(DataSourceStreamArrowWriter):
    def __init__(self, options: dict[str, str], schema: StructType) -> None:
        self.options = options
        check_schema(schema, {k.lower(): v for k, v in options.items()}.get("topic"))

    def write(self, iterator: Iterator[pa.RecordBatch]) -> Produced:
        return Produced(produce_batches(self.options, iterator))

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        """Every row was acknowledged before its task ended: nothing is left to commit."""

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        """Records already acknowledged stay (at least once, as with Spark's Kafka sink)."""
