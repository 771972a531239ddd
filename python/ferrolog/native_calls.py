"""The native core's short blocking calls, awaited on threads of their own.

Opening or deleting partitions, reading a loading coordinator's log, the ISR manager's state
snapshots: each call returns once the native core has done it (it does not wait for
replication; those waits are completions, `ferrolog.controller.native_waits`), but at ten
thousand partitions one can take a while. On asyncio's default executor they would queue
ahead of what else runs there: the event loop's host-name lookups (`getaddrinfo` for every
outgoing connection) and the local store's file writes. Their own small pool keeps those
apart, and bounds how many native calls run at once on a two-core machine."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

# Threads are started on demand and shared by every broker of the process (the embedded test
# brokers too): the calls hold the GIL only to cross the boundary.
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ferrolog-native")


async def native_call(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`fn(*args, **kwargs)` on the native calls' pool, awaited."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_POOL, functools.partial(fn, *args, **kwargs))
