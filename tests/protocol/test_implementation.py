"""Which twin is loaded: the compiled one by default, the pure one on request."""

import os
import subprocess
import sys

import ferrolog.protocol as protocol
import pytest


def _implementation_in_child(pure: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "FERROLOG_PURE_PYTHON"}
    if pure is not None:
        env["FERROLOG_PURE_PYTHON"] = pure
    code = "import ferrolog.protocol as p; print(p.IMPLEMENTATION, type(p.decode_request).__name__)"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


@pytest.mark.skipif(
    os.environ.get("FERROLOG_PURE_PYTHON", "") not in ("", "0"),
    reason="this run asked for the pure-Python twin",
)
def test_compiled_codec_is_loaded_by_default() -> None:
    assert protocol.IMPLEMENTATION == "cython"
    # Cython compiles the functions to builtins; the pure twin's are plain functions.
    assert type(protocol.decode_request).__name__ == "builtin_function_or_method"


@pytest.mark.skipif(
    os.environ.get("FERROLOG_PURE_PYTHON", "") in ("", "0"),
    reason="this run uses the compiled codec",
)
def test_pure_twin_is_loaded_on_request() -> None:
    assert protocol.IMPLEMENTATION == "python"
    assert type(protocol.decode_request).__name__ == "function"


def test_environment_switch_selects_the_twin() -> None:
    assert _implementation_in_child(None) == "cython builtin_function_or_method"
    assert _implementation_in_child("0") == "cython builtin_function_or_method"
    assert _implementation_in_child("1") == "python function"


def test_both_twins_raise_the_same_exception_classes() -> None:
    from ferrolog.protocol import _ccodec, _codec

    for twin in (_ccodec, _codec):
        with pytest.raises(protocol.ProtocolError):
            twin.decode_request_header(b"\x00")
        with pytest.raises(protocol.UnknownSchemaError):
            twin.decode_request(9999, 0, b"", 0)
