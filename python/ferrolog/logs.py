"""Structured logging for the broker: one line per event, as `key=value` pairs (readable and
grep-able) or JSON objects (for log shippers). Messages carry their own `key=value` details,
e.g. `log.info("created topic topic=%s partitions=%d", ...)`."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import IO

import ferrolog_native

FORMATS = ("kv", "json")


def _timestamp(record: logging.LogRecord) -> str:
    seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
    return f"{seconds}.{int(record.msecs):03d}Z"


class KeyValueFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        line = (
            f"ts={_timestamp(record)} level={record.levelname.lower()} "
            f"logger={record.name} msg={json.dumps(message)}"
        )
        if record.exc_info:
            line += f" exc={json.dumps(self.formatException(record.exc_info))}"
        return line


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": _timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry)


def setup_logging(
    level: str | int = "INFO", fmt: str = "kv", stream: IO[str] | None = None
) -> logging.Handler:
    """Sends the root logger's records to `stream` (stderr: stdout carries the broker's ready
    line) in the chosen format; replaces handlers an earlier call installed."""
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {FORMATS}, got {fmt!r}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else KeyValueFormatter())
    handler.set_name("ferrolog")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "ferrolog"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    # The native core writes its own lines, in the same format, at the same level.
    ferrolog_native.init_logging(logging.getLevelName(root.level), fmt)
    return handler
