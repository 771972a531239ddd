"""Bounded waits end on cancellation even when what they wait for arrives in the same loop
iteration (the window in which Python 3.11's `asyncio.wait_for` swallows the cancellation)."""

from __future__ import annotations

import asyncio

import pytest
from ferrolog.timeouts import bounded, wait_event


async def _set_and_cancel(task: asyncio.Task[object], event: asyncio.Event) -> None:
    await asyncio.sleep(0.01)  # the task is now parked in its wait
    event.set()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(asyncio.shield(task), 1.0)


def test_wait_event_is_cancelled_when_the_event_fires_in_the_same_iteration() -> None:
    async def scenario() -> None:
        event = asyncio.Event()

        async def loop_forever() -> None:
            while True:
                await wait_event(event, 5.0)
                event.clear()

        task = asyncio.create_task(loop_forever())
        await _set_and_cancel(task, event)
        assert task.cancelled()

    asyncio.run(scenario())


def test_bounded_is_cancelled_when_the_result_arrives_in_the_same_iteration() -> None:
    async def scenario() -> None:
        event = asyncio.Event()

        async def loop_forever() -> None:
            while True:
                await bounded(event.wait(), 5.0)
                event.clear()

        task = asyncio.create_task(loop_forever())
        await _set_and_cancel(task, event)
        assert task.cancelled()

    asyncio.run(scenario())


def test_wait_event_times_out_and_reports_the_event() -> None:
    async def scenario() -> None:
        event = asyncio.Event()
        assert not await wait_event(event, 0.01)
        event.set()
        assert await wait_event(event, 0.01)
        with pytest.raises(TimeoutError):
            await bounded(asyncio.sleep(1), 0.01)

    asyncio.run(scenario())
