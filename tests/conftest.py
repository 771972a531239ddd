"""Shared test setup. The broker fixtures (`ferrolog_broker`, `ferrolog_broker_factory`) come
from the `ferrolog.testing` plugin, registered through the `pytest11` entry point.

Tests marked `native` need the native core with its network server; where it is not built
they are skipped with a reason rather than failing on an import."""

from __future__ import annotations

import importlib.util

import pytest


def native_server_available() -> bool:
    if importlib.util.find_spec("ferrolog_native") is None:
        return False
    import ferrolog_native

    return hasattr(ferrolog_native, "Server")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "native: needs ferrolog_native with its Server")
    # kafka-python loads its schemas through importlib.resources' deprecated text API; the
    # warning is raised from importlib, so pyproject's `kafka.*` module filter misses it.
    for api in ("open_text", "read_text"):
        config.addinivalue_line("filterwarnings", f"ignore:{api} is deprecated:DeprecationWarning")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if native_server_available():
        return
    skip = pytest.mark.skip(reason="ferrolog_native with its Server is not installed")
    for item in items:
        if item.get_closest_marker("native"):
            item.add_marker(skip)
