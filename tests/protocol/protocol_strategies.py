"""Hypothesis strategies for message bodies, derived from the generated schema tables.

A body drawn for (schema, version) holds every field of that version, tagged ones included,
with values the wire format can carry; decoding its encoding must give it back unchanged.
"""

from __future__ import annotations

import os
import random
from functools import cache
from typing import Any

from ferrolog.protocol import schemas
from hypothesis import strategies as st

TABLES: dict[str, dict[Any, Any]] = {
    "request": schemas.REQUESTS,
    "response": schemas.RESPONSES,
    "data": schemas.DATA,
}


def _in(versions: tuple[int, int] | None, version: int) -> bool:
    return versions is not None and versions[0] <= version <= versions[1]


def _int_range(bits: int, signed: bool = True) -> st.SearchStrategy[int]:
    if signed:
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    else:
        lo, hi = 0, (1 << bits) - 1
    # Edge values matter most for a fixed-width codec; mix them in explicitly.
    return st.one_of(st.sampled_from([lo, -1 if signed else 1, 0, hi]), st.integers(lo, hi))


_TEXT = st.text(max_size=12)
_BYTES = st.binary(max_size=24)
PRIMITIVES: dict[str, st.SearchStrategy[Any]] = {
    "bool": st.booleans(),
    "int8": _int_range(8),
    "int16": _int_range(16),
    "uint16": _int_range(16, signed=False),
    "int32": _int_range(32),
    "uint32": _int_range(32, signed=False),
    "int64": _int_range(64),
    "varint": _int_range(32),
    "varlong": _int_range(64),
    "float64": st.floats(allow_nan=False),
    "uuid": st.binary(min_size=16, max_size=16),
    "string": _TEXT,
    "bytes": _BYTES,
    "records": _BYTES,
}


def _field_strategy(field: tuple[Any, ...], version: int, depth: int) -> st.SearchStrategy[Any]:
    _name, ftype, _versions, nullable_v, _tag, _tagged_v, _default, _flex, sub = field
    is_array = ftype.startswith("[]")
    base = ftype[2:] if is_array else ftype
    elem = _struct_strategy(sub, version, depth + 1) if base == "struct" else PRIMITIVES[base]
    # Deep nesting explodes the example size; arrays below the second level stay short.
    value = st.lists(elem, max_size=3 if depth < 2 else 1) if is_array else elem
    if _in(nullable_v, version):
        value = st.one_of(st.none(), value)
    return value


def _struct_strategy(fields: Any, version: int, depth: int) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {f[0]: _field_strategy(f, version, depth) for f in fields if _in(f[2], version)}
    )


@cache
def body_strategy(kind: str, key: Any, version: int) -> st.SearchStrategy[dict[str, Any]]:
    fields = TABLES[kind][key][4]
    return _struct_strategy(fields, version, 0)


def all_versions(kind: str) -> list[tuple[Any, int]]:
    """Every (key, version) the tables define for this kind, in a stable order."""
    out = []
    for key, schema in sorted(TABLES[kind].items()):
        low, high = schema[2]
        out.extend((key, v) for v in range(low, high + 1))
    return out


def schema_name(kind: str, key: Any) -> str:
    return str(TABLES[kind][key][0])


def scaled(examples: int) -> int:
    """Example counts for the fast default run, multiplied under the thorough profile
    (`FERROLOG_HYPOTHESIS=thorough`)."""
    return examples * 25 if os.environ.get("FERROLOG_HYPOTHESIS") == "thorough" else examples


_INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "varint": 32, "varlong": 64}


def _random_value(base: str, rng: random.Random) -> Any:
    if base in _INT_BITS:
        bits = _INT_BITS[base]
        return rng.randrange(-(1 << (bits - 1)), 1 << (bits - 1))
    if base in ("uint16", "uint32"):
        return rng.randrange(1 << (16 if base == "uint16" else 32))
    if base == "bool":
        return rng.random() < 0.5
    if base == "float64":
        return rng.uniform(-1e9, 1e9)
    if base == "uuid":
        return rng.randbytes(16)
    if base == "string":
        return "".join(rng.choice("abcé✓") for _ in range(rng.randrange(6)))
    return rng.randbytes(rng.randrange(10))  # bytes, records


def _random_struct(fields: Any, version: int, rng: random.Random, depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, ftype, versions, nullable_v, _tag, _tv, _default, _flex, sub in fields:
        if not _in(versions, version):
            continue
        if _in(nullable_v, version) and rng.random() < 0.2:
            out[name] = None
            continue
        is_array = ftype.startswith("[]")
        base = ftype[2:] if is_array else ftype
        count = rng.randrange(3 if depth < 2 else 2) if is_array else 1
        items = [
            _random_struct(sub, version, rng, depth + 1)
            if base == "struct"
            else _random_value(base, rng)
            for _ in range(count)
        ]
        out[name] = items if is_array else items[0]
    return out


def random_body(kind: str, key: Any, version: int, rng: random.Random) -> dict[str, Any]:
    """A body from a seeded generator: for loops that must not depend on hypothesis."""
    return _random_struct(TABLES[kind][key][4], version, rng, 0)
