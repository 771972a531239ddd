"""Shared test setup. The broker fixtures (`ferrolog_broker`, `ferrolog_broker_factory`) come
from the `ferrolog.testing` plugin, registered through the `pytest11` entry point."""

from __future__ import annotations

import importlib.util

import pytest


def native_server_available() -> bool:
    """The native core is built with its network server (not just the hot-path helpers)."""
    if importlib.util.find_spec("ferrolog_native") is None:
        return False
    import ferrolog_native

    return hasattr(ferrolog_native, "Server")


requires_native = pytest.mark.skipif(
    not native_server_available(), reason="ferrolog_native with its Server is not installed"
)
