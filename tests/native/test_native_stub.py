"""The native module's type stub matches what the extension really exports (mypy.stubtest,
as pydantic-core checks its own `.pyi`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

NATIVE = Path(__file__).resolve().parents[2] / "native"


def test_stub_matches_the_extension(tmp_path: Path) -> None:
    # stubtest finds stubs on MYPYPATH; give it only ours, outside the installed package.
    shutil.copy(NATIVE / "ferrolog_native.pyi", tmp_path / "ferrolog_native.pyi")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "ferrolog_native",
            "--allowlist",
            str(NATIVE / "stubtest-allowlist.txt"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"MYPYPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
