"""Record batches of the coordinators' internal topics: building one to append, and reading a
partition back when its coordinator loads it.

Both coordinators replay their partition from the log start at load; they need the keys and
values of data batches, and (for transactional offset commits) the producer of a batch and
the COMMIT/ABORT markers that end its transaction. Appends and reads go through the native
core (`Server.append`, `Server.read`) in a worker thread: they wait on disk and replication."""

from __future__ import annotations

import asyncio
import logging
import struct
import time
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import ferrolog_native

# A coordinator reads its partition in chunks of this many bytes.
READ_CHUNK = 1 << 20

_HEADER = struct.Struct(">qiibIhiqqqhii")
HEADER_SIZE = _HEADER.size  # 61
_ATTR_CODEC = 0x07
_ATTR_TRANSACTIONAL = 0x10
_ATTR_CONTROL = 0x20
# Control record key: int16 version, int16 type (0 ABORT, 1 COMMIT).
_CONTROL_KEY = struct.Struct(">hh")
CONTROL_ABORT = 0
CONTROL_COMMIT = 1

log = logging.getLogger(__name__)


class Batch(NamedTuple):
    base_offset: int
    last_offset: int
    attributes: int
    producer_id: int
    producer_epoch: int
    # The records section (after the 61-byte header), possibly compressed.
    section: bytes

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & _ATTR_CONTROL)

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & _ATTR_TRANSACTIONAL)

    def control_type(self) -> int | None:
        """CONTROL_COMMIT or CONTROL_ABORT for a transaction marker, else None."""
        if not self.is_control:
            return None
        for key, _ in _records(self.section):
            if key is not None and len(key) >= _CONTROL_KEY.size:
                control: int = _CONTROL_KEY.unpack_from(key)[1]
                return control
        return None

    def key_values(self) -> Iterator[tuple[bytes | None, bytes | None]]:
        """The (key, value) of each record of a data batch (none for a control batch)."""
        if self.is_control:
            return iter(())
        section = self.section
        codec = self.attributes & _ATTR_CODEC
        if codec:
            import ferrolog_native

            section = ferrolog_native.decompress(codec, section)
        return _records(section)


def _varint(buf: bytes | memoryview, pos: int) -> tuple[int, int]:
    shift = 0
    raw = 0
    while True:
        byte = buf[pos]
        pos += 1
        raw |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
        shift += 7
    return (raw >> 1) ^ -(raw & 1), pos


def _records(section: bytes) -> Iterator[tuple[bytes | None, bytes | None]]:
    buf = memoryview(section)
    pos = 0
    while pos < len(buf):
        length, pos = _varint(buf, pos)
        end = pos + length
        pos += 1  # attributes
        _, pos = _varint(buf, pos)  # timestamp delta
        _, pos = _varint(buf, pos)  # offset delta
        key_len, pos = _varint(buf, pos)
        key = None if key_len < 0 else bytes(buf[pos : pos + key_len])
        pos += max(key_len, 0)
        value_len, pos = _varint(buf, pos)
        value = None if value_len < 0 else bytes(buf[pos : pos + value_len])
        yield key, value
        pos = end


def iter_batches(data: bytes) -> Iterator[Batch]:
    """Each whole batch in `data`; a truncated batch at the end (a bounded read) is left
    out."""
    pos = 0
    while pos + HEADER_SIZE <= len(data):
        f = _HEADER.unpack_from(data, pos)
        base_offset, length, attributes, last_delta = f[0], f[1], f[5], f[6]
        end = pos + 12 + length
        if end > len(data):
            return
        yield Batch(
            base_offset, base_offset + last_delta, attributes, f[9], f[10],
            data[pos + HEADER_SIZE : end],
        )  # fmt: skip
        pos = end


def build_batch(
    pairs: list[tuple[bytes, bytes | None]],
    now_ms: int,
    producer: tuple[int, int] | None = None,
) -> bytes:
    """One uncompressed RecordBatch v2 of `pairs`, ready for `Server.append`; with
    `producer` (id, epoch) a transactional batch of that producer, as Kafka's coordinators
    write transactional offset commits (sequence 0: a coordinator's appends are not checked
    for sequence, only for epoch)."""
    import ferrolog_native

    records: list[tuple[bytes | None, bytes | None, list[tuple[str, bytes | None]], int]] = [
        (key, value, [], now_ms) for key, value in pairs
    ]
    if producer is None:
        return ferrolog_native.build_batch(records)
    producer_id, epoch = producer
    return ferrolog_native.build_batch(
        records, producer_id=producer_id, producer_epoch=epoch, base_sequence=0,
        transactional=True,
    )  # fmt: skip


# How long a loading coordinator waits for its log end to be committed before it loads what is.
COMMIT_WAIT_S = 60.0


def positions(native: ferrolog_native.Server, topic: str, partition: int) -> tuple[int, int, int]:
    """(log start, high watermark, log end) of a local replica; zeros if it is not here."""
    state = native.partition_state(topic, partition)
    if state is None:
        return 0, 0, 0
    return state.log_start_offset, state.high_watermark, state.log_end_offset


async def read_partition(
    native: ferrolog_native.Server, topic: str, partition: int
) -> AsyncIterator[Batch]:
    """Every batch of the partition from its log start, as a loading coordinator replays it,
    up to the log end as it is when the load starts, once that is committed. A new leader's
    high watermark can lag what the previous leader acknowledged until its followers fetch
    again; a coordinator that stopped there would answer from an older state than its clients
    were told of (Kafka's coordinators load to the log end for the same reason)."""
    start, committed, end = await asyncio.to_thread(positions, native, topic, partition)
    deadline = time.monotonic() + COMMIT_WAIT_S
    while committed < end and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        _, committed, _ = await asyncio.to_thread(positions, native, topic, partition)
    if committed < end:
        log.warning(
            "loading %s-%d below its log end: high watermark %d, log end %d",
            topic, partition, committed, end,
        )  # fmt: skip
    offset = start
    while True:
        data = await asyncio.to_thread(native.read, topic, partition, offset, READ_CHUNK)
        last = -1
        for batch in iter_batches(data):
            last = batch.last_offset
            yield batch
        if last < offset:
            return
        offset = last + 1
