"""kcat (librdkafka's command-line client) against ferrolog."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

import pytest

pytestmark = pytest.mark.skipif(
    shutil.which("kcat") is None, reason="kcat is not installed (make test-deps installs it)"
)


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_produce_and_consume(bootstrap: str, new_topic: Callable[..., str], codec: str) -> None:
    topic = new_topic()
    lines = "".join(f"key{i}:value {i}\n" for i in range(100))
    subprocess.run(
        ["kcat", "-b", bootstrap, "-P", "-t", topic, "-K", ":", "-z", codec],
        input=lines.encode(),
        check=True,
        timeout=60,
    )
    out = subprocess.run(
        ["kcat", "-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-f", "%k=%s@%o\n"],
        capture_output=True,
        check=True,
        timeout=60,
    )
    got = out.stdout.decode().splitlines()
    assert got == [f"key{i}=value {i}@{i}" for i in range(100)]


def test_metadata_listing(bootstrap: str, new_topic: Callable[..., str]) -> None:
    topic = new_topic(partitions=3)
    out = subprocess.run(
        ["kcat", "-b", bootstrap, "-L", "-t", topic], capture_output=True, check=True, timeout=60
    )
    text = out.stdout.decode()
    assert f'topic "{topic}" with 3 partitions' in text
