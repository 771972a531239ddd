"""What a chaos run can do on this machine and cluster, checked before it starts: network
partitions need nft and nodes of their own uids and addresses, disk faults a tmpfs (root) and
failing disks FUSE. A fault kind that cannot be made is left out with the reason, and the run
stops before starting when none is left. `SmallDisks` mounts what the disk faults use."""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ferrolog.chaos import disk, failing_disk
from ferrolog.chaos.faults import DISKS, FAILING_DISKS, PARTITIONS
from ferrolog.chaos.network import Network
from ferrolog.chaos.nodes import ClusterSpec

if TYPE_CHECKING:
    from ferrolog.chaos.run import ChaosConfig


class NoFaultLeft(RuntimeError):
    """Every fault kind asked for needs what this machine or cluster lacks."""


def partitions_unavailable(spec: ClusterSpec, network: Network) -> str:
    """Why this run cannot make network partitions ('' when it can): nft, and nodes of their
    own uids (not the checker's) on addresses of their own."""
    nodes = [spec.zookeeper, *spec.brokers]
    if any(n.uid is None for n in nodes):
        return "the nodes do not run as uids of their own (the checker is not root)"
    uids = {n.uid for n in nodes}
    if len(uids) < len(nodes) or os.geteuid() in uids:
        return "the nodes' uids are not distinct from each other and from the checker's"
    if len({n.host for n in nodes}) < len(nodes):
        return "the nodes do not listen on addresses of their own"
    return network.unavailable()


def skip_partitions(spec: ClusterSpec, config: ChaosConfig, network: Network) -> str:
    """Leave the partition faults out of `config` if this run cannot make them: why ('' when
    it can). Raises NoFaultLeft when no fault would be left."""
    if not PARTITIONS & set(config.faults):
        return ""
    why = partitions_unavailable(spec, network)
    if not why:
        return ""
    return _leave_out(config, PARTITIONS, "network partitions", why)


def _leave_out(config: ChaosConfig, kinds: frozenset[str], what: str, why: str) -> str:
    """Removes `kinds` from the run's faults, saying why; raises NoFaultLeft if none is left."""
    skipped = f"{what} ({why})"
    left = [k for k in config.faults if k not in kinds]
    if not left:
        raise NoFaultLeft(f"no fault left to run: skipping {skipped}")
    logging.getLogger("ferrolog.chaos").warning("skipping %s", skipped)
    config.faults = left
    return skipped


def disks_unavailable(spec: ClusterSpec, scratch: Path) -> str:
    """Why this run cannot fill a broker's disk ('' when it can): a small log directory on
    every broker, and a tmpfs this process may mount (tried once at `scratch`)."""
    if any(b.small_dir is None for b in spec.brokers):
        return "not every broker has a small log directory in the spec"
    try:
        if os.geteuid() != 0 or not disk.can_mount_tmpfs(scratch):
            return "mounting a tmpfs needs root"
    finally:
        with contextlib.suppress(OSError):
            scratch.rmdir()
    return ""


def skip_disks(spec: ClusterSpec, config: ChaosConfig, scratch: Path) -> str:
    """Leave the disk faults out of `config` if this run cannot make them: why ('' when it
    can). Raises NoFaultLeft when no fault would be left."""
    if not DISKS & set(config.faults):
        return ""
    why = disks_unavailable(spec, scratch)
    return _leave_out(config, DISKS, "disk faults", why) if why else ""


def skip_failing_disks(config: ChaosConfig, scratch: Path) -> str:
    """Leave the failing-disk faults out of `config` if this run cannot mount a FUSE file
    system (tried once at `scratch`): why ('' when it can). Call after `skip_disks`. Raises
    NoFaultLeft when no fault would be left."""
    if not FAILING_DISKS & set(config.faults):
        return ""
    why = failing_disk.can_mount(scratch)
    return _leave_out(config, FAILING_DISKS, "failing disks", why) if why else ""


@dataclass
class SmallDisks:
    """What the run mounted for the disk faults, unmounted at its end (even if a later mount
    failed): tmpfs mounts, and FUSE file systems with their processes."""

    tmpfs: list[Path] = field(default_factory=list)
    fuse: list[tuple[Path, Any]] = field(default_factory=list)

    def mount(self, spec: ClusterSpec, size: int, failing: bool) -> None:
        """A tmpfs of `size` for each broker's small log directory: there, or with `failing`
        at `disk.backing` with a FUSE file system over it there (see `disk`)."""
        for broker in spec.brokers:
            if not broker.small_dir:
                continue
            small = Path(broker.small_dir)
            under = disk.backing(small) if failing else small
            disk.mount_tmpfs(under, size)
            self.tmpfs.append(under)
            if failing:
                disk.fail_writes(small, False)
                proc = failing_disk.mount(under, small, disk.switch(small), all_users=True)
                self.fuse.append((small, proc))

    def unmount(self) -> None:
        for path, proc in self.fuse:
            failing_disk.unmount(path, proc)
        for path in self.tmpfs:
            disk.unmount(path)
