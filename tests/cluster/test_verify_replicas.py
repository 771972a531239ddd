"""`ferrolog verify-replicas` finds differences: its batch splitting and comparison on real
record batches, and the command against a cluster with an unreadable replica."""

from __future__ import annotations

import struct

import ferrolog_native
import pytest
from ferrolog.cli.verify_replicas import compare
from ferrolog.replicas import ReplicaLog, batch_end, split_batches

from tests.cluster.harness import Cluster

pytestmark = pytest.mark.native


def _batch(base: int, values: list[bytes], epoch: int = 0) -> bytes:
    raw = bytearray(ferrolog_native.build_batch([(None, v, [], 1000) for v in values]))
    struct.pack_into(">q", raw, 0, base)  # base offset, as the log assigns it
    struct.pack_into(">i", raw, 12, epoch)  # partition leader epoch
    return bytes(raw)


def _log(broker: int, batches: list[bytes], hw: int) -> ReplicaLog:
    return ReplicaLog(broker, hw, 0, split_batches(b"".join(batches)))


def test_split_batches_drops_a_truncated_tail() -> None:
    a, b = _batch(0, [b"x", b"y"]), _batch(2, [b"z"])
    assert [base for base, _ in split_batches(a + b)] == [0, 2]
    assert [base for base, _ in split_batches(a + b[:-3])] == [0]
    assert batch_end(a) == 2
    assert batch_end(b) == 3


def test_identical_replicas_pass_and_differences_are_reported() -> None:
    a, b = _batch(0, [b"x", b"y"]), _batch(2, [b"z"])
    leader = _log(1, [a, b], 3)
    assert compare("t", 0, leader, [_log(2, [a, b], 3)]) == []
    # Same offsets, other bytes (a diverged tail written under another epoch).
    diverged = _batch(2, [b"z"], epoch=1)
    assert "differs" in compare("t", 0, leader, [_log(2, [a, diverged], 3)])[0]
    # A replica that lacks committed data.
    assert "lacks" in compare("t", 0, leader, [_log(3, [a], 2)])[0]
    # A batch below the leader's high watermark that the leader does not have.
    extra = compare("t", 0, _log(1, [a], 3), [_log(2, [a, b], 3)])
    assert "does not" in extra[0]


def test_command_reports_an_offline_replica(cluster: Cluster) -> None:
    cluster.create_topic("vr", 1, 3)
    ok = cluster.verify_replicas("vr")
    assert ok.returncode == 0, ok.stderr
    assert "replicas identical" in ok.stdout
    follower = next(b for b in (1, 2, 3) if b != cluster.leader("vr"))
    cluster.brokers[follower].kill()
    cluster.wait_for_brokers({1, 2, 3} - {follower})
    bad = cluster.verify_replicas("vr")
    assert bad.returncode == 1
    assert f"replica {follower} is offline" in bad.stderr
