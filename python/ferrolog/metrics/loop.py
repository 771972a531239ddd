"""Asking the broker's event loop for state from prometheus_client's scrape thread: the
control plane's state is only ever changed on the loop, so it is read there too."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

# How long a scrape waits for the broker's loop before it answers without that part.
LOOP_TIMEOUT_S = 5.0


def ask_loop(
    loop: asyncio.AbstractEventLoop,
    work: Callable[[], Coroutine[Any, Any, T]],
    timeout: float = LOOP_TIMEOUT_S,
) -> T | None:
    """Runs `work()` on `loop` and returns its result; None when the loop is closed, stopping
    or stuck (the scrape still answers, without what it would have read)."""
    coro = work()
    try:
        future = asyncio.run_coroutine_threadsafe(coro, loop)
    except RuntimeError:  # the loop is closed: the broker has stopped
        coro.close()
        return None
    try:
        return future.result(timeout)
    except Exception:
        future.cancel()
        return None
