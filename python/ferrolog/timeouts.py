"""Bounded waits that a cancellation always interrupts.

Python 3.11's `asyncio.wait_for` returns the awaited result, swallowing a cancellation, when
the cancellation and the result arrive in the same loop iteration (CPython gh-86296, fixed in
3.12). A loop that waits on an event with it survives `task.cancel()` whenever the event was
set just before: the cluster member's loop did so on a broker shutting down, and the broker
never exited. `asyncio.timeout` has no such window, so bounded waits go through here."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def wait_event(event: asyncio.Event, timeout_s: float) -> bool:
    """Waits at most `timeout_s` for `event`; returns whether it is set."""
    try:
        async with asyncio.timeout(timeout_s):
            await event.wait()
    except TimeoutError:
        pass
    return event.is_set()


async def bounded(awaitable: Awaitable[T], timeout_s: float) -> T:
    """`await awaitable`, raising TimeoutError after `timeout_s` (which cancels it)."""
    async with asyncio.timeout(timeout_s):
        return await awaitable
