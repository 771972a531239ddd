"""Disk faults on a log directory of its own: a small tmpfs mounted there (root only), which
fills up (`fill`) and frees again (`free`), and, where FUSE works, seen through a passthrough
file system (`failing_disk`) whose writes can be made to fail with EIO (`fail_writes`). A
broker whose writes there fail takes the directory offline (Kafka's LogDirFailureChannel) and
keeps serving its other log.dirs; the directory is back after the broker restarts with space
to write and a disk that works.

The layout, for a log directory `small`: the tmpfs at `small.disk` and the FUSE file system
over it at `small`, switched by the file `small.fail-writes`; without FUSE, the tmpfs at
`small` itself."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from pathlib import Path

from ferrolog.protocol.messages import Apis, DescribeLogDirsRequest

KAFKA_STORAGE_ERROR = 56

# The file `fill` writes: whatever free space it leaves is less than one block.
FILLER = ".chaos-disk-filler"


def backing(small: Path) -> Path:
    """Where the tmpfs under a FUSE-mounted log directory `small` is mounted."""
    return small.with_name(small.name + ".disk")


def switch(small: Path) -> Path:
    """The file that, while it exists, makes writes to the log directory `small` fail."""
    return small.with_name(small.name + ".fail-writes")


def fail_writes(small: Path, on: bool) -> None:
    """Makes every write, fsync and other change under `small` fail with EIO (`on`), or work
    again."""
    if on:
        switch(small).touch()
    else:
        switch(small).unlink(missing_ok=True)


def space(small: Path) -> Path:
    """The folder whose file system holds `small`'s bytes, to fill directly (filling through
    the FUSE layer would cost a call into Python per write)."""
    under = backing(small)
    return under if os.path.ismount(under) else small


def mount_tmpfs(path: Path, size_bytes: int) -> None:
    """Mounts a tmpfs of `size_bytes` at `path` (created if missing). Raises OSError when
    mounting is not allowed here (not root, no CAP_SYS_ADMIN)."""
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_bytes}", "tmpfs", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise OSError(errno.EPERM, f"mount tmpfs at {path}: {done.stderr.strip()}")


def resize_tmpfs(path: Path, size_bytes: int) -> None:
    """Gives a mounted tmpfs a new size (the disk an operator replaced or grew)."""
    subprocess.run(
        ["mount", "-o", f"remount,size={size_bytes}", str(path)], check=True, capture_output=True
    )


def unmount(path: Path) -> None:
    """Unmounts `path` (lazily, so a process still holding files there cannot block it)."""
    subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True)


def can_mount_tmpfs(scratch: Path) -> bool:
    """Whether this process may mount a tmpfs (tried once at `scratch`)."""
    try:
        mount_tmpfs(scratch, 1 << 20)
    except OSError:
        return False
    unmount(scratch)
    return True


def fill(path: Path) -> int:
    """Takes every free byte of the file system holding `path` with a filler file; returns its
    size. The next write there fails with ENOSPC."""
    chunk = b"\0" * (1 << 16)
    written = 0
    fd = os.open(path / FILLER, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for size in (len(chunk), 4096, 1):
            while True:
                try:
                    n = os.write(fd, chunk[:size])
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise
                    break
                written += n
                if n < size:  # a short write: the file system is full
                    break
        os.fsync(fd)
    finally:
        os.close(fd)
    return written


def free(path: Path) -> None:
    """Removes the filler: the space `fill` took is free again."""
    with contextlib.suppress(FileNotFoundError):
        (path / FILLER).unlink()


def offline_log_dirs(host: str, port: int, timeout: float = 10.0) -> list[str] | None:
    """The log directories a broker reports offline (DescribeLogDirs v1: an offline one is
    listed with KAFKA_STORAGE_ERROR), or None when it cannot be asked."""
    from ferrolog.client.connection import Connection

    try:
        with Connection(host, port, timeout, "chaos") as conn:
            every: DescribeLogDirsRequest = {"topics": None}
            response = conn.request(Apis.DESCRIBE_LOG_DIRS, 1, every)
    except OSError:
        return None
    return sorted(
        r["log_dir"] for r in response["results"] if r["error_code"] == KAFKA_STORAGE_ERROR
    )
