"""Fixtures of the handler tests: brokers whose services are the real controller over a real
LocalStore (`admin_broker.py`, shared with the controller tests)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from admin_broker import Broker, make_broker


@pytest.fixture
def admin_broker(tmp_path: Path) -> Iterator[Callable[..., Broker]]:
    """Makes brokers for handler tests (`admin_broker.make_broker`: the real controller over a
    real LocalStore), each in its own folder under `tmp_path` unless given `log_dir`; all are
    closed when the test ends."""
    made: list[Broker] = []

    def make(log_dir: str | None = None, **kw: Any) -> Broker:
        broker = make_broker(log_dir or str(tmp_path / f"broker-{len(made)}"), **kw)
        made.append(broker)
        return broker

    yield make
    for broker in made:
        broker.close()
