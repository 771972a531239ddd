"""Reading Kafka's JSON message schemas: the files, their versions, names and field types.
Shared by the two renderers of `generate.py` (the codec's tables and the typed bodies)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

VERSION_MAX = 0x7FFF

PRIMITIVES = frozenset(
    {
        "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64",
        "varint", "varlong", "uuid", "string", "bytes", "records",
    }
)  # fmt: skip

VersionRange = tuple[int, int] | None


class SchemaError(Exception):
    """A schema file the generator does not understand."""


def schema_files(schemas_dir: Path) -> list[Path]:
    files = sorted((schemas_dir / "messages").glob("*.json"))
    files += sorted((schemas_dir / "internal").glob("*/*.json"))
    if not files:
        raise SchemaError(f"no schema files under {schemas_dir}")
    return files


def inputs_digest(schemas_dir: Path, files: list[Path]) -> str:
    """sha256 over every schema file's path and bytes: what the generated files came from."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(schemas_dir).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def load_schema(path: Path) -> dict[str, Any]:
    # Kafka's schema files are JSON plus whole-line `//` comments; strings may contain `//`
    # (URLs), so only lines that start with it are dropped.
    text = "\n".join(
        line for line in path.read_text(encoding="utf-8").splitlines()
        if not line.lstrip().startswith("//")
    )  # fmt: skip
    try:
        schema: dict[str, Any] = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchemaError(f"{path}: {exc}") from exc
    return schema


def parse_versions(spec: str | None) -> VersionRange:
    if spec is None or spec == "none":
        return None
    spec = spec.strip()
    if spec.endswith("+"):
        return (int(spec[:-1]), VERSION_MAX)
    if "-" in spec:
        low, high = spec.split("-", 1)
        return (int(low), int(high))
    return (int(spec), int(spec))


_CAMEL_1 = re.compile(r"(.)([A-Z][a-z]+)")
_CAMEL_2 = re.compile(r"([a-z0-9])([A-Z])")


def snake_case(name: str) -> str:
    return _CAMEL_2.sub(r"\1_\2", _CAMEL_1.sub(r"\1_\2", name)).lower()


def field_type(
    field: dict[str, Any], common: dict[str, list[dict[str, Any]]], where: str
) -> tuple[bool, str, list[dict[str, Any]] | None]:
    """(is_array, base type, struct fields): a struct's base type is its Kafka name, and its
    fields are inline or those of the `commonStructs` entry it names."""
    ftype: str = field["type"]
    is_array = ftype.startswith("[]")
    base = ftype[2:] if is_array else ftype
    if base in PRIMITIVES:
        return is_array, base, None
    if "fields" in field:
        return is_array, base, field["fields"]
    if base in common:
        return is_array, base, common[base]
    raise SchemaError(f"{where}.{field['name']}: unknown type {ftype}")


def field_versions(field: dict[str, Any]) -> VersionRange:
    # A tagged field may give only `taggedVersions`; Kafka's generator then takes them as its
    # versions (FieldSpec).
    return parse_versions(field.get("versions", field.get("taggedVersions")))


def common_structs(schema: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {c["name"]: c["fields"] for c in schema.get("commonStructs", [])}
