"""Awaiting the native core's commands that wait for acks=all, without a thread.

A coordinator's append and a batch of transaction markers are appended at once by the native
core, which then waits on its own runtime until they are committed (or fail, or time out
after the append timeout) and leaves the outcome under a token; its eventfd wakes this loop
(`add_reader`), which takes the outcomes and resolves the futures it keyed by token. Done in
`asyncio.to_thread` instead, each wait held one of the default executor's few threads for up
to the append timeout, so a burst of commits could starve every other blocking call."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ferrolog_native

    MarkerRow = tuple[str, int, int, int, int, bool, int]
    Outcome = list[int | ferrolog_native.KafkaNativeError]

# Told of each transaction marker committed in `__consumer_offsets` by WriteTxnMarkers, which
# the native core serves: (partition, producer id, COMMIT else ABORT).
OnOffsetsMarker = Callable[[int, int, bool], None]


class NativeWaits:
    """The futures of one native server's `start_*` commands, on one event loop."""

    def __init__(
        self, native: ferrolog_native.Server, on_offsets_marker: OnOffsetsMarker | None = None
    ) -> None:
        self._native = native
        self._on_offsets_marker = on_offsets_marker
        self._tokens = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[Outcome]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def _start(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._loop.add_reader(self._native.completions_fd(), self._drain)
        return self._loop

    def stop(self) -> None:
        """Stops watching; a wait still pending gets CancelledError."""
        if self._loop is not None:
            self._loop.remove_reader(self._native.completions_fd())
            self._loop = None
        for future in self._waiting.values():
            future.cancel()
        self._waiting.clear()

    def _drain(self) -> None:
        done, markers = self._native.take_completions()
        for token, outcome in done:
            future = self._waiting.pop(token, None)
            if future is not None and not future.done():
                future.set_result(outcome)
        if self._on_offsets_marker is not None:
            for partition, producer_id, commit in markers:
                self._on_offsets_marker(partition, producer_id, commit)

    async def _wait(self, start: Callable[[int], None]) -> Outcome:
        future: asyncio.Future[Outcome] = self._start().create_future()
        token = next(self._tokens)
        self._waiting[token] = future
        try:
            start(token)
        except BaseException:
            del self._waiting[token]
            raise
        try:
            return await future
        finally:
            self._waiting.pop(token, None)

    async def append(self, topic: str, partition: int, records: bytes) -> int:
        """`Server.append`: the base offset once committed; raises KafkaNativeError."""
        (outcome,) = await self._wait(
            lambda token: self._native.start_append(topic, partition, records, token)
        )
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    async def write_markers(self, markers: list[MarkerRow]) -> Outcome:
        """`Server.write_markers`: each marker's offset or error, in order."""
        return await self._wait(lambda token: self._native.start_write_markers(markers, token))
