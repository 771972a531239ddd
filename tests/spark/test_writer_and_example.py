"""Writing back: the batch writer, and the example pipeline (a streaming aggregation from one
topic into another topic, through the streaming writer, and into Parquet)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from ferrolog.spark.examples import page_views
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

pytestmark = pytest.mark.timeout(600)


def test_batch_write_then_read_back(
    spark: SparkSession, bootstrap: str, new_topic: Callable[..., str]
) -> None:
    topic = new_topic(partitions=2)
    rows = spark.range(5_000).select(
        F.col("id").cast("string").alias("key"),
        F.concat(F.lit("value-"), F.col("id").cast("string")).alias("value"),
        (F.col("id") % 2).cast("int").alias("partition"),
        F.array(F.struct(F.lit("h").alias("key"), F.lit(b"x").alias("value"))).alias("headers"),
    )
    # Spark lets Python data sources be written only in append or overwrite mode (both
    # produce here); Spark's own Kafka sink takes append and its default, ErrorIfExists.
    rows.write.format("ferrolog").mode("append").option(
        "kafka.bootstrap.servers", bootstrap
    ).option("topic", topic).save()
    back = (
        spark.read.format("ferrolog")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("includeHeaders", "true")
        .load()
    )
    got = back.select(
        F.col("key").cast("string").alias("key"),
        F.col("value").cast("string").alias("value"),
        "partition",
        "headers",
    ).collect()
    assert len(got) == 5_000
    assert {(r.key, r.value, r.partition) for r in got} == {
        (str(i), f"value-{i}", i % 2) for i in range(5_000)
    }
    assert all([(h.key, h.value) for h in r.headers] == [("h", b"x")] for r in got)


def test_example_pipeline_counts_every_event(
    spark: SparkSession, bootstrap: str, new_topic: Callable[..., str], tmp_path: Path
) -> None:
    source, sink = new_topic(partitions=2), new_topic(partitions=1)
    page_views.produce_demo_events(bootstrap, source, 20_000)
    queries = page_views.start(
        spark,
        bootstrap,
        source=source,
        sink=sink,
        parquet=str(tmp_path / "parquet"),
        checkpoints=str(tmp_path / "checkpoints"),
        available_now=True,
        max_per_batch=4_000,
    )
    try:
        for q in queries:
            assert q.awaitTermination(300)
            assert q.exception() is None
    finally:
        for q in queries:
            q.stop()
    # Complete mode: a window's count is written again as it grows; the largest is final.
    written = (
        spark.read.format("ferrolog")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", sink)
        .load()
        .select(F.col("value").cast("string").alias("json"))
        .collect()
    )
    final: dict[tuple[str, str], int] = {}
    for row in written:
        c = json.loads(row.json)
        key = (c["window_start"], c["page"])
        final[key] = max(final.get(key, 0), c["views"])
    assert sum(final.values()) == 20_000
    # Append mode: only windows closed by the watermark, each written once with its total.
    closed = spark.read.parquet(str(tmp_path / "parquet")).collect()
    assert closed
    assert len({(r.window_start, r.page) for r in closed}) == len(closed)
    totals = {(r.window_start, r.page): r.views for r in closed}
    by_start = {(k[0][:19].replace("T", " "), k[1]): v for k, v in final.items()}
    assert all(by_start[(str(s), p)] == v for (s, p), v in totals.items())


def test_spark_kafka_sink_writes_to_ferrolog(
    spark: SparkSession, bootstrap: str, new_topic: Callable[..., str]
) -> None:
    """Spark's own Kafka sink (Java producer, idempotent by default: InitProducerId)."""
    topic = new_topic(partitions=2)
    rows = spark.range(2_000).select(F.col("id").cast("string").alias("value"))
    rows.write.format("kafka").option("kafka.bootstrap.servers", bootstrap).option(
        "topic", topic
    ).save()
    back = (
        spark.read.format("ferrolog")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .load()
    )
    values = {r.value for r in back.select(F.col("value").cast("string")).collect()}
    assert values == {str(i) for i in range(2_000)}
