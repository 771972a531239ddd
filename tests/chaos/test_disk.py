"""The disk faults' plumbing without a cluster: every broker gets a small second log
directory, and the faults that need it are left out, with a reason, where it cannot be had;
where they can be had, that directory fills up and frees (disk-full), and its writes fail
and work again (disk-eio) for brokers of uids of their own."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pytest
from ferrolog.chaos import disk, failing_disk
from ferrolog.chaos.faults import DISKS, FAILING_DISKS, FAULTS
from ferrolog.chaos.nodes import ClusterSpec, NodeSpec, ferrolog_spec
from ferrolog.chaos.preflight import NoFaultLeft, SmallDisks, skip_disks, skip_failing_disks
from ferrolog.chaos.run import ChaosConfig


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
    with pytest.raises(NoFaultLeft, match="disk faults"):
        skip_disks(_spec(False), ChaosConfig(faults=["disk-full"]), tmp_path / "probe")
    # disk-eio needs the same directory (the tmpfs under its FUSE layer).
    config = ChaosConfig(faults=["disk-eio", "kill-broker"])
    assert skip_disks(_spec(False), config, tmp_path / "probe")
    assert config.faults == ["kill-broker"]


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


def test_disk_eio_is_kept_exactly_where_a_fuse_file_system_can_be_mounted(
    tmp_path: Path,
) -> None:
    assert set(FAULTS) >= FAILING_DISKS
    assert DISKS >= FAILING_DISKS
    config = ChaosConfig(faults=["disk-full", "disk-eio"])
    skipped = skip_failing_disks(config, tmp_path / "probe")
    assert not (tmp_path / "probe").exists()  # the probe leaves nothing behind
    if os.geteuid() == 0 and not failing_disk.FUSE_MISSING and os.path.exists("/dev/fuse"):
        assert (skipped, config.faults) == ("", ["disk-full", "disk-eio"])
    else:
        assert skipped.startswith("failing disks (")
        assert config.faults == ["disk-full"]
        with pytest.raises(NoFaultLeft, match="failing disks"):
            skip_failing_disks(ChaosConfig(faults=["disk-eio"]), tmp_path / "probe")


def _as_other_uid(script: str) -> subprocess.CompletedProcess[str]:
    """`script` (sh) as a uid of no one, as the chaos run starts a broker (`nodes.Node`)."""
    uid = 1_999_999_999
    return subprocess.run(
        ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
         "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", "sh", "-c", script],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs and FUSE needs root")
def test_a_small_dir_fills_frees_fails_and_works_again_for_a_broker_of_its_own_uid(
    tmp_path: Path,
) -> None:
    why = failing_disk.can_mount(tmp_path / "probe")
    if why:
        pytest.skip(why)
    spec = _spec(True)
    small = tmp_path / "broker" / "small"
    spec.brokers = spec.brokers[:1]
    spec.brokers[0].small_dir = str(small)
    mounts = SmallDisks()
    try:
        mounts.mount(spec, 1 << 20, failing=True)
        assert os.path.ismount(small)
        assert disk.space(small) == disk.backing(small)
        # Another uid writes through the FUSE layer (allow_other) and reads back.
        written = _as_other_uid(f"echo stored > {small}/segment && cat {small}/segment")
        assert (written.returncode, written.stdout) == (0, "stored\n"), written.stderr
        # disk-full: the tmpfs under it is full, and writes through it say so.
        disk.fill(disk.space(small))
        with pytest.raises(OSError, match="No space left") as full:
            (small / "more").write_bytes(b"x" * 8192)
        assert full.value.errno == errno.ENOSPC
        disk.free(disk.space(small))
        (small / "more").write_bytes(b"x" * 8192)
        # disk-eio: writes, creates and fsyncs fail; reads still work.
        disk.fail_writes(small, True)
        failed = _as_other_uid(f"echo more >> {small}/segment")
        assert failed.returncode != 0
        assert "I/O error" in failed.stderr, failed.stderr
        with pytest.raises(OSError, match="Input/output error") as eio:
            (small / "new").write_bytes(b"x")
        assert eio.value.errno == errno.EIO
        assert (small / "segment").read_text() == "stored\n"
        disk.fail_writes(small, False)
        assert _as_other_uid(f"echo more >> {small}/segment").returncode == 0
        assert (small / "segment").read_text() == "stored\nmore\n"
    finally:
        mounts.unmount()
    mounted = Path("/proc/mounts").read_text()
    assert str(small) not in mounted
    assert str(disk.backing(small)) not in mounted
