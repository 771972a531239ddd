"""Rows/s of a Spark batch read with format("ferrolog") against Spark's own format("kafka"),
on the same broker and topic, in one local SparkSession.

    python bench/spark_bench.py --records 2000000 --value-bytes 100 --partitions 4 --runs 3

It starts an embedded ferrolog broker (or uses --bootstrap-servers), fills a topic once, then
reads the whole topic with each format `--runs` times (after one warm-up read each, which
starts the Python workers and the JVM's JIT), alternating the formats. Each read
materializes every column with the `noop` sink, so neither source can skip work. Prints one
line per read and a JSON summary (median and best rows/s per format, and their ratios). Needs
`make spark-jars` for format("kafka").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from contextlib import ExitStack
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.embedded import EmbeddedBroker
from ferrolog.spark import register
from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parents[1]


def fill(bootstrap: str, topic: str, partitions: int, records: int, value_bytes: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(timeout=30)
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "linger.ms": 50,
            "batch.size": 1_000_000,
            "compression.type": "lz4",
            "queue.buffering.max.messages": 1_000_000,
        }
    )
    pad = b"x" * max(value_bytes - 12, 0)
    for i in range(records):
        while True:
            try:
                producer.produce(topic, b"%012d" % i + pad, b"k%d" % (i % 1000))
                break
            except BufferError:
                producer.poll(0.05)
    if producer.flush(300):
        raise RuntimeError("the topic was not filled")


def session(jars: list[str]) -> SparkSession:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("ferrolog-spark-bench")
        .config("spark.jars", ",".join(jars))
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    return spark


def read_once(spark: SparkSession, fmt: str, bootstrap: str, topic: str) -> float:
    start = time.perf_counter()
    (
        spark.read.format(fmt)
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .load()
        .write.format("noop")
        .mode("overwrite")
        .save()
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=2_000_000)
    parser.add_argument("--value-bytes", type=int, default=100)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bootstrap-servers", help="an existing broker (default: embedded)")
    parser.add_argument("--jars", default=str(ROOT / "build" / "spark-jars"))
    args = parser.parse_args()
    jars = sorted(str(p) for p in Path(args.jars).glob("*.jar"))
    if not jars:
        parser.error(f"no jars in {args.jars}: run `make spark-jars`")

    with ExitStack() as stack:
        bootstrap = args.bootstrap_servers
        if bootstrap is None:
            bootstrap = stack.enter_context(EmbeddedBroker()).bootstrap_servers
        topic = f"spark-bench-{uuid.uuid4().hex[:8]}"
        began = time.perf_counter()
        fill(bootstrap, topic, args.partitions, args.records, args.value_bytes)
        print(f"filled {topic}: {args.records} records in {time.perf_counter() - began:.1f} s")
        spark = session(jars)
        stack.callback(spark.stop)
        formats = ("ferrolog", "kafka")
        for fmt in formats:
            print(f"warm-up {fmt}: {read_once(spark, fmt, bootstrap, topic):.2f} s")
        times: dict[str, list[float]] = {fmt: [] for fmt in formats}
        for run in range(args.runs):
            for fmt in formats if run % 2 == 0 else formats[::-1]:
                seconds = read_once(spark, fmt, bootstrap, topic)
                times[fmt].append(seconds)
                print(f"run {run} {fmt}: {seconds:.2f} s, {args.records / seconds:,.0f} rows/s")
        rates = {fmt: args.records / statistics.median(t) for fmt, t in times.items()}
        # On a shared machine the fastest run is the least disturbed one: reported too.
        best = {fmt: args.records / min(t) for fmt, t in times.items()}
        print(
            json.dumps(
                {
                    "records": args.records,
                    "value_bytes": args.value_bytes,
                    "partitions": args.partitions,
                    "runs": args.runs,
                    "median_rows_per_s": {f: round(r) for f, r in rates.items()},
                    "ferrolog_over_kafka": round(rates["ferrolog"] / rates["kafka"], 2),
                    "best_rows_per_s": {f: round(r) for f, r in best.items()},
                    "best_ferrolog_over_kafka": round(best["ferrolog"] / best["kafka"], 2),
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
