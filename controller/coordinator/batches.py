"""Record batches of the coordinators' internal topics: building one to append, and reading a
partition back when its coordinator loads it.

Both coordinators replay their partition from the log start at load; they need the keys and
values of data batches, and (for transactional offset commits) the producer of a batch and
the COMMIT/ABORT markers that end its transaction. Appends and reads go through the native
core (`Server.append`, `Server.read`), which also builds the batches and decodes what is read
back (`build_batch`, `decode_batches`): Python parses no record batch."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, NamedTuple

from ferrolog.native_calls import native_call

if TYPE_CHECKING:
    import ferrolog_native

# A coordinator reads its partition in chunks of this many bytes.
READ_CHUNK = 1 << 20

CONTROL_ABORT = 0
CONTROL_COMMIT = 1

log = logging.getLogger(__name__)


class Batch(NamedTuple):
    """A batch as a loading coordinator replays it, decoded by the native core
    (`ferrolog_native.decode_batches`)."""

    base_offset: int
    last_offset: int
    producer_id: int
    producer_epoch: int
    is_transactional: bool
    # A transaction marker's outcome (True: COMMIT), or None for a data batch.
    commit: bool | None
    records: list[tuple[bytes | None, bytes | None]]

    @property
    def is_control(self) -> bool:
        return self.commit is not None

    def control_type(self) -> int | None:
        """CONTROL_COMMIT or CONTROL_ABORT for a transaction marker, else None."""
        if self.commit is None:
            return None
        return CONTROL_COMMIT if self.commit else CONTROL_ABORT

    def key_values(self) -> Iterator[tuple[bytes | None, bytes | None]]:
        """The (key, value) of each record of a data batch (none for a marker)."""
        return iter(self.records)


def iter_batches(data: bytes) -> Iterator[Batch]:
    """Each whole batch in `data`; a truncated batch at the end (a bounded read) is left
    out."""
    import ferrolog_native

    for row in ferrolog_native.decode_batches(data):
        yield Batch(*row)


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
    start, committed, end = await native_call(positions, native, topic, partition)
    deadline = time.monotonic() + COMMIT_WAIT_S
    while committed < end and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        _, committed, _ = await native_call(positions, native, topic, partition)
    if committed < end:
        log.warning(
            "loading %s-%d below its log end: high watermark %d, log end %d",
            topic, partition, committed, end,
        )  # fmt: skip
    offset = start
    while True:
        data = await native_call(native.read, topic, partition, offset, READ_CHUNK)
        last = -1
        for batch in iter_batches(data):
            last = batch.last_offset
            yield batch
        if last < offset:
            return
        offset = last + 1
