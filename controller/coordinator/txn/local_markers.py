"""Writing this broker's coordinator's transaction markers into the partitions this broker
leads (a WriteTxnMarkers request from another broker's coordinator is served by the native
core). One native command appends a whole transaction's markers and waits until they are
committed (acks=all), on the native runtime (`NativeWaits`).

A marker that lands in `__consumer_offsets` ends the producer's pending transactional offset
commits there; `on_written` tells whoever holds them (the broker wires it to the group
coordinator, which this package does not import)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ferrolog import errors
from ferrolog.controller.coordinator.txn.markers import Marker, TopicPartition

if TYPE_CHECKING:
    from ferrolog.controller.native_waits import NativeWaits

# (topic, partition, producer id, commit) of a marker now committed in this broker's log.
OnWritten = Callable[[str, int, int, bool], None]


class LocalMarkerWriter:
    def __init__(self, waits: NativeWaits, on_written: OnWritten) -> None:
        self._waits = waits
        self._on_written = on_written

    async def write(self, markers: list[Marker]) -> list[dict[TopicPartition, int]]:
        """Each marker's per-partition error code (0: written and committed)."""
        flat = [
            (
                topic,
                partition,
                m.producer_id,
                m.producer_epoch,
                m.coordinator_epoch,
                m.commit,
                m.transaction_version,
            )
            for m in markers
            for topic, partition in m.partitions
        ]
        outcomes = iter(await self._waits.write_markers(flat))
        results: list[dict[TopicPartition, int]] = []
        for m in markers:
            codes: dict[TopicPartition, int] = {}
            for tp in m.partitions:
                outcome = next(outcomes)
                if isinstance(outcome, BaseException):
                    codes[tp] = errors.from_native(outcome).code
                else:
                    codes[tp] = 0
                    self._on_written(tp[0], tp[1], m.producer_id, m.commit)
            results.append(codes)
        return results
