"""Renders `messages.py`: the typed bodies, one TypedDict per request, response and data schema
and one per nested struct, from the same JSON schemas as the codec's tables (`generate.py`
calls it; the two files are always written together).

A body is the dict the codec already takes and returns, so the types cost nothing at run time.
One TypedDict serves every version of a message, as the codec's dicts do:

- a field that exists in every version where its struct exists is required; one that exists
  only in some versions, or is tagged, is `NotRequired`, and its comment says in which
  versions it exists (the encoder leaves out fields the version does not have);
- a field that is nullable in some version is `X | None`;
- arrays are `list[X]`; int8 to int64, varints and unsigned types are `int`; bytes, records and
  uuids are `bytes`;
- a nested struct is its own TypedDict, named by the message followed by the struct's Kafka
  name (FetchRequest's FetchTopic is `FetchRequestFetchTopic`), or by the struct's name alone
  where that already starts with the message's (MetadataResponse's `MetadataResponseTopic`).
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from typing import Any

from ferrolog.protocol._schemas_json import (
    SchemaError,
    VersionRange,
    field_type,
    field_versions,
    parse_versions,
    snake_case,
)

PYTHON_TYPES = {
    "bool": "bool", "int8": "int", "int16": "int", "uint16": "int", "int32": "int",
    "uint32": "int", "int64": "int", "varint": "int", "varlong": "int", "float64": "float",
    "string": "str", "bytes": "bytes", "records": "bytes", "uuid": "bytes",
}  # fmt: skip

LINE_LENGTH = 100  # pyproject.toml's [tool.ruff] line-length


@dataclass
class TypedField:
    name: str
    annotation: str
    required: bool
    versions: VersionRange  # the field's own, for the comment of a NotRequired one
    tagged: bool


@dataclass
class TypedStruct:
    name: str
    note: str
    fields: list[TypedField]


def _intersect(a: VersionRange, b: VersionRange) -> VersionRange:
    if a is None or b is None:
        return None
    low, high = max(a[0], b[0]), min(a[1], b[1])
    return (low, high) if low <= high else None


def _covers(outer: VersionRange, inner: VersionRange) -> bool:
    """Whether `outer` holds every version of `inner` (a struct that is never present has no
    field that is always there)."""
    return outer is not None and inner is not None and outer[0] <= inner[0] <= inner[1] <= outer[1]


def version_note(versions: VersionRange) -> str:
    if versions is None:
        return "no version"
    low, high = versions
    if high == 0x7FFF:
        return f"v{low}+"
    return f"v{low}" if low == high else f"v{low}-{high}"


class _Builder:
    """Walks one schema; structs are collected children first, so that the rendered file
    needs no forward references."""

    def __init__(self, message: str, common: dict[str, list[dict[str, Any]]]) -> None:
        self.message = message
        self.common = common
        self.structs: dict[str, TypedStruct] = {}

    def class_name(self, struct: str) -> str:
        return struct if struct.startswith(self.message) else self.message + struct

    def struct(
        self, name: str, note: str, fields: list[dict[str, Any]], present: VersionRange, where: str
    ) -> None:
        built = TypedStruct(name, note, [self.field(f, present, where) for f in fields])
        seen = self.structs.get(name)
        if seen is None:
            self.structs[name] = built
            return
        # A common struct used in several places: one TypedDict that fits every use.
        if [f.name for f in seen.fields] != [f.name for f in built.fields]:
            raise SchemaError(f"{where}: two different structs named {name}")
        for old, new in zip(seen.fields, built.fields, strict=True):
            old.required = old.required and new.required
            if old.annotation != new.annotation:
                old.annotation = _widest(old.annotation, new.annotation, where)

    def field(self, field: dict[str, Any], present: VersionRange, where: str) -> TypedField:
        name = snake_case(field["name"])
        if keyword.iskeyword(name):
            raise SchemaError(f"{where}.{field['name']}: a Python keyword cannot name a key")
        versions = field_versions(field)
        exists = _intersect(present, versions)
        is_array, base, struct_fields = field_type(field, self.common, where)
        if struct_fields is None:
            inner = PYTHON_TYPES[base]
        else:
            inner = self.class_name(base)
            self.struct(inner, "", struct_fields, exists, f"{where}.{field['name']}")
        annotation = f"list[{inner}]" if is_array else inner
        if _intersect(exists, parse_versions(field.get("nullableVersions"))) is not None:
            annotation += " | None"
        tagged = field.get("tag") is not None
        required = not tagged and _covers(versions, present)
        return TypedField(name, annotation, required, versions, tagged)


def _widest(a: str, b: str, where: str) -> str:
    if a + " | None" == b:
        return b
    if b + " | None" == a:
        return a
    raise SchemaError(f"{where}: one struct field typed {a} and {b}")


def typed_structs(schema: dict[str, Any], where: str) -> list[TypedStruct]:
    """The TypedDicts of one schema: its nested structs first, the body last."""
    name = schema["name"]
    valid = parse_versions(schema["validVersions"])
    note = version_note(valid)
    if schema.get("apiKey") is not None:
        note = f"api key {schema['apiKey']}, {note}"
    builder = _Builder(name, {c["name"]: c["fields"] for c in schema.get("commonStructs", [])})
    builder.struct(name, note, schema["fields"], valid, where)
    # The body was added last of all, after the structs its fields reached.
    return list(builder.structs.values())


def render_structs(structs: list[TypedStruct]) -> list[str]:
    lines: list[str] = []
    for struct in structs:
        lines += ["", ""]
        if struct.note:
            lines.append(f"# {struct.note}")
        lines.append(f"class {struct.name}(TypedDict):")
        for f in struct.fields:
            if f.required:
                lines.append(f"    {f.name}: {f.annotation}")
                continue
            note = ("tagged, " if f.tagged else "") + version_note(f.versions)
            line = f"    {f.name}: NotRequired[{f.annotation}]  # {note}"
            if len(line) > LINE_LENGTH:
                # Wrapped as ruff formats it, so that the file passes the project's lint.
                line = f"    {f.name}: NotRequired[\n        {f.annotation}\n    ]  # {note}"
            lines.append(line)
        if not struct.fields:
            lines.append("    pass")
    return lines
