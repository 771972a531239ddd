"""The coordinator runtime that the group and transaction coordinators are shards on: batched
appends answered in order, leadership (load by replay, NOT_COORDINATOR after resigning), and
loading. The log is an in-memory stand-in for the native core's three calls the runtime
makes (append, partition_state, read), so each case can hold an append in flight."""

from __future__ import annotations

import asyncio
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from ferrolog import errors
from ferrolog.controller.coordinator import batches
from ferrolog.controller.coordinator.runtime import CoordinatorRuntime

native = pytest.importorskip("ferrolog_native")

TOPIC = "__test_state"


class MemoryLog:
    """Appends assign offsets as a leader does; `hold` keeps the next appends waiting."""

    def __init__(self) -> None:
        self.batches: list[bytes] = []
        self.end = 0
        self.hold = threading.Event()
        self.hold.set()
        self.appends: list[list[tuple[bytes | None, bytes | None]]] = []
        self.fail_with: Exception | None = None

    def append_now(self, topic: str, partition: int, batch: bytes) -> int:
        self.hold.wait(10)
        if self.fail_with is not None:
            raise self.fail_with
        data = bytearray(batch)
        struct.pack_into(">q", data, 0, self.end)
        [parsed] = batches.iter_batches(bytes(data))
        self.appends.append(list(parsed.key_values()))
        self.batches.append(bytes(data))
        self.end = parsed.last_offset + 1
        return parsed.base_offset

    async def append(self, topic: str, partition: int, batch: bytes) -> int:
        """`NativeWaits.append`'s stand-in (the log is the runtime's native core and its
        waits both): the append in a thread, where `hold` may keep it; the base offset."""
        return await asyncio.to_thread(self.append_now, topic, partition, batch)

    def partition_state(self, topic: str, partition: int) -> SimpleNamespace:
        return SimpleNamespace(log_start_offset=0, high_watermark=self.end, log_end_offset=self.end)

    def read(self, topic: str, partition: int, offset: int, max_bytes: int) -> bytes:
        return b"".join(
            b for b in self.batches if next(batches.iter_batches(b)).last_offset >= offset
        )


@dataclass
class Shard:
    partition: int
    epoch: int
    values: list[bytes | None] = field(default_factory=list)

    def replay_batch(self, batch: batches.Batch, now: int) -> int:
        pairs = list(batch.key_values())
        self.values.extend(v for _, v in pairs)
        return len(pairs)


def runtime_on(log: MemoryLog) -> tuple[CoordinatorRuntime[Shard], list[Shard], list[Shard]]:
    loaded: list[Shard] = []
    unloaded: list[Shard] = []
    runtime: CoordinatorRuntime[Shard] = CoordinatorRuntime(
        log,  # type: ignore[arg-type]
        log,  # type: ignore[arg-type]
        TOPIC,
        1,
        Shard,
        tick_seconds=3600,
        tick=lambda now: None,
        on_loaded=loaded.append,
        on_unloaded=unloaded.append,
    )
    return runtime, loaded, unloaded


async def leading(log: MemoryLog) -> tuple[CoordinatorRuntime[Shard], Shard, list[Shard]]:
    """A runtime that leads partition 0 (epoch 1) of `log`, its loaded shard, and the shards
    it unloads from now on."""
    runtime, _, unloaded = runtime_on(log)
    runtime.on_become_leader(0, 1, 1)
    return runtime, await served(runtime), unloaded


async def served(runtime: CoordinatorRuntime[Shard], partition: int = 0) -> Shard:
    for _ in range(200):
        try:
            return runtime.shard(partition)
        except errors.CoordinatorLoadInProgressError:
            await asyncio.sleep(0.01)
    raise AssertionError("never loaded")


