"""The native module's Python surface (``native/ferrolog_native.pyi``) driven directly: the
control bridge over a real socket, the partition commands, and the hot-path helpers."""

from __future__ import annotations

import os
import select
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.native

fn = pytest.importorskip("ferrolog_native")

from ferrolog.config import BrokerConfig  # noqa: E402

TOPIC_DEFAULTS = BrokerConfig().resolve_topic_config({})

TOPIC = "native-test"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[fn.Server]:
    srv = fn.Server(
        BrokerConfig(
            {"node.id": "1", "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": str(tmp_path)}
        ).native_server_config()
    )
    srv.start()
    srv.open_partition(TOPIC, 0, os.urandom(16), TOPIC_DEFAULTS)
    srv.become_leader(TOPIC, 0, 1, [1], [1])
    yield srv
    srv.shutdown()


def api_versions_v0(correlation_id: int) -> bytes:
    frame = struct.pack(">hhih", 18, 0, correlation_id, 1) + b"t"
    return struct.pack(">i", len(frame)) + frame


def take_one(srv: fn.Server) -> fn.ControlRequest:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        readable, _, _ = select.select([srv.wakeup_fd()], [], [], 0.1)
        if readable:
            requests = srv.take_requests()
            if requests:
                return requests[0]
    raise AssertionError("no control request arrived")


def test_tables() -> None:
    assert fn.native_api_versions() == {
        0: (3, 13),
        1: (4, 18),
        2: (1, 11),
        23: (2, 4),
        27: (1, 2),
        78: (1, 2),
        79: (1, 2),
    }
    codes = fn.error_codes()
    assert codes["NOT_LEADER_OR_FOLLOWER"] == 6
    assert codes["CORRUPT_MESSAGE"] == 2
    assert codes["NONE"] == 0
    assert isinstance(fn.version(), str)


def test_control_requests_round_trip(server: fn.Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(api_versions_v0(17))
        request = take_one(server)
        assert (request.api_key, request.api_version, request.correlation_id) == (18, 0, 17)
        assert request.frame[:4] == b"\x00\x12\x00\x00"
        assert request.peer.startswith("127.0.0.1:")
        assert server.take_requests() == []
        server.respond(request.handle, struct.pack(">ih", 17, 0))
        size = struct.unpack(">i", sock.recv(4))[0]
        assert sock.recv(size) == struct.pack(">ih", 17, 0)
        server.respond(request.handle, b"ignored: already answered")

        sock.sendall(api_versions_v0(18))
        server.close_connection(take_one(server).handle)
        assert sock.recv(1) == b""


def test_append_read_and_states(server: fn.Server) -> None:
    now = int(time.time() * 1000)
    batch = fn.build_batch([(b"k", b"v", [("h", b"1")], now), (None, b"w", [], now)])
    assert server.append(TOPIC, 0, batch) == 0
    assert server.append(TOPIC, 0, batch) == 2
    data = server.read(TOPIC, 0, 3, 1)
    assert len(data) == len(batch)  # the whole batch holding offset 3, despite max_bytes=1
    assert struct.unpack(">q", data[:8])[0] == 2
    (state,) = server.partition_states()
    assert (state.topic, state.partition, state.is_leader, state.leader_epoch) == (
        TOPIC,
        0,
        True,
        1,
    )
    assert (state.log_start_offset, state.high_watermark, state.log_end_offset) == (0, 4, 4)
    assert len(state.topic_id) == 16
    assert state.size_bytes == 2 * len(batch)
    assert server.delete_records(TOPIC, 0, 2) == 2
    with pytest.raises(fn.KafkaNativeError) as err:
        server.delete_records(TOPIC, 0, 99)
    assert err.value.args[0] == fn.error_codes()["OFFSET_OUT_OF_RANGE"]
    with pytest.raises(fn.KafkaNativeError) as err:
        server.append("missing", 0, batch)
    assert err.value.args[0] == fn.error_codes()["UNKNOWN_TOPIC_OR_PARTITION"]


def test_corrupt_batch_is_refused(server: fn.Server) -> None:
    batch = bytearray(fn.build_batch([(b"k", b"v", [], int(time.time() * 1000))]))
    batch[-1] ^= 0xFF
    with pytest.raises(fn.KafkaNativeError) as err:
        server.append(TOPIC, 0, bytes(batch))
    assert err.value.args[0] == fn.error_codes()["CORRUPT_MESSAGE"]
    assert server.partition_states()[0].log_end_offset == 0


def test_delete_partition(server: fn.Server) -> None:
    log_dir = Path(server.partition_states()[0].log_dir)
    assert (log_dir / f"{TOPIC}-0").is_dir()
    server.delete_partition(TOPIC, 0)
    assert server.partition_states() == []
    assert not (log_dir / f"{TOPIC}-0").exists()


def test_helpers() -> None:
    assert fn.crc32c(b"123456789") == 0xE3069283
    for codec in range(5):
        data = b"ferrolog " * 100
        assert fn.decompress(codec, fn.compress(codec, data)) == data
    batch = fn.build_batch([(b"k", b"v", [], int(time.time() * 1000))], codec=1)
    config = BrokerConfig().resolve_topic_config({"compression.type": "producer"})
    stored = fn.validate_batch(batch, config, int(time.time() * 1000))
    assert stored == batch
    with pytest.raises(fn.KafkaNativeError):
        fn.validate_batch(batch[:-1], config, 0)


def test_decode_batches_reads_back_what_a_coordinator_replays(server: fn.Server) -> None:
    """What a loading coordinator replays: data batches (compressed ones decompressed) with
    their producer, and transaction markers with their outcome; a partial last batch (a
    bounded read's end) is left for the next read, and corrupt data raises."""
    now = int(time.time() * 1000)
    plain = fn.build_batch([(b"k1", b"v1", [], now), (b"k2", None, [], now)])
    txn = fn.build_batch(
        [(b"k3", b"v3", [], now)], codec=3, producer_id=7, producer_epoch=0, base_sequence=0,
        transactional=True,
    )  # fmt: skip
    assert server.append(TOPIC, 0, plain) == 0
    assert server.append(TOPIC, 0, txn) == 2
    assert server.write_markers([(TOPIC, 0, 7, 0, 4, True, 0)]) == [3]
    log = server.read(TOPIC, 0, 0, 1 << 20)
    assert fn.decode_batches(log) == [
        (0, 1, -1, -1, False, None, [(b"k1", b"v1"), (b"k2", None)]),
        (2, 2, 7, 0, True, None, [(b"k3", b"v3")]),
        (3, 3, 7, 0, True, True, []),
    ]
    assert len(fn.decode_batches(log + plain[:-5])) == 3
    corrupt = bytearray(plain)
    corrupt[-1] = 0x7F  # the last record's header count runs past its end
    with pytest.raises(fn.KafkaNativeError):
        fn.decode_batches(bytes(corrupt))
