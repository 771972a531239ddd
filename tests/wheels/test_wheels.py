"""The wheels `make wheels` puts in dist/ install and run where nothing can be compiled: a fresh
venv whose PATH has no Rust toolchain and no C compiler, `pip install --only-binary :all:`, then
the README's `ferrolog broker` and a record through it with the console tools (librdkafka).
ferrolog's dependencies come from the package index (or pip's cache); its two wheels from dist/.

Where dist/ has no wheels for this Python the test is skipped (run `make wheels`), except in
CI, where `make test` builds them first and a missing wheel is a failure."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from ferrolog.embedded import READY_PREFIX

DIST = Path(__file__).resolve().parents[2] / "dist"
COMPILERS = ("cargo", "rustc", "cc", "gcc", "c++", "g++", "clang", "ld")
# Variables that could point a build at a toolchain whatever PATH says, or point the venv's
# Python at the checkout or the test's own environment.
UNSET = ("CC", "CXX", "CPP", "LD", "CARGO", "RUSTC", "CARGO_HOME", "RUSTUP_HOME", "VIRTUAL_ENV")
UNSET_PREFIXES = ("PYTHON",)


def _wheel(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    if not found:
        message = f"no {pattern} in {DIST}: run `make wheels`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    assert len(found) == 1, f"several wheels match {pattern}: {found}"
    return found[0]


def _bare_env(venv: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in UNSET and not key.startswith(UNSET_PREFIXES)
    }
    env["PATH"] = str(venv / "bin")
    return env


def _run(args: list[str], env: dict[str, str], timeout: float = 300) -> str:
    # Run beside the venv, not in the checkout, whose ferrolog.egg-info would be found first.
    cwd = Path(env["PATH"]).parent.parent
    result = subprocess.run(
        args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert result.returncode == 0, f"{args} exited {result.returncode}:\n{result.stderr}"
    return result.stdout


def _installed_from(python: Path, env: dict[str, str], distribution: str) -> Path:
    """The file pip installed `distribution` from, per its PEP 610 direct_url.json."""
    code = (
        "import sys; from importlib.metadata import distribution as d; "
        "print(d(sys.argv[1]).read_text('direct_url.json'))"
    )
    url = json.loads(_run([str(python), "-c", code, distribution], env))["url"]
    return Path(unquote(urlparse(url).path))


@pytest.mark.timeout(600)
def test_wheels_install_and_serve_without_a_toolchain(tmp_path: Path) -> None:
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    native = _wheel("ferrolog_native-*-cp311-abi3-manylinux_*.whl")
    package = _wheel(f"ferrolog-*-{tag}-{tag}-*manylinux_*.whl")

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = _bare_env(venv)
    python = venv / "bin" / "python"
    # Neither this process nor the venv's Python finds a compiler on that PATH.
    assert [tool for tool in COMPILERS if shutil.which(tool, path=env["PATH"])] == []
    found = _run(
        [str(python), "-c", f"import shutil; print([t for t in {COMPILERS!r} if shutil.which(t)])"],
        env,
    )
    assert found.strip() == "[]"

    install = _run(
        [str(python), "-m", "pip", "install", "--only-binary", ":all:", str(native), str(package)],
        env,
    )
    assert "Building wheel" not in install, install
    assert _installed_from(python, env, "ferrolog-native") == native
    assert _installed_from(python, env, "ferrolog") == package
    # The one abi3 extension, not a per-version build.
    so = _run(
        [str(python), "-c", "import ferrolog_native.ferrolog_native as m; print(m.__file__)"], env
    )
    assert so.strip().endswith("ferrolog_native.abi3.so"), so

    log = tmp_path / "broker.log"  # a file: a pipe nobody reads could fill and stall the broker
    with log.open("w") as stderr:
        broker = subprocess.Popen(
            [
                str(venv / "bin" / "ferrolog"),
                "broker",
                "--override",
                "listeners=PLAINTEXT://127.0.0.1:0",
                "--override",
                f"log.dirs={tmp_path / 'data'}",
                "--override",
                "metrics.listener=",
            ],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    try:
        assert broker.stdout is not None
        line = broker.stdout.readline()
        assert line.startswith(READY_PREFIX), line
        bootstrap = line[len(READY_PREFIX) :].strip()
        topic = f"wheels-{uuid.uuid4().hex[:8]}"
        value = f"from the wheels {uuid.uuid4().hex}"
        ferrolog = str(venv / "bin" / "ferrolog")
        _run([ferrolog, "produce", topic, "-b", bootstrap, "--value", value], env, timeout=60)
        consume = [ferrolog, "consume", topic, "-b", bootstrap, "--from-beginning"]
        consumed = _run([*consume, "--max-messages", "1", "--timeout", "30"], env, timeout=60)
        assert consumed.splitlines() == [value]
    finally:
        broker.send_signal(signal.SIGTERM)
        broker.communicate(timeout=60)
    assert broker.returncode == 0, log.read_text()
