"""Helpers of the disk-fault tests: a small tmpfs as a log directory, and DescribeLogDirs as
a client sees it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from ferrolog.chaos import disk
from kafka import KafkaAdminClient


@contextlib.contextmanager
def small_disk(path: Path, size_bytes: int) -> Iterator[Path]:
    """A tmpfs of `size_bytes` mounted at `path` for the block; the test is skipped where
    mounting is not allowed (not root)."""
    try:
        disk.mount_tmpfs(path, size_bytes)
    except OSError as e:
        pytest.skip(f"cannot mount a tmpfs here: {e}")
    try:
        yield path
    finally:
        disk.unmount(path)


def log_dirs(bootstrap: str, broker: int | None = None) -> dict[str, tuple[int, set[str]]]:
    """DescribeLogDirs through kafka-python, of `broker` (the only one when None): {log dir:
    (error code, topics)}."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        answers = admin.describe_log_dirs(brokers=None if broker is None else [broker])
    finally:
        admin.close()
    (answer,) = answers
    return {
        r["log_dir"]: (r["error_code"], {t["name"] for t in r["topics"]})
        for r in answer["log_dirs"]
    }
