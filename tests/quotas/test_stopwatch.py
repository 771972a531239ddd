"""The busy time a request quota meters on the Python side: a handler's running steps, not its
waits, and a handler cancelled while timed is cancelled as usual."""

from __future__ import annotations

import asyncio
import time

import pytest
from ferrolog.request_time import Stopwatch


async def busy_then_wait(busy_s: float, wait_s: float) -> str:
    end = time.perf_counter() + busy_s
    while time.perf_counter() < end:
        pass
    await asyncio.sleep(wait_s)
    return "done"


def test_waits_are_not_counted() -> None:
    watch = Stopwatch()

    async def main() -> str:
        return await watch.run(busy_then_wait(0.02, 0.3))

    assert asyncio.run(main()) == "done"
    assert 0.02 <= watch.busy_ns / 1e9 < 0.15


def test_cancellation_reaches_the_handler() -> None:
    watch = Stopwatch()
    cancelled = []

    async def handler() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def main() -> None:
        task = asyncio.ensure_future(watch.run(handler()))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert cancelled == [True]
