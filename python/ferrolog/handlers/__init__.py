"""Request handlers, one module per API (named after it), and the table that dispatches to
them. A handler module defines `API_KEY`, `async def handle(ctx, request) -> response`, and
optionally `MIN_VERSION`/`MAX_VERSION` (the versions it implements); see `context.py`."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ferrolog.handlers.context import RequestContext

HandleFn = Callable[[RequestContext, dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Handler:
    api_key: int
    handle: HandleFn
    min_version: int | None  # None: whatever the schemas define
    max_version: int | None
    module: str


def discover() -> dict[int, Handler]:
    """Imports every module of this package and collects those that define `API_KEY` and
    `handle`. Two modules claiming one key is a bug and raises."""
    table: dict[int, Handler] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        key = getattr(module, "API_KEY", None)
        handle = getattr(module, "handle", None)
        if not isinstance(key, int) or handle is None:
            continue
        if key in table:
            raise RuntimeError(f"API key {key} handled by {table[key].module} and {info.name}")
        table[key] = Handler(
            api_key=key,
            handle=handle,
            min_version=getattr(module, "MIN_VERSION", None),
            max_version=getattr(module, "MAX_VERSION", None),
            module=module.__name__,
        )
    return table


@functools.cache
def handlers() -> dict[int, Handler]:
    """The handler table, built once per process."""
    return discover()
