"""Hypothesis strategies for message bodies, derived from the generated schema tables.

A body drawn for (schema, version) holds every field of that version, tagged ones included,
with values the wire format can carry; decoding its encoding must give it back unchanged.
"""

from __future__ import annotations

import os
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