def test_writes_queued_during_an_append_share_the_next_one_and_answer_in_order() -> None:
    async def scenario() -> None:
        log = MemoryLog()
        runtime, shard, _unloaded = await leading(log)
        log.hold.clear()
        offsets: dict[int, int] = {}

        def told(i: int) -> Callable[[int], None]:
            return lambda offset: offsets.__setitem__(i, offset)

        first = runtime.append(shard, [(b"k", b"1")], on_offset=told(0))
        await asyncio.sleep(0.05)  # in flight, held
        rest = [
            runtime.append(shard, [(b"k", str(i).encode())] * (i - 1), on_offset=told(i - 1))
            for i in range(2, 6)
        ]
        other = runtime.append(shard, [(b"k", b"txn")], producer=(7, 0), on_offset=told(5))
        order: list[int] = []
        for i, f in enumerate([first, *rest, other]):
            f.add_done_callback(lambda _, i=i: order.append(i))
        log.hold.set()
        assert await asyncio.gather(first, *rest, other) == [0] * 6
        assert order == list(range(6))
        # One append held, the four joined, and the transactional producer's apart; each
        # write is told where its first record went (writes of 1, 2, 3 and 4 records joined).
        assert [len(a) for a in log.appends] == [1, 10, 1]
        assert offsets == {0: 0, 1: 1, 2: 2, 3: 4, 4: 7, 5: 11}
        await runtime.stop()

    asyncio.run(scenario())


def test_a_resigned_partition_answers_not_coordinator_even_for_an_append_in_flight() -> None:
    async def scenario() -> None:
        log = MemoryLog()
        runtime, shard, unloaded = await leading(log)
        log.hold.clear()
        in_flight = runtime.append(shard, [(b"k", b"1")])
        await asyncio.sleep(0.05)
        queued = runtime.append(shard, [(b"k", b"2")])
        runtime.on_resign(0)
        assert unloaded == [shard]
        assert await queued == errors.NotCoordinatorError.code
        log.hold.set()
        assert await in_flight == errors.NotCoordinatorError.code
        assert await runtime.append(shard, [(b"k", b"3")]) == errors.NotCoordinatorError.code
        with pytest.raises(errors.NotCoordinatorError):
            runtime.shard(0)
        await runtime.stop()

    asyncio.run(scenario())


def test_a_failed_append_gives_its_kafka_error_code() -> None:
    async def scenario() -> None:
        log = MemoryLog()
        runtime, shard, _unloaded = await leading(log)
        log.fail_with = native.KafkaNativeError(errors.NotEnoughReplicasError.code, "1 of 2")
        assert await runtime.append(shard, [(b"k", b"1")]) == errors.NotEnoughReplicasError.code
        await runtime.stop()

    asyncio.run(scenario())


def test_a_new_leader_epoch_reloads_the_partition_from_its_log() -> None:
    async def scenario() -> None:
        log = MemoryLog()
        runtime, loaded, unloaded = runtime_on(log)
        runtime.on_become_leader(0, 1, 1)
        shard = await served(runtime)
        for i in range(3):
            assert await runtime.append(shard, [(b"k", str(i).encode()), (b"j", None)]) == 0
        runtime.on_become_leader(0, 1, 1)  # the same term: nothing happens
        assert runtime.shard(0) is shard
        runtime.on_become_leader(0, 2, 1)
        assert unloaded == [shard]
        reloaded = await served(runtime)
        assert reloaded is not shard
        assert reloaded.epoch == 2
        assert reloaded.values == [b"0", None, b"1", None, b"2", None]
        assert loaded == [shard, reloaded]
        assert runtime.led_partitions() == [0]
        await runtime.stop()
        assert unloaded == [shard, reloaded]

    asyncio.run(scenario())


def test_a_stopping_runtime_lets_queued_writes_reach_the_log_first() -> None:
    async def scenario() -> None:
        log = MemoryLog()
        runtime, shard, unloaded = await leading(log)
        log.hold.clear()
        in_flight = runtime.append(shard, [(b"k", b"1")])
        await asyncio.sleep(0.05)
        queued = runtime.append(shard, [(b"k", b"2")])
        stopping = asyncio.ensure_future(runtime.stop())
        await asyncio.sleep(0.05)
        assert not stopping.done()  # waiting for the writes, not cancelling them
        log.hold.set()
        await stopping
        # Answered with what happened to them: both are in the log.
        assert [in_flight.result(), queued.result()] == [0, 0]
        assert log.appends == [[(b"k", b"1")], [(b"k", b"2")]]
        assert unloaded == [shard]

    asyncio.run(scenario())
