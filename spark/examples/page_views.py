"""A streaming pipeline: page-view events from one topic, counted per page in 10-second
windows, written to another topic and to Parquet.

Against a local broker (`ferrolog broker`, 127.0.0.1:9092), one command:

    python -m ferrolog.spark.examples.page_views --demo-events 50000

`--demo-events N` first produces N sample events to the input topic (created if missing);
`--available-now` processes what is there and stops (otherwise it runs until Ctrl-C). The
counts land in the topic `page-view-counts` (JSON values keyed by page) and under
`./page-view-counts/` as Parquet. Replace "ferrolog" with "kafka" in `format(...)` and the
same job runs on Spark's own Kafka connector.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Sequence

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from ferrolog.spark import register
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming.query import StreamingQuery
from pyspark.sql.streaming.readwriter import DataStreamWriter

EVENT_SCHEMA = "user string, page string, ts long"
PAGES = ["/", "/pricing", "/docs", "/blog", "/signup"]


def ensure_topics(bootstrap: str, topics: Sequence[str], partitions: int = 3) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    existing = admin.list_topics(timeout=10).topics
    missing = [NewTopic(t, partitions, 1) for t in topics if t not in existing]
    if missing:
        for future in admin.create_topics(missing).values():
            future.result(timeout=20)


def produce_demo_events(bootstrap: str, topic: str, count: int, seed: int = 7) -> None:
    """`count` page views spread over the last minute, keyed by user."""
    rng = random.Random(seed)
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    now = int(time.time() * 1000)
    for i in range(count):
        user = f"u{rng.randrange(1000)}"
        event = {"user": user, "page": rng.choice(PAGES), "ts": now - 60_000 + 60_000 * i // count}
        while True:
            try:
                producer.produce(topic, json.dumps(event).encode(), user.encode())
                break
            except BufferError:
                producer.poll(0.05)
    producer.flush(60)


def window_counts(
    spark: SparkSession, bootstrap: str, topic: str, max_per_batch: int = 100_000
) -> DataFrame:
    events = (
        spark.readStream.format("ferrolog")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", str(max_per_batch))
        .load()
        .select(F.from_json(F.col("value").cast("string"), EVENT_SCHEMA).alias("e"))
        .select("e.page", (F.col("e.ts") / 1000).cast("timestamp").alias("at"))
    )
    return (
        events.withWatermark("at", "10 seconds")
        .groupBy(F.window("at", "10 seconds"), "page")
        .agg(F.count("*").alias("views"))
        .select(
            F.col("window.start").alias("window_start"),
            F.col("window.end").alias("window_end"),
            "page",
            "views",
        )
    )


def start(
    spark: SparkSession,
    bootstrap: str,
    *,
    source: str,
    sink: str,
    parquet: str,
    checkpoints: str,
    available_now: bool,
    max_per_batch: int = 100_000,
) -> list[StreamingQuery]:
    """Starts the two queries (to the topic, to Parquet) and returns them."""
    counts = window_counts(spark, bootstrap, source, max_per_batch)

    def trigger(writer: DataStreamWriter) -> DataStreamWriter:
        return writer.trigger(availableNow=True) if available_now else writer

    to_topic = trigger(
        counts.select(
            F.col("page").alias("key"),
            F.to_json(F.struct("window_start", "window_end", "page", "views")).alias("value"),
        )
        .writeStream.format("ferrolog")
        # Spark's Python data sinks take append and complete (not update): every trigger
        # writes each window's current count, the last one per key being the final one.
        .outputMode("complete")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", sink)
        .option("checkpointLocation", os.path.join(checkpoints, "topic"))
    ).start()
    # A file sink appends: a window is written once the watermark has passed its end.
    to_parquet = trigger(
        counts.writeStream.format("parquet")
        .outputMode("append")
        .option("path", parquet)
        .option("checkpointLocation", os.path.join(checkpoints, "parquet"))
    ).start()
    return [to_topic, to_parquet]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap-servers", default="127.0.0.1:9092")
    parser.add_argument("--source", default="page-views")
    parser.add_argument("--sink", default="page-view-counts")
    parser.add_argument("--parquet", default="page-view-counts")
    parser.add_argument("--checkpoints", default="page-view-checkpoints")
    parser.add_argument("--demo-events", type=int, default=0)
    parser.add_argument("--available-now", action="store_true")
    args = parser.parse_args(argv)

    ensure_topics(args.bootstrap_servers, [args.source, args.sink])
    if args.demo_events:
        produce_demo_events(args.bootstrap_servers, args.source, args.demo_events)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = SparkSession.builder.master("local[*]").appName("page-views").getOrCreate()
    register(spark)
    queries = start(
        spark,
        args.bootstrap_servers,
        source=args.source,
        sink=args.sink,
        parquet=args.parquet,
        checkpoints=args.checkpoints,
        available_now=args.available_now,
    )
    try:
        for q in queries:
            q.awaitTermination()
    except KeyboardInterrupt:
        for q in queries:
            q.stop()
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
