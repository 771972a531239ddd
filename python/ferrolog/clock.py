"""The wall clock in Kafka's unit: milliseconds since the epoch, as record timestamps, session
deadlines and offset-commit times are measured."""

from __future__ import annotations

import time


def now_ms() -> int:
    return time.time_ns() // 1_000_000
