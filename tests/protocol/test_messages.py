"""The typed bodies (`ferrolog.protocol.messages`): they name exactly the codec's fields, their
required keys are in every version's body, and mypy catches a misspelled or missing field in
a response built as one."""

import os
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import ferrolog.protocol
import pytest
from ferrolog.protocol import (
    decode_data,
    decode_request,
    decode_request_header,
    decode_response,
    encode_data,
    encode_request,
    encode_response,
    messages,
)
from ferrolog.protocol.schemas import DATA, REQUESTS, RESPONSES

TABLES = {"request": REQUESTS, "response": RESPONSES, "data": DATA}
SCHEMAS = [(kind, key) for kind, table in TABLES.items() for key in sorted(table)]
PYTHON_ROOT = Path(ferrolog.protocol.__file__).parents[2]


def _struct_type(annotation: Any) -> Any:
    """The TypedDict inside `X`, `list[X]` or `... | None`, or None for a primitive."""
    if typing.is_typeddict(annotation):
        return annotation
    for arg in typing.get_args(annotation):
        found = _struct_type(arg)
        if found is not None:
            return found
    return None


def _assert_same_fields(typed: Any, fields: Any, where: str) -> None:
    keys = typed.__required_keys__ | typed.__optional_keys__
    assert keys == {f[0] for f in fields}, where
    hints = typing.get_type_hints(typed)
    for name, _type, *_, sub in fields:
        nested = _struct_type(hints[name])
        assert (nested is None) == (sub is None), f"{where}.{name}"
        if sub is not None:
            _assert_same_fields(nested, sub, f"{where}.{name}")


@pytest.mark.parametrize(("kind", "key"), SCHEMAS)
def test_typed_bodies_name_the_codecs_fields(kind: str, key: Any) -> None:
    name, _api_key, _valid, _flexible, fields = TABLES[kind][key]
    _assert_same_fields(getattr(messages, name), fields, name)


def _default_body(kind: str, key: Any, version: int) -> dict[str, Any]:
    if kind == "request":
        frame = encode_request(key, version, 1, "c", {})
        return decode_request(key, version, frame, decode_request_header(frame)[1])
    if kind == "response":
        return decode_response(key, version, encode_response(key, version, 1, {}))[1]
    return decode_data(key, version, encode_data(key, version, {}))


@pytest.mark.parametrize(("kind", "key"), SCHEMAS)
def test_required_keys_are_in_every_versions_body(kind: str, key: Any) -> None:
    name, _api_key, (low, high), _flexible, _fields = TABLES[kind][key]
    typed = getattr(messages, name)
    seen: set[str] = set()
    for version in range(low, high + 1):
        body = _default_body(kind, key, version)
        assert typed.__required_keys__ <= body.keys(), f"{name} v{version}"
        seen |= body.keys()
    # An optional key is missing from some version, or tagged (absent from some frames).
    tagged = {f[0] for f in TABLES[kind][key][4] if f[4] is not None}
    for optional in typed.__optional_keys__ - tagged:
        versions = range(low, high + 1)
        assert not all(optional in _default_body(kind, key, v) for v in versions), optional


_HANDLER = """
from ferrolog.protocol.messages import MetadataResponse, MetadataResponsePartition


def partition() -> MetadataResponsePartition:
    return {{
        "error_code": 0,
        "partition_index": 0,
        "{leader}": 1,
        "replica_nodes": [1],
        "isr_nodes": [1],
    }}


def handle() -> MetadataResponse:
    return {{
        "{throttle}": 0,
        "brokers": [{{"node_id": 1, "host": "h", "port": 9092, "rack": None}}],
        "topics": [{{"error_code": 0, "name": "t", "partitions": [partition()]}}],
    }}
"""


def _mypy(tmp_path: Path, sources: dict[str, str]) -> str:
    for name, text in sources.items():
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(PYTHON_ROOT)}
    args = ["--strict", "--cache-dir", str(tmp_path / ".mypy_cache"), "--no-error-summary"]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", *args, *(f"{n}.py" for n in sources)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    return result.stdout


def test_mypy_catches_misspelled_and_missing_fields(tmp_path: Path) -> None:
    report = _mypy(
        tmp_path,
        {
            "right": _HANDLER.format(leader="leader_id", throttle="throttle_time_ms"),
            "misspelled": _HANDLER.format(leader="leader_id", throttle="throtle_time_ms"),
            "nested": _HANDLER.format(leader="leader", throttle="throttle_time_ms"),
        },
    )
    lines = report.splitlines()
    assert not [line for line in lines if line.startswith("right.py")], report
    misspelled = [line for line in lines if line.startswith("misspelled.py")]
    assert len(misspelled) == 1, report
    assert 'Extra key "throtle_time_ms" for TypedDict "MetadataResponse"' in misspelled[0]
    nested = [line for line in lines if line.startswith("nested.py")]
    # The misspelled key is extra, and the required field it meant is missing.
    assert len(nested) == 2, report
    assert 'Missing key "leader_id" for TypedDict "MetadataResponsePartition"' in nested[0]
    assert 'Extra key "leader" for TypedDict "MetadataResponsePartition"' in nested[1]
