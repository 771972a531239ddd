"""`PartitionWriter`: a coordinator's appends to one partition of its internal topic.

Appends are acks=all (the native `Server.append` returns once the batch is committed) and run
in a worker thread. Writes submitted while an append is in flight are joined into the next
batch, so many concurrent state changes cost one append; each write learns its outcome (0 or
the Kafka error code of the failed append) from its future, in submission order."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.coordinator import batches

if TYPE_CHECKING:
    import ferrolog_native

log = logging.getLogger(__name__)

# A batch of an internal topic stays well under its max.message.bytes.
MAX_BATCH_BYTES = 512 * 1024


@dataclass
class _Write:
    pairs: list[tuple[bytes, bytes | None]]
    future: asyncio.Future[int]

    @property
    def size(self) -> int:
        return sum(len(k) + len(v or b"") + 16 for k, v in self.pairs)


class PartitionWriter:
    def __init__(self, native: ferrolog_native.Server, topic: str, partition: int) -> None:
        self._native = native
        self.topic = topic
        self.partition = partition
        self._pending: list[_Write] = []
        self._task: asyncio.Task[None] | None = None

    def submit(self, pairs: list[tuple[bytes, bytes | None]]) -> asyncio.Future[int]:
        """Queues `pairs` (key, value) for the next append; the future gets 0 once they are
        committed, else the append's Kafka error code."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append(_Write(pairs, future))
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())
        return future

    async def close(self) -> None:
        """Stops appending; writes not appended yet fail with NOT_COORDINATOR."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._fail(self._pending, errors.NotCoordinatorError.code)
        self._pending = []

    async def _run(self) -> None:
        writes: list[_Write] = []
        try:
            while self._pending:
                writes = []
                size = 0
                while self._pending and (not writes or size < MAX_BATCH_BYTES):
                    w = self._pending.pop(0)
                    writes.append(w)
                    size += w.size
                error = await self._append([p for w in writes for p in w.pairs])
                self._fail(writes, error)
        finally:
            # Cancelled mid-append (the coordinator resigned): whether the batch made it is
            # unknown here, and the next coordinator reads the log to find out.
            self._fail(writes, errors.NotCoordinatorError.code)
            if self._task is asyncio.current_task():
                self._task = None

    async def _append(self, pairs: list[tuple[bytes, bytes | None]]) -> int:
        batch = batches.build_batch(pairs, now_ms())
        try:
            await asyncio.to_thread(self._native.append, self.topic, self.partition, batch)
        except Exception as exc:
            log.warning("append to %s-%d failed: %s", self.topic, self.partition, exc)
            return errors.from_native(exc).code
        return 0

    @staticmethod
    def _fail(writes: list[_Write], error: int) -> None:
        for w in writes:
            if not w.future.done():
                w.future.set_result(error)
