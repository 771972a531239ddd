"""The coordinator runtime: what every coordinator of an internal topic shares, as Kafka's
`coordinator-common` (`CoordinatorRuntime`, `PartitionWriter`, `CoordinatorLoader`).

A coordinator keeps its state in one shard per partition of its internal topic
(`__consumer_offsets`, `__transaction_state`, ...). The runtime owns those shards: which
partitions this broker leads and at which leader epoch (`on_become_leader` / `on_resign`,
called by the controller), loading a newly led partition by replaying it from its log start
(requests get COORDINATOR_LOAD_IN_PROGRESS until then), the batched acks=all appends of each
partition, and one timer. The coordinator built on it decides; the runtime only does the I/O.

Appends: the writes queued while an append of the partition is in flight are joined into the
next batch (consecutive writes of the same transactional producer, or of none), so many
concurrent state changes cost one append. Each write's future gets 0 once its records are
committed, else the Kafka error code of the failed append (NOT_COORDINATOR when the partition
was resigned meanwhile), in submission order: a coordinator that applies its change in the
future's callback applies the changes of one partition in log order, which is the order a
later load replays them in."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.coordinator import batches

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.controller.native_waits import NativeWaits

log = logging.getLogger(__name__)

# A batch of an internal topic stays well under its max.message.bytes.
MAX_BATCH_BYTES = 512 * 1024
# How long a stopping runtime lets the writes already queued reach the log and be answered.
STOP_DRAIN_S = 2.0

Pair = tuple[bytes, bytes | None]
# (producer id, epoch) of a transactional write (a transactional offset commit), else None.
Producer = tuple[int, int] | None


class CoordinatorShard(Protocol):
    """The state of one partition of a coordinator's internal topic."""

    partition: int
    # The partition's leader epoch when this shard was made (the coordinator epoch).
    epoch: int

    def replay_batch(self, batch: batches.Batch, now: int) -> int:
        """Applies one batch read back from the log at load; returns the records applied."""
        ...


S = TypeVar("S", bound=CoordinatorShard)


@dataclass
class _Write:
    pairs: list[Pair]
    producer: Producer
    future: asyncio.Future[int]
    # Told the offset of the first pair once committed.
    on_offset: Callable[[int], None] | None = None

    @property
    def size(self) -> int:
        return sum(len(k) + len(v or b"") + 16 for k, v in self.pairs)


@dataclass
class _Owned(Generic[S]):
    shard: S
    loaded: bool = False
    pending: list[_Write] = field(default_factory=list)
    writer: asyncio.Task[None] | None = None


