"""The data source's pieces without a SparkSession: options, offset planning, admission
control, and the Arrow batches `read()` yields (against the session broker)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ferrolog_native
import pyarrow as pa
import pytest
from confluent_kafka import Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from ferrolog.errors import KafkaError
from ferrolog.spark.arrow import arrow_schema, read_range
from ferrolog.spark.options import from_offsets_json, offsets_json, parse_options
from ferrolog.spark.planning import OffsetRange, apportion, split_ranges
from ferrolog.spark.source import FerrologBatchReader, FerrologStreamReader

BOOT = {"kafka.bootstrap.servers": "h:1"}


def test_options_follow_spark_kafka_names_and_precedence() -> None:
    opts = parse_options(
        {
            **BOOT,
            "subscribe": "a, b",
            "startingOffsets": '{"a":{"0":5,"1":-2}}',
            "startingOffsetsByTimestamp": '{"a":{"0":1000}}',
            "INCLUDEHEADERS": "true",
            "kafka.isolation.level": "read_committed",
            "maxOffsetsPerTrigger": "10",
        }
    )
    assert opts.subscribe == ("a", "b")
    # By-timestamp wins over startingOffsets, and startingTimestamp over both.
    assert opts.starting is not None
    assert opts.starting.kind == "timestamps"
    assert opts.starting.per_partition == {("a", 0): 1000}
    assert (opts.include_headers, opts.isolation_level, opts.max_offsets_per_trigger) == (
        True,
        1,
        10,
    )
    stamped = parse_options({**BOOT, "assign": '{"t":[1,0]}', "startingTimestamp": "7"})
    assert stamped.assign == (("t", 0), ("t", 1))
    assert stamped.starting is not None
    assert stamped.starting.resolved_query(("t", 1)) == 7
    assert parse_options({**BOOT, "subscribePattern": "t.*"}).matches("topic")

    for bad, message in (
        ({"subscribe": "a"}, "bootstrap.servers is required"),
        ({**BOOT}, "exactly one of"),
        ({**BOOT, "subscribe": "a", "assign": '{"a":[0]}'}, "exactly one of"),
        ({**BOOT, "subscribe": "a", "endingOffsets": "earliest"}, "cannot be earliest"),
        ({**BOOT, "subscribe": "a", "startingOffsets": "{not json"}, "expected JSON"),
        ({**BOOT, "subscribe": "a", "maxOffsetsPerTrigger": "0"}, "must be positive"),
        ({**BOOT, "subscribe": "a", "kafka.isolation.level": "x"}, "isolation.level must"),
    ):
        with pytest.raises(ValueError, match=message):
            parse_options(bad)


def test_offsets_round_trip_through_json_with_string_keys() -> None:
    offsets = {("a", 1): 7, ("a", 0): 3, ("b", 0): 9}
    as_json = offsets_json(offsets)
    assert as_json == {"a": {"0": 3, "1": 7}, "b": {"0": 9}}
    assert from_offsets_json(as_json) == offsets


def test_split_ranges_by_min_partitions_and_max_records() -> None:
    bounds = {("t", 0): (0, 900), ("t", 1): (0, 100), ("t", 2): (5, 5)}
    plain = split_ranges(bounds, None, None)
    assert plain == [OffsetRange("t", 0, 0, 900), OffsetRange("t", 1, 0, 100)]
    split = split_ranges(bounds, 10, None)
    assert len(split) >= 10
    assert sum(r.size for r in split) == 1000
    assert [r for r in split if r.partition == 1] == [OffsetRange("t", 1, 0, 100)]
    capped = split_ranges(bounds, None, 250)
    assert max(r.size for r in capped) <= 250
    assert [(r.start, r.end) for r in capped if r.partition == 0] == [
        (0, 225),
        (225, 450),
        (450, 675),
        (675, 900),
    ]


def test_apportion_never_exceeds_the_limit_and_always_progresses() -> None:
    start = {("t", 0): 0, ("t", 1): 10, ("t", 2): 50}
    latest = {("t", 0): 1000, ("t", 1): 11, ("t", 2): 50}
    ends = apportion(start, latest, 100)
    taken = {tp: ends[tp] - start[tp] for tp in start}
    assert sum(taken.values()) == 100
    assert taken[("t", 2)] == 0
    assert taken[("t", 1)] <= 1
    assert apportion(start, latest, 5000) == latest
    assert sum(apportion(start, latest, 1)[tp] - start[tp] for tp in start) == 1


def test_arrow_batches_from_the_broker(bootstrap: str, new_topic: Callable[..., str]) -> None:
    """What `read()` yields. (read_committed filtering is covered by the native decoder's tests:
    this broker has no transaction coordinator yet to write aborted transactions with.)"""
    topic = new_topic(partitions=1)
    producer = Producer({"bootstrap.servers": bootstrap, "compression.type": "zstd"})
    producer.produce(topic, b"v0", b"k0", headers=[("h", b"1")], timestamp=1_000)
    producer.produce(topic, b"v1", None, timestamp=2_000)
    producer.produce(topic, None, b"k2", timestamp=3_000)
    assert producer.flush(30) == 0
    for level in ("read_committed", "read_uncommitted"):
        opts = parse_options(
            {
                "kafka.bootstrap.servers": bootstrap,
                "subscribe": topic,
                "includeHeaders": "true",
                "kafka.isolation.level": level,
            }
        )
        ranges = FerrologBatchReader(opts).partitions()
        assert ranges == [OffsetRange(topic, 0, 0, 3)]
        batches = [b for r in ranges for b in read_range(opts, r)]
        table = pa.Table.from_batches(batches, arrow_schema(True))
        assert table.column("value").to_pylist() == [b"v0", b"v1", None]
        assert table.column("key").to_pylist() == [b"k0", None, b"k2"]
        assert table.column("offset").to_pylist() == [0, 1, 2]
        assert table.column("headers").to_pylist() == [[{"key": "h", "value": b"1"}], None, None]
        assert [t.timestamp() for t in table.column("timestamp").to_pylist()] == [1, 2, 3]
    # A range starting inside a batch keeps only its own records.
    tail = list(read_range(opts, OffsetRange(topic, 0, 1, 2)))
    assert [b.column(4).to_pylist() for b in tail] == [[1]]


def test_stream_reader_plans_micro_batches(bootstrap: str, new_topic: Callable[..., str]) -> None:
    from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows

    topic = new_topic(partitions=2)
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(30):
        producer.produce(topic, b"%d" % i, partition=i % 2)
    assert producer.flush(30) == 0
    opts = parse_options(
        {"kafka.bootstrap.servers": bootstrap, "subscribe": topic, "maxOffsetsPerTrigger": "8"}
    )
    reader = FerrologStreamReader(opts)
    try:
        assert reader.initialOffset() == {topic: {"0": 15, "1": 15}}  # latest by default
        earliest = {topic: {"0": 0, "1": 0}}
        assert reader.getDefaultReadLimit() == ReadMaxRows(8)
        first = reader.latestOffset(earliest, ReadMaxRows(8))
        assert first == {topic: {"0": 4, "1": 4}}
        assert reader.latestOffset(earliest, ReadAllAvailable()) == {topic: {"0": 15, "1": 15}}
        assert reader.partitions(earliest, first) == [
            OffsetRange(topic, 0, 0, 4),
            OffsetRange(topic, 1, 0, 4),
        ]
        assert reader.partitions(first, first) == []
        reader.prepareForTriggerAvailableNow()
        producer.produce(topic, b"late", partition=0)
        assert producer.flush(30) == 0
        assert reader.latestOffset(first, ReadAllAvailable()) == {topic: {"0": 15, "1": 15}}
    finally:
        reader.stop()


def test_decode_columns_is_exposed_natively() -> None:
    batch = ferrolog_native.build_batch([(b"k", b"v", [], 5)], codec=3)
    cols = ferrolog_native.decode_columns(batch, 0, 1)
    assert (cols.rows, cols.next_offset, cols.values.data) == (1, 1, b"v")


def test_deleted_offsets_fail_or_are_skipped_with_fail_on_data_loss(
    bootstrap: str, new_topic: Callable[..., str]
) -> None:
    topic = new_topic(partitions=1)
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(10):
        producer.produce(topic, b"%d" % i)
    assert producer.flush(30) == 0
    admin = AdminClient({"bootstrap.servers": bootstrap})
    deleted = admin.delete_records([TopicPartition(topic, 0, 5)])
    for future in deleted.values():
        future.result(timeout=20)
    planned = OffsetRange(topic, 0, 0, 10)  # planned before the records were deleted
    strict = parse_options({"kafka.bootstrap.servers": bootstrap, "subscribe": topic})
    with pytest.raises(KafkaError, match="out of range"):
        list(read_range(strict, planned))
    lenient = parse_options({**strict_options(bootstrap, topic), "failOnDataLoss": "false"})
    offsets = [o for b in read_range(lenient, planned) for o in b.column(4).to_pylist()]
    assert offsets == [5, 6, 7, 8, 9]
    # Planning sees the new log start; ending offsets past the end are refused at once.
    assert FerrologBatchReader(strict).partitions() == [OffsetRange(topic, 0, 5, 10)]
    past = parse_options(
        {**strict_options(bootstrap, topic), "endingOffsets": f'{{"{topic}":{{"0":11}}}}'}
    )
    with pytest.raises(ValueError, match="past the end"):
        FerrologBatchReader(past).partitions()


def strict_options(bootstrap: str, topic: str) -> dict[str, str]:
    return {"kafka.bootstrap.servers": bootstrap, "subscribe": topic}


def test_planning_connection_survives_a_broker_restart(
    ferrolog_broker_factory: Callable[..., Any],
) -> None:
    """The streaming planner keeps its connections for the whole query."""
    broker = ferrolog_broker_factory()
    admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
    admin.create_topics([NewTopic("t", 1, 1)])["t"].result(timeout=20)
    opts = parse_options({"kafka.bootstrap.servers": broker.bootstrap_servers, "subscribe": "t"})
    reader = FerrologStreamReader(opts)
    try:
        assert reader.initialOffset() == {"t": {"0": 0}}
        broker.restart()
        assert reader.reportLatestOffset() == {"t": {"0": 0}}
    finally:
        reader.stop()
