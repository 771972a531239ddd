"""The ISR policy of a partition leader (Kafka's replica.lag.time.max.ms rule): a pure
function, applied by the broker's ISR manager."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FollowerProgress:
    log_end_offset: int  # -1: has not fetched yet
    last_caught_up_ms: int


def next_isr(
    isr: Sequence[int],
    replicas: Sequence[int],
    leader: int,
    followers: Mapping[int, FollowerProgress],
    high_watermark: int,
    now_ms: int,
    lag_max_ms: int,
    leader_since_ms: int,
) -> list[int]:
    """The ISR the leader should have now, in assignment order.

    A follower leaves once it has not caught up to the leader's log end for `lag_max_ms`
    (counted from when this leadership began at the earliest, so a new leader gives its
    followers a full period). A follower joins once it has fetched up to the high watermark
    during this leadership and is within the lag limit. The leader always stays."""
    out = []
    for broker in replicas:
        if broker == leader:
            out.append(broker)
            continue
        progress = followers.get(broker)
        last = leader_since_ms
        if progress is not None:
            last = max(last, progress.last_caught_up_ms)
        fresh = now_ms - last <= lag_max_ms
        if broker in isr:
            if fresh:
                out.append(broker)
        elif (
            progress is not None
            and progress.log_end_offset >= high_watermark
            and progress.last_caught_up_ms >= leader_since_ms
            and fresh
        ):
            out.append(broker)
    return out
