"""The disk faults' plumbing without a cluster: every broker gets a small second log
directory, and the faults that need it are left out, with a reason, where it cannot be had."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ferrolog.chaos import disk
from ferrolog.chaos.faults import DISKS, FAULTS
from ferrolog.chaos.nodes import ClusterSpec, NodeSpec, ferrolog_spec
from ferrolog.chaos.run import ChaosConfig, NoFaultLeft, skip_disks


def test_every_broker_has_a_small_second_log_dir(tmp_path: Path) -> None:
    spec = ferrolog_spec(tmp_path)
    for broker in spec.brokers:
        assert broker.small_dir == str(tmp_path / broker.name / "small")
        assert f"log.dirs={tmp_path / broker.name / 'data'},{broker.small_dir}" in broker.command
    spec.save(tmp_path / "spec.json")
    assert (
        ClusterSpec.load(tmp_path / "spec.json").brokers[0].small_dir == spec.brokers[0].small_dir
    )


def _spec(small: bool) -> ClusterSpec:
    def node(i: int) -> NodeSpec:
        return NodeSpec(f"broker-{i}", ["true"], f"127.9.9.{i}:9092", "/dev/null", i,
                        small_dir=f"/nowhere/{i}" if small else None)  # fmt: skip

    return ClusterSpec(NodeSpec("zookeeper", ["true"], "127.9.9.1:2181", "/dev/null"),
                       [node(i) for i in (2, 3, 4)])  # fmt: skip


def test_disk_full_is_left_out_when_a_broker_has_no_small_log_dir(tmp_path: Path) -> None:
    assert set(FAULTS) >= DISKS
    config = ChaosConfig(faults=["kill-broker", "disk-full"])
    assert "small log directory" in skip_disks(_spec(False), config, tmp_path / "probe")
    assert config.faults == ["kill-broker"]
    with pytest.raises(NoFaultLeft, match="full disks"):
        skip_disks(_spec(False), ChaosConfig(faults=["disk-full"]), tmp_path / "probe")


def test_disk_full_is_kept_exactly_where_a_tmpfs_can_be_mounted(tmp_path: Path) -> None:
    config = ChaosConfig(faults=["kill-broker", "disk-full"])
    skipped = skip_disks(_spec(True), config, tmp_path / "probe")
    if os.geteuid() == 0:
        assert (skipped, config.faults) == ("", ["kill-broker", "disk-full"])
    else:
        assert "root" in skipped
        assert config.faults == ["kill-broker"]
    assert not (tmp_path / "probe").exists()  # the probe leaves nothing behind


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_fill_leaves_no_room_and_free_gives_it_back(tmp_path: Path) -> None:
    small = tmp_path / "small"
    disk.mount_tmpfs(small, 1 << 20)
    try:
        assert disk.fill(small) > (1 << 20) - 8192
        with pytest.raises(OSError, match="No space left"):
            (small / "more").write_bytes(b"x" * 8192)
        disk.free(small)
        (small / "more").write_bytes(b"x" * 8192)
    finally:
        disk.unmount(small)
