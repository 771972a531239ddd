"""Streaming reads: checkpointed restarts while records arrive, and admission control."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQuery

from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(600)


def _wait_for(query: StreamingQuery, rows: int, timeout: float = 120) -> None:
    """Until the query has taken at least `rows` rows in all."""

    def taken() -> bool:
        if query.exception() is not None:
            raise AssertionError(str(query.exception()))
        return sum(p["numInputRows"] for p in query.recentProgress) >= rows

    wait_until(taken, timeout, 0.2, what=f"the query to take {rows} rows")


def test_restarted_query_writes_every_record_exactly_once(
    spark: SparkSession,
    bootstrap: str,
    new_topic: Callable[..., str],
    produce: Callable[..., None],
    tmp_path: Path,
) -> None:
    topic = new_topic(partitions=2)
    chunk = 400
    produced: list[int] = []  # chunks produced so far, by the thread below
    stop_producing = threading.Event()

    def keep_producing() -> None:
        # Until told to stop (after the restart has read something), with a cap in case.
        while not stop_producing.is_set() and len(produced) < 1500:
            base = len(produced) * chunk
            produce(topic, [(None, b"v%d" % i, None) for i in range(base, base + chunk)])
            produced.append(base)
            # Paced on purpose: records keep arriving across the query's micro-batches.
            time.sleep(0.05)

    producing = threading.Thread(target=keep_producing, daemon=True)

    def start() -> StreamingQuery:
        stream = (
            spark.readStream.format("ferrolog")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", topic)
            .option("startingOffsets", "earliest")
            .option("maxOffsetsPerTrigger", "3000")
            .load()
            .select(F.col("value").cast("string").alias("value"), "partition", "offset")
        )
        return (
            stream.writeStream.format("parquet")
            .option("path", str(tmp_path / "out"))
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .trigger(processingTime="500 milliseconds")
            .start()
        )

    producing.start()
    try:
        first = start()
        try:
            _wait_for(first, 1)
        finally:
            first.stop()
        assert producing.is_alive()
        second = start()
        try:
            _wait_for(second, 1)
        finally:
            stop_producing.set()
            producing.join(timeout=120)
        try:
            assert not producing.is_alive()
            second.processAllAvailable()
        finally:
            second.stop()
    finally:
        stop_producing.set()
    total = len(produced) * chunk

    out = spark.read.parquet(str(tmp_path / "out"))
    stats = out.agg(
        F.count("*").alias("rows"),
        F.countDistinct("value").alias("values"),
        F.countDistinct("partition", "offset").alias("positions"),
    ).first()
    assert stats is not None
    assert stats.asDict() == {"rows": total, "values": total, "positions": total}


@pytest.mark.parametrize("fmt", ["ferrolog", "kafka"])
def test_max_offsets_per_trigger_bounds_each_micro_batch(
    fmt: str,
    spark: SparkSession,
    bootstrap: str,
    new_topic: Callable[..., str],
    produce: Callable[..., None],
    tmp_path: Path,
) -> None:
    topic = new_topic(partitions=3)
    produce(topic, [(None, b"%d" % i, None) for i in range(5_000)])
    query = (
        spark.readStream.format(fmt)
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", "700")
        .load()
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    try:
        query.awaitTermination(240)
    finally:
        query.stop()
    rows = [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]
    assert sum(rows) == 5_000
    # Spark's own source rounds each partition's share up and can go over by one record per
    # partition; ours never exceeds the limit.
    assert max(rows) <= 700 + (3 if fmt == "kafka" else 0)
    assert len(rows) >= 8  # ceil(5000 / 700)
