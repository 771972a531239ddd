"""A share-partition's persisted state, and how Kafka merges it (`PersisterStateBatchCombiner`).

The state is a start offset (every record below it is done with) and state batches: offset
ranges with a delivery state (AVAILABLE 0, ACQUIRED 1, ACKNOWLEDGED 2, ARCHIVING 3, ARCHIVED 4)
and a delivery count. Writes bring batches that overlap those held; for each offset the batch
with the highest delivery count wins, ties going to the higher state, so a late write of an
older delivery cannot undo a newer one."""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import NamedTuple

NOT_INITIALIZED = -1


class StateBatch(NamedTuple):
    first_offset: int
    last_offset: int
    delivery_state: int
    delivery_count: int


@dataclass
class ShareState:
    """What `__share_group_state` holds for one (group, topic id, partition)."""

    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    # -1: never read from yet; the partition leader applies share.auto.offset.reset.
    start_offset: int
    delivery_complete_count: int
    create_timestamp: int
    write_timestamp: int
    batches: list[StateBatch] = field(default_factory=list)


def combine(
    current: list[StateBatch], new: list[StateBatch], start_offset: int
) -> list[StateBatch]:
    """`current` and `new` merged: pruned below `start_offset` (unless -1), each offset at
    its highest (delivery count, state), adjacent equal ranges joined, sorted."""
    pruned = []
    for b in (*current, *new):
        if start_offset != NOT_INITIALIZED:
            if b.last_offset < start_offset:
                continue
            if b.first_offset < start_offset:
                b = b._replace(first_offset=start_offset)
        pruned.append(b)
    if len(pruned) <= 1:
        return pruned
    # A sweep over the ranges' boundaries; the heap holds the ranges covering the current
    # point, best first (lazily dropped once they end).
    bounds = sorted({b.first_offset for b in pruned} | {b.last_offset + 1 for b in pruned})
    starts = sorted(pruned)
    active: list[tuple[int, int, int]] = []  # (-count, -state, last offset)
    out: list[StateBatch] = []
    i = 0
    for lo, hi in itertools.pairwise(bounds):
        while i < len(starts) and starts[i].first_offset <= lo:
            b = starts[i]
            heapq.heappush(active, (-b.delivery_count, -b.delivery_state, b.last_offset))
            i += 1
        while active and active[0][2] < lo:
            heapq.heappop(active)
        if not active:
            continue
        count, state = -active[0][0], -active[0][1]
        last = out[-1] if out else None
        joins = last is not None and last.last_offset == lo - 1
        if (
            last is not None
            and joins
            and (last.delivery_state, last.delivery_count)
            == (
                state,
                count,
            )
        ):
            out[-1] = last._replace(last_offset=hi - 1)
        else:
            out.append(StateBatch(lo, hi - 1, state, count))
    return out