class CoordinatorRuntime(Generic[S]):
    def __init__(
        self,
        native: ferrolog_native.Server,
        waits: NativeWaits,
        topic: str,
        partition_count: int,
        new_shard: Callable[[int, int], S],
        *,
        tick_seconds: float,
        tick: Callable[[int], None],
        on_loaded: Callable[[S], None] = lambda shard: None,
        on_unloaded: Callable[[S], None] = lambda shard: None,
    ) -> None:
        self._native = native
        self._waits = waits
        self.topic = topic
        # The partitions of the internal topic (the controller's count once it leads one).
        self.partition_count = partition_count
        self._new_shard = new_shard
        self._tick_seconds = tick_seconds
        self._tick = tick
        self._on_loaded = on_loaded
        self._on_unloaded = on_unloaded
        self._owned: dict[int, _Owned[S]] = {}
        self._tasks: set[asyncio.Future[Any]] = set()
        self._ticker: asyncio.Task[None] | None = None

    # Leadership hooks (called by the controller)

    def on_become_leader(self, partition: int, leader_epoch: int, partition_count: int) -> None:
        """This broker now leads `partition` (at `leader_epoch`): load its shard."""
        self.partition_count = partition_count
        current = self._owned.get(partition)
        if current is not None and current.shard.epoch == leader_epoch:
            return
        if current is not None:
            self._unload(current)
        owned = _Owned(self._new_shard(partition, leader_epoch))
        self._owned[partition] = owned
        self.spawn(self._load(owned))

    def on_resign(self, partition: int) -> None:
        """Another broker leads `partition` now: its shard goes."""
        owned = self._owned.pop(partition, None)
        if owned is not None:
            self._unload(owned)

    def _unload(self, owned: _Owned[S]) -> None:
        # Writes not appended yet fail; one in flight learns NOT_COORDINATOR when it returns
        # (whether it made it is for the next coordinator to read from the log).
        self._answer(owned.pending, errors.NotCoordinatorError.code)
        owned.pending = []
        if owned.loaded:
            self._on_unloaded(owned.shard)

    def led_partitions(self) -> list[int]:
        return sorted(self._owned)

    # Lifecycle

    def start(self) -> None:
        self._ticker = asyncio.get_running_loop().create_task(self._tick_loop())

    async def stop(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)
            self._ticker = None
        # Writes queued or in flight finish first (for a while at most): their requests learn
        # the outcome, rather than NOT_COORDINATOR for a write that lands in the log anyway.
        writers = [o.writer for o in self._owned.values() if o.writer is not None]
        if writers:
            await asyncio.wait(writers, timeout=STOP_DRAIN_S)
        owned, self._owned = list(self._owned.values()), {}
        for o in owned:
            self._unload(o)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def spawn(self, coro: Awaitable[Any]) -> None:
        """Runs `coro` in the background until it ends or the runtime stops."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # Shards

    def shard(self, partition: int) -> S:
        """The loaded shard of `partition`; raises NotCoordinatorError or
        CoordinatorLoadInProgressError."""
        owned = self._owned.get(partition)
        if owned is None:
            raise errors.NotCoordinatorError()
        if not owned.loaded:
            raise errors.CoordinatorLoadInProgressError()
        return owned.shard

    def owned_shard(self, partition: int) -> S | None:
        """The shard of `partition` if this broker leads it, loaded or not."""
        owned = self._owned.get(partition)
        return owned.shard if owned is not None else None

    def shards(self) -> list[S]:
        """The loaded shards, by partition."""
        return [o.shard for _, o in sorted(self._owned.items()) if o.loaded]

    def is_current(self, shard: S) -> bool:
        """Whether `shard` still serves its partition (not resigned or replaced)."""
        owned = self._owned.get(shard.partition)
        return owned is not None and owned.shard is shard

    def loading(self) -> bool:
        return any(not o.loaded for o in self._owned.values())

    # Appends

    def append(
        self,
        shard: S,
        pairs: list[Pair],
        producer: Producer = None,
        on_offset: Callable[[int], None] | None = None,
    ) -> asyncio.Future[int]:
        """Queues `pairs` (key, value) for the next append to `shard`'s partition; the future
        gets 0 once they are committed, else a Kafka error code. `on_offset` is told the
        offset of the first pair, once committed (the next ones follow it)."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        owned = self._owned.get(shard.partition)
        if owned is None or owned.shard is not shard:
            future.set_result(errors.NotCoordinatorError.code)
            return future
        owned.pending.append(_Write(pairs, producer, future, on_offset))
        if owned.writer is None:
            owned.writer = asyncio.get_running_loop().create_task(self._write_loop(owned))
            self._tasks.add(owned.writer)
            owned.writer.add_done_callback(self._tasks.discard)
        return future

    async def _write_loop(self, owned: _Owned[S]) -> None:
        writes: list[_Write] = []
        try:
            while owned.pending:
                writes = []
                size = 0
                # One batch has one producer: transactional writes of different producers
                # (and plain ones) go in separate appends.
                producer = owned.pending[0].producer
                while (
                    owned.pending
                    and owned.pending[0].producer == producer
                    and (not writes or size < MAX_BATCH_BYTES)
                ):
                    w = owned.pending.pop(0)
                    writes.append(w)
                    size += w.size
                error, base = await self._append(
                    [p for w in writes for p in w.pairs], producer, owned
                )
                if not error and not self.is_current(owned.shard):
                    error = errors.NotCoordinatorError.code  # resigned while appending
                if not error:
                    self._tell_offsets(writes, base)
                self._answer(writes, error)
                writes = []
        finally:
            # Cancelled mid-append (the runtime stopped): whether the batch made it is
            # unknown here, and the next coordinator reads the log to find out.
            self._answer(writes, errors.NotCoordinatorError.code)
            owned.writer = None

    async def _append(
        self, pairs: list[Pair], producer: Producer, owned: _Owned[S]
    ) -> tuple[int, int]:
        """(0, the batch's base offset) once committed, else (a Kafka error code, -1)."""
        partition = owned.shard.partition
        batch = batches.build_batch(pairs, now_ms(), producer)
        try:
            base: int = await self._waits.append(self.topic, partition, batch)
        except Exception as exc:
            log.warning("append to %s-%d failed: %s", self.topic, partition, exc)
            code: int = errors.from_native(exc).code
            return code, -1
        return 0, base

    @staticmethod
    def _tell_offsets(writes: list[_Write], base: int) -> None:
        """Each write's first offset: its pairs follow the writes before it in the batch."""
        offset = base
        for w in writes:
            if w.on_offset is not None:
                w.on_offset(offset)
            offset += len(w.pairs)

    @staticmethod
    def _answer(writes: list[_Write], error: int) -> None:
        for w in writes:
            if not w.future.done():
                w.future.set_result(error)

    # Loading

    async def _load(self, owned: _Owned[S]) -> None:
        shard = owned.shard
        started = time.monotonic()
        count = 0
        try:
            async for batch in batches.read_partition(self._native, self.topic, shard.partition):
                count += shard.replay_batch(batch, now_ms())
        except Exception:
            log.exception("loading %s-%d failed", self.topic, shard.partition)
            if self._owned.get(shard.partition) is owned:
                del self._owned[shard.partition]
            return
        if self._owned.get(shard.partition) is not owned:
            return
        owned.loaded = True
        log.info(
            "loaded %s-%d epoch=%d records=%d in %.3fs",
            self.topic, shard.partition, shard.epoch, count, time.monotonic() - started,
        )  # fmt: skip
        self._on_loaded(shard)

    # Timers

    async def _tick_loop(self) -> None:
        while True:
            await asyncio.sleep(self._tick_seconds)
            try:
                self._tick(now_ms())
            except Exception:
                log.exception("%s coordinator tick failed", self.topic)
