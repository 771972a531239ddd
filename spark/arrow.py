"""Executor-side reading: one offset range fetched from its leader and turned into Arrow
record batches. The native `decode_columns` does the per-record work; here each fetched
response becomes one `pyarrow.RecordBatch` by wrapping the native buffers (no copy)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pyarrow as pa
from ferrolog import errors
from ferrolog.spark.client import EARLIEST, Cluster
from ferrolog.spark.options import Options
from ferrolog.spark.planning import OffsetRange
from ferrolog_native import BinaryBuffers, DecodedColumns, decode_columns

# The list's item is named "element", as Spark's own conversion names it: Spark compares the
# whole Arrow schema of what `read()` yields with the one it expects.
HEADER_TYPE = pa.list_(
    pa.field("element", pa.struct([("key", pa.string()), ("value", pa.binary())]))
)
# Spark reads its TimestampType from Arrow as microseconds with the session's time zone; the
# instant is the same whatever zone is written, so UTC is used.
TIMESTAMP_TYPE = pa.timestamp("us", tz="UTC")


def arrow_schema(include_headers: bool) -> pa.Schema:
    fields = [
        ("key", pa.binary()),
        ("value", pa.binary()),
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("offset", pa.int64()),
        ("timestamp", TIMESTAMP_TYPE),
        ("timestampType", pa.int32()),
    ]
    if include_headers:
        fields.append(("headers", HEADER_TYPE))
    return pa.schema(fields)


def _binary(b: BinaryBuffers, rows: int, kind: pa.DataType) -> pa.Array:
    validity = pa.py_buffer(b.validity) if b.null_count else None
    return pa.Array.from_buffers(
        kind, rows, [validity, pa.py_buffer(b.offsets), pa.py_buffer(b.data)], b.null_count
    )


def _fixed(data: bytes, rows: int, kind: pa.DataType) -> pa.Array:
    return pa.Array.from_buffers(kind, rows, [None, pa.py_buffer(data)], 0)


def to_record_batch(
    cols: DecodedColumns, topic: str, partition: int, include_headers: bool
) -> pa.RecordBatch:
    n = cols.rows
    arrays = [
        _binary(cols.keys, n, pa.binary()),
        _binary(cols.values, n, pa.binary()),
        pa.repeat(pa.scalar(topic, pa.string()), n),
        pa.repeat(pa.scalar(partition, pa.int32()), n),
        _fixed(cols.offsets, n, pa.int64()),
        _fixed(cols.timestamps, n, TIMESTAMP_TYPE),
        _fixed(cols.timestamp_types, n, pa.int32()),
    ]
    if include_headers:
        entries = len(cols.header_keys.offsets) // 4 - 1
        pairs = pa.StructArray.from_arrays(
            [
                _binary(cols.header_keys, entries, pa.string()),
                _binary(cols.header_values, entries, pa.binary()),
            ],
            names=["key", "value"],
        )
        validity = pa.py_buffer(cols.header_validity) if cols.header_null_count else None
        arrays.append(
            pa.Array.from_buffers(
                HEADER_TYPE,
                n,
                [validity, pa.py_buffer(cols.header_offsets)],
                cols.header_null_count,
                children=[pairs],
            )
        )
    return pa.RecordBatch.from_arrays(arrays, schema=arrow_schema(include_headers))


# One fetch of well-compressed records can hold hundreds of megabytes: Spark's JVM side
# allocates each Arrow batch it receives whole, so they are sent in slices of about this size
# (slicing copies nothing; Arrow's IPC writer sends only the slice's bytes).
SLICE_BYTES = 8 * 1024 * 1024


def _slices(batch: pa.RecordBatch) -> Iterator[pa.RecordBatch]:
    size = batch.nbytes
    if size <= SLICE_BYTES:
        yield batch
        return
    rows = max(1, batch.num_rows * SLICE_BYTES // size)
    for start in range(0, batch.num_rows, rows):
        yield batch.slice(start, rows)


def read_range(opts: Options, r: OffsetRange) -> Iterator[pa.RecordBatch]:
    """Every record of `r`, in offset order, as Arrow record batches (one per fetch)."""
    with Cluster(opts.bootstrap, security=opts.security) as cluster:
        yield from _read(cluster, opts, r)


def _read(cluster: Cluster, opts: Options, r: OffsetRange) -> Iterator[pa.RecordBatch]:
    offset = r.start
    deadline = time.monotonic() + opts.poll_timeout_ms / 1000
    max_bytes = opts.fetch_max_bytes
    attempt = 0
    while offset < r.end:
        try:
            p = cluster.fetch(
                r.topic,
                r.partition,
                offset,
                max_bytes=max_bytes,
                max_wait_ms=500,
                isolation_level=opts.isolation_level,
            )
            code = p["error_code"]
        except errors.KafkaError as e:
            if not e.retriable:
                raise
            code = e.code
        except OSError:
            # The connection broke: the leader may have gone, so it is looked up again.
            code = errors.NetworkExceptionError.code
        if errors.retriable(code):
            attempt += 1
            if time.monotonic() > deadline:
                raise errors.for_code(code)(f"Fetch {r.topic}-{r.partition}: gave up")
            cluster.forget_leader(r.topic, r.partition)
            time.sleep(min(0.05 * 2**attempt, 1.0))
            continue
        if code == errors.OffsetOutOfRangeError.code:
            offset = _lost(cluster, opts, r, offset)
            continue
        if code != 0:
            raise errors.for_code(code)(f"Fetch {r.topic}-{r.partition} at offset {offset}")
        records = p["records"] or b""
        aborted = None
        if opts.isolation_level == 1:
            aborted = [
                (a["producer_id"], a["first_offset"]) for a in p["aborted_transactions"] or ()
            ]
        cols = decode_columns(records, offset, r.end, opts.include_headers, aborted)
        if cols.rows:
            yield from _slices(to_record_batch(cols, r.topic, r.partition, opts.include_headers))
        if cols.next_offset > offset:
            offset = cols.next_offset
            deadline = time.monotonic() + opts.poll_timeout_ms / 1000
        elif records:
            # A batch larger than the fetch size (old brokers cut it): ask for more.
            max_bytes *= 2
        elif time.monotonic() > deadline:
            # The planned end is not there any more (truncated, or retention took it).
            if opts.fail_on_data_loss:
                raise errors.OffsetOutOfRangeError(
                    f"{r.topic}-{r.partition}: offsets [{offset}, {r.end}) are not available "
                    "(set failOnDataLoss=false to skip them)",
                )
            return


def _lost(cluster: Cluster, opts: Options, r: OffsetRange, offset: int) -> int:
    """The fetch offset is out of range: records were deleted (retention) before we read them."""
    first = cluster.list_offsets({(r.topic, r.partition): EARLIEST})[(r.topic, r.partition)]
    if opts.fail_on_data_loss:
        raise errors.OffsetOutOfRangeError(
            f"{r.topic}-{r.partition}: offset {offset} is out of range (log starts at {first}); "
            "some data may have been lost. Set failOnDataLoss=false to skip it.",
        )
    # Behind the log start: skip to it. Past the end (the log was truncated): nothing left.
    return first if first > offset else r.end
