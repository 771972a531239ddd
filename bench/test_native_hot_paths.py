"""pytest-benchmark of the native data path's building blocks: CRC-32C, batch validation,
compression and the append path. Run: `pytest bench/test_native_hot_paths.py
--benchmark-enable` (the suite's default run only checks they work)."""

from __future__ import annotations

import os
import uuid

import ferrolog_native
import pytest
from ferrolog.config import BrokerConfig

RECORD_SIZES = [100, 1024]
CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
TOPIC_CONFIG = BrokerConfig().resolve_topic_config({"max.message.bytes": str(16 * 1024 * 1024)})


def payloads(size: int, count: int) -> list[tuple[bytes | None, bytes | None, list, int]]:
    # Half random, half repetitive: compressible like real JSON-ish payloads.
    half = size // 2
    return [
        (f"key-{i}".encode(), os.urandom(half) + b"a" * (size - half), [], 1_700_000_000_000 + i)
        for i in range(count)
    ]


@pytest.mark.parametrize("size", [1024, 64 * 1024, 1024 * 1024])
def test_crc32c(benchmark, size: int) -> None:  # type: ignore[no-untyped-def]
    data = os.urandom(size)
    result = benchmark(ferrolog_native.crc32c, data)
    assert 0 <= result < 2**32


@pytest.mark.parametrize("codec", list(CODECS))
@pytest.mark.parametrize("size", RECORD_SIZES)
def test_validate_batch(benchmark, codec: str, size: int) -> None:  # type: ignore[no-untyped-def]
    batch = ferrolog_native.build_batch(payloads(size, 100), codec=CODECS[codec])
    stored = benchmark(ferrolog_native.validate_batch, batch, TOPIC_CONFIG, 1_700_000_000_500)
    assert len(stored) == len(batch)


@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
def test_compress(benchmark, codec: str) -> None:  # type: ignore[no-untyped-def]
    data = b"".join(v for _, v, _, _ in payloads(1024, 64))  # type: ignore[misc]
    out = benchmark(ferrolog_native.compress, CODECS[codec], data)
    assert ferrolog_native.decompress(CODECS[codec], out) == data


@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
def test_decompress(benchmark, codec: str) -> None:  # type: ignore[no-untyped-def]
    data = b"".join(v for _, v, _, _ in payloads(1024, 64))  # type: ignore[misc]
    packed = ferrolog_native.compress(CODECS[codec], data)
    assert benchmark(ferrolog_native.decompress, CODECS[codec], packed) == data


@pytest.mark.parametrize("size", RECORD_SIZES)
def test_append(benchmark, tmp_path, size: int) -> None:  # type: ignore[no-untyped-def]
    """Append of a 100-record batch through the whole leader path (validation, producer state,
    offset assignment, segment write, index), with the commit wait of Server.append."""
    config = BrokerConfig({"listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": str(tmp_path)})
    server = ferrolog_native.Server(config.native_server_config())
    server.start()
    try:
        topic = f"bench-{uuid.uuid4().hex[:6]}"
        server.open_partition(topic, 0, uuid.uuid4().bytes, TOPIC_CONFIG)
        server.become_leader(topic, 0, 0, [0], [0])
        batch = ferrolog_native.build_batch(payloads(size, 100))
        first = server.append(topic, 0, batch)
        second = benchmark(server.append, topic, 0, batch)
        assert second > first
    finally:
        server.shutdown()
