"""Plans: the generated tables resolved for one (schema, version).

A plan is flat tuples with the wire order, the type codes and the per-version flags already
worked out, so the codec's encode and decode loops do no version arithmetic. Both codec twins
import this module; it runs once per (schema, version), so it is not compiled.

    field plan  = (name, code, is_array, nullable, compact, subplan, default, tag,
                   default_struct)   # the last only for tagged, non-null-default structs
    struct plan = (fields, tagged_fields, tags: {tag: field plan}, flexible, min_size,
                   names, where)

`names` holds the struct's field names in every version, which the encoder checks a body's
keys against (`_codec._check_keys`); `where` is the struct's path in the message, for its
errors ("topics[].partitions[]"; "" for the body itself).
"""

from typing import Any

from ferrolog.protocol._shared import UnknownSchemaError
from ferrolog.protocol.schemas import DATA, HEADERS, REQUESTS, RESPONSES

# Type codes, ordered so that every code from STRING up may be null.
(BOOL, INT8, INT16, UINT16, INT32, UINT32, INT64, FLOAT64, VARINT, VARLONG, UUID,
 STRING, BYTES, RECORDS, STRUCT) = range(15)  # fmt: skip

_CODES = {
    "bool": BOOL, "int8": INT8, "int16": INT16, "uint16": UINT16, "int32": INT32,
    "uint32": UINT32, "int64": INT64, "float64": FLOAT64, "varint": VARINT,
    "varlong": VARLONG, "uuid": UUID, "string": STRING, "bytes": BYTES,
    "records": RECORDS, "struct": STRUCT,
}  # fmt: skip
_FIXED_SIZES = {
    BOOL: 1, INT8: 1, INT16: 2, UINT16: 2, INT32: 4, UINT32: 4, INT64: 8,
    FLOAT64: 8, VARINT: 1, VARLONG: 1, UUID: 16,
}  # fmt: skip
_TABLES: dict[str, dict[Any, Any]] = {
    "request": REQUESTS, "response": RESPONSES, "header": HEADERS, "data": DATA,
}  # fmt: skip
_PLANS: dict[tuple[str, Any, int], Any] = {}


def in_range(versions: Any, version: int) -> bool:
    return versions is not None and versions[0] <= version <= versions[1]


def min_size(code: int, is_array: bool, nullable: bool, compact: bool, sub: Any) -> int:
    """The fewest bytes a value can take: bounds array counts read from untrusted input."""
    if is_array or code in (BYTES, RECORDS):
        return 1 if compact else 4
    if code == STRING:
        return 1 if compact else 2
    if code == STRUCT:
        return 1 if nullable else int(sub[4])
    return _FIXED_SIZES[code]


def default_value(f: Any) -> Any:
    """A fresh value for an absent field (lists and dicts are never shared)."""
    default = f[6]
    if default is None:
        return None
    if f[2]:
        return []
    if f[1] == STRUCT:
        return default_struct(f[5])
    return default


def default_struct(plan: Any) -> dict[str, Any]:
    out = {}
    for f in plan[0]:
        out[f[0]] = default_value(f)
    for f in plan[1]:
        out[f[0]] = default_value(f)
    return out


def _build(fields: Any, version: int, flexible: bool, where: str) -> Any:
    regular = []
    tagged = []
    size = 1 if flexible else 0  # the tag section's count byte
    for name, ftype, versions, nullable_v, tag, tagged_v, default, flex_v, sub in fields:
        if not in_range(versions, version):
            continue
        is_array = ftype.startswith("[]")
        code = _CODES[ftype[2:] if is_array else ftype]
        nullable = in_range(nullable_v, version)
        compact = flexible and (flex_v is None or in_range(flex_v, version))
        subplan = None
        if sub is not None:
            path = f"{where}.{name}" if where else name
            subplan = _build(sub, version, flexible, path + "[]" if is_array else path)
        if flexible and tag is not None and in_range(tagged_v, version):
            # Kafka writes a tagged struct only when it differs from a default-built one.
            is_struct = code == STRUCT and not is_array and default is not None
            struct_default = default_struct(subplan) if is_struct else None
            plan = (name, code, is_array, nullable, compact, subplan, default, tag, struct_default)
            tagged.append(plan)
        else:
            regular.append((name, code, is_array, nullable, compact, subplan, default, None, None))
            size += min_size(code, is_array, nullable, compact, subplan)
    tagged.sort(key=lambda f: f[7])
    names = frozenset(field[0] for field in fields)
    tags = {f[7]: f for f in tagged}
    return (tuple(regular), tuple(tagged), tags, flexible, size, names, where)


def plan(kind: str, key: Any, version: int) -> Any:
    """The plan of a "request", "response", "header" or "data" schema at one version."""
    cache_key = (kind, key, version)
    found = _PLANS.get(cache_key)
    if found is not None:
        return found
    schema = _TABLES[kind].get(key)
    if schema is None:
        raise UnknownSchemaError(f"unknown {kind} schema {key!r}")
    name, _api_key, valid, flexible_v, fields = schema
    if not in_range(valid, version):
        raise UnknownSchemaError(f"{name} has no version {version}")
    found = _build(fields, version, in_range(flexible_v, version), "")
    _PLANS[cache_key] = found
    return found
