"""A disk whose writes fail: a passthrough FUSE file system over a folder, mounted as a log
directory, that answers EIO to every write, fsync and other change while a switch file exists
(reads keep working, as on a disk whose writes fail first). Device-mapper's error target does
the same on block devices, but device-mapper is not available on these machines; /dev/fuse is.

Run as its own process, `python -m ferrolog.chaos.failing_disk ROOT MOUNTPOINT SWITCH`, so that
the process using the mount (a broker, a test) never serves its own file system calls; the
switch is a file because the FUSE loop holds the process's main thread and would see a signal
only at its next call. Needs fusepy (a test extra) and libfuse2 (Debian's `libfuse2`), and
root to mount."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

try:
    from fuse import FUSE, FuseOSError, Operations
except (ImportError, OSError) as e:  # fusepy missing, or libfuse.so.2 missing (OSError)
    FUSE_MISSING = f"{type(e).__name__}: {e}"
    Operations = object
else:
    FUSE_MISSING = ""


class FailingDisk(Operations):  # type: ignore[misc]
    """Every call passes through to `root`; while `switch` exists, the calls that change
    anything fail with EIO instead."""

    def __init__(self, root: Path, switch: Path) -> None:
        self.root = root
        self.switch = switch

    def _path(self, path: str) -> str:
        return os.path.join(self.root, path.lstrip("/"))

    def _check(self) -> None:
        if self.switch.exists():
            raise FuseOSError(errno.EIO)

    def __call__(self, op: str, path: str, *args: Any) -> Any:
        # fusepy calls the method named `op`; an OSError of the real file system goes back to
        # the caller with its own errno.
        try:
            return super().__call__(op, path, *args)
        except OSError as e:
            if isinstance(e, FuseOSError):
                raise
            raise FuseOSError(e.errno or errno.EIO) from e

    # What only reads.
    def access(self, path: str, mode: int) -> None:
        if not os.access(self._path(path), mode):
            raise FuseOSError(errno.EACCES)

    def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
        st = os.lstat(self._path(path)) if fh is None else os.fstat(fh)
        keys = ("st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime", "st_nlink", "st_size",
                "st_uid", "st_blocks")  # fmt: skip
        return {key: getattr(st, key) for key in keys}

    def readdir(self, path: str, fh: int) -> list[str]:
        return [".", "..", *os.listdir(self._path(path))]

    def readlink(self, path: str) -> str:
        return os.readlink(self._path(path))

    def statfs(self, path: str) -> dict[str, Any]:
        st = os.statvfs(self._path(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files",
                "f_flag", "f_frsize", "f_namemax")  # fmt: skip
        return {key: getattr(st, key) for key in keys}

    def open(self, path: str, flags: int) -> int:
        if flags & os.O_TRUNC:
            self._check()
        return os.open(self._path(path), flags)

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        return os.pread(fh, size, offset)

    def release(self, path: str, fh: int) -> None:
        os.close(fh)

    def flush(self, path: str, fh: int) -> None:
        # Called at every close: the data went (or failed) at write and fsync already.
        return None

    # What changes the disk: EIO while the switch is on.
    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        self._check()
        return os.pwrite(fh, data, offset)

    def fsync(self, path: str, datasync: int, fh: int) -> None:
        self._check()
        if datasync:
            os.fdatasync(fh)
        else:
            os.fsync(fh)

    def fsyncdir(self, path: str, datasync: int, fh: int) -> None:
        self._check()

    def create(self, path: str, mode: int, fi: Any = None) -> int:
        self._check()
        # fusepy does not pass the caller's flags here: read-write serves any of them (the
        # kernel holds the caller to its own mode). Write-only failed the reads of a file
        # opened read-write with EBADF.
        return os.open(self._path(path), os.O_RDWR | os.O_CREAT, mode)

    def truncate(self, path: str, length: int, fh: int | None = None) -> None:
        self._check()
        os.truncate(self._path(path) if fh is None else fh, length)

    def mkdir(self, path: str, mode: int) -> None:
        self._check()
        os.mkdir(self._path(path), mode)

    def rmdir(self, path: str) -> None:
        self._check()
        os.rmdir(self._path(path))

    def unlink(self, path: str) -> None:
        self._check()
        os.unlink(self._path(path))

    def rename(self, old: str, new: str) -> None:
        self._check()
        os.rename(self._path(old), self._path(new))

    def link(self, target: str, source: str) -> None:
        self._check()
        os.link(self._path(source), self._path(target))

    def symlink(self, target: str, source: str) -> None:
        self._check()
        os.symlink(source, self._path(target))

    def chmod(self, path: str, mode: int) -> None:
        self._check()
        os.chmod(self._path(path), mode)

    def chown(self, path: str, uid: int, gid: int) -> None:
        self._check()
        os.chown(self._path(path), uid, gid)

    def utimens(self, path: str, times: tuple[float, float] | None = None) -> None:
        self._check()
        os.utime(self._path(path), times)


def mount(
    root: Path, mountpoint: Path, switch: Path, timeout: float = 10.0, all_users: bool = False
) -> subprocess.Popen[bytes]:
    """Starts the file system over `root` at `mountpoint` in a process of its own; returns
    once it is mounted. `all_users`: every uid may use it (FUSE's allow_other), as brokers of
    uids of their own must; by default only the uid that mounted it may. Raises OSError when
    it cannot be (no fusepy, libfuse2, /dev/fuse or root): the reason is in the message."""
    if FUSE_MISSING:
        raise OSError(errno.ENOSYS, f"fusepy or libfuse2 is missing ({FUSE_MISSING})")
    root.mkdir(parents=True, exist_ok=True)
    mountpoint.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ferrolog.chaos.failing_disk", str(root), str(mountpoint),
         str(switch), *(["--all-users"] if all_users else [])],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + timeout
    while not os.path.ismount(mountpoint):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            _, err = proc.communicate()
            raise OSError(errno.ENODEV, f"FUSE mount at {mountpoint} failed: {err.decode()[-500:]}")
        time.sleep(0.05)
    return proc


def unmount(mountpoint: Path, proc: subprocess.Popen[bytes]) -> None:
    """Unmounts (lazily: a process with files open there cannot block it); the file system's
    process then exits."""
    subprocess.run(["umount", "-l", str(mountpoint)], check=False, capture_output=True)
    try:
        proc.communicate(timeout=10)  # also closes its stderr pipe
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()


def can_mount(scratch: Path) -> str:
    """Why this process cannot mount the file system ('' when it can): tried once under
    `scratch`, which is removed again."""
    if os.geteuid() != 0:
        return "mounting a FUSE file system needs root"
    try:
        proc = mount(scratch / "root", scratch / "mount", scratch / "switch", all_users=True)
    except OSError as e:
        return str(e)
    else:
        unmount(scratch / "mount", proc)
        return ""
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str]) -> None:
    all_users = "--all-users" in argv
    root, mountpoint, switch = (Path(a).resolve() for a in argv if a != "--all-users")
    # Threads: a broker's writer and its readers must not wait on one another's calls.
    # big_writes: writes of up to 128 KiB per call rather than 4 KiB.
    options: dict[str, bool] = {"big_writes": True, **({"allow_other": True} if all_users else {})}
    FUSE(FailingDisk(root, switch), str(mountpoint), foreground=True, nothreads=False, **options)


if __name__ == "__main__":
    main(sys.argv[1:])
