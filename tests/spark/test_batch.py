"""Batch reads: format("ferrolog") and Spark's own format("kafka") on the same topic."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

pytestmark = pytest.mark.timeout(600)

RECORDS = 100_000
EXPECTED_SCHEMA = (
    "struct<key:binary,value:binary,topic:string,partition:int,offset:bigint,"
    "timestamp:timestamp,timestampType:int,headers:array<struct<key:string,value:binary>>>"
)


def _read(spark: SparkSession, fmt: str, bootstrap: str, topic: str, **options: str) -> DataFrame:
    reader = (
        spark.read.format(fmt)
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
    )
    for k, v in options.items():
        reader = reader.option(k, v)
    return reader.load()


def test_100k_records_exactly_once_with_both_formats(
    spark: SparkSession,
    bootstrap: str,
    new_topic: Callable[..., str],
    produce: Callable[..., None],
) -> None:
    topic = new_topic(partitions=3)
    # Keys are null for every 7th record; every 3rd record has headers (one of them null).
    produce(
        topic,
        [(None if i % 7 == 0 else b"k%d" % i, b"value-%d" % i, None) for i in range(RECORDS)],
        headers=True,
        **{"compression.type": "lz4"},
    )
    frames = {
        fmt: _read(spark, fmt, bootstrap, topic, includeHeaders="true").cache()
        for fmt in ("ferrolog", "kafka")
    }
    try:
        for fmt, df in frames.items():
            assert df.schema.simpleString() == EXPECTED_SCHEMA, fmt
            stats = df.agg(
                F.count("*").alias("rows"),
                F.countDistinct("value").alias("values"),
                F.countDistinct("partition", "offset").alias("positions"),
                F.sum(F.col("key").isNull().cast("int")).alias("null_keys"),
                F.sum(F.col("headers").isNotNull().cast("int")).alias("with_headers"),
                F.min("timestampType").alias("ts_type"),
            ).first()
            assert stats is not None
            assert stats.asDict() == {
                "rows": RECORDS,
                "values": RECORDS,
                "positions": RECORDS,
                "null_keys": len(range(0, RECORDS, 7)),
                "with_headers": len(range(0, RECORDS, 3)),
                "ts_type": 0,
            }, fmt
        # Row for row the same: keys, values, offsets, timestamps and headers.
        ours, theirs = frames["ferrolog"], frames["kafka"]
        assert ours.exceptAll(theirs).count() == 0
        assert theirs.exceptAll(ours).count() == 0
        row = ours.where(F.col("value") == b"value-3").first()
        assert row is not None
        assert [(h.key, h.value) for h in row.headers] == [("n", b"3"), ("empty", None)]
    finally:
        for df in frames.values():
            df.unpersist()


def test_offsets_options_and_splitting(
    spark: SparkSession,
    bootstrap: str,
    new_topic: Callable[..., str],
    produce: Callable[..., None],
) -> None:
    topic = new_topic(partitions=2)
    produce(topic, [(None, b"%d" % i, None) for i in range(100)], partition=0)
    produce(topic, [(None, b"%d" % i, None) for i in range(50)], partition=1)
    ranges = _read(
        spark,
        "ferrolog",
        bootstrap,
        topic,
        startingOffsets=f'{{"{topic}":{{"0":10,"1":-2}}}}',
        endingOffsets=f'{{"{topic}":{{"0":60,"1":-1}}}}',
        minPartitions="6",
    )
    assert ranges.rdd.getNumPartitions() >= 6
    got = {(r.partition, r.offset) for r in ranges.select("partition", "offset").collect()}
    assert got == {(0, o) for o in range(10, 60)} | {(1, o) for o in range(50)}

    assigned = (
        spark.read.format("ferrolog")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("assign", f'{{"{topic}":[1]}}')
        .load()
    )
    assert assigned.count() == 50
    pattern = (
        spark.read.format("ferrolog")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribePattern", topic[:-3] + ".*")
        .load()
    )
    assert pattern.count() == 150


def test_starting_offsets_by_timestamp(
    spark: SparkSession,
    bootstrap: str,
    new_topic: Callable[..., str],
    produce: Callable[..., None],
) -> None:
    topic = new_topic(partitions=2)
    base = 1_700_000_000_000
    # Partition 0: timestamps base, base+10, ...; partition 1: base+5, base+15, ...
    produce(topic, [(None, b"a%d" % i, base + 10 * i) for i in range(100)], partition=0)
    produce(topic, [(None, b"b%d" % i, base + 5 + 10 * i) for i in range(100)], partition=1)

    def first_offsets(fmt: str, **options: str) -> dict[int, int]:
        df = _read(spark, fmt, bootstrap, topic, **options)
        rows = df.groupBy("partition").agg(F.min("offset").alias("first")).collect()
        return {r.partition: r.first for r in rows}

    by_partition = f'{{"{topic}":{{"0":{base + 500},"1":{base + 201}}}}}'
    # The first record at or after each timestamp: offset 50 (base+500) and 20 (base+205).
    for fmt in ("ferrolog", "kafka"):
        assert first_offsets(fmt, startingOffsetsByTimestamp=by_partition) == {0: 50, 1: 20}
        assert first_offsets(fmt, startingTimestamp=str(base + 300)) == {0: 30, 1: 30}
        # Ends are exclusive: the first record at or after the ending timestamp is not read.
        ending = _read(spark, fmt, bootstrap, topic, endingTimestamp=str(base + 300))
        last = ending.groupBy("partition").agg(F.max("offset").alias("last")).collect()
        assert {r.partition: r.last for r in last} == {0: 29, 1: 29}
    ts = _read(spark, "ferrolog", bootstrap, topic, startingTimestamp=str(base + 990))
    assert {(r.partition, r.offset, r.timestamp.timestamp()) for r in ts.collect()} == {
        (0, 99, (base + 990) / 1000),
        (1, 99, (base + 995) / 1000),
    }
