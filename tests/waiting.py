"""The one way tests wait for something to happen: poll a condition until it holds, and fail
with what was awaited when it does not in time. A fixed sleep is for letting time pass on
purpose (to show that something does not happen, or to age a timestamp), said where it is."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def wait_until(
    condition: Callable[[], Any], timeout: float = 30.0, step: float = 0.1, what: str = ""
) -> Any:
    """Calls `condition` every `step` seconds until it returns something true, and returns
    that; raises AssertionError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        time.sleep(step)
