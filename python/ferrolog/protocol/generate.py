"""Generates `schemas.py`, the codec's tables, from Kafka's JSON message schemas.

Run as `python -m ferrolog.protocol.generate [--schemas DIR] [--output FILE]`. The schemas
stay outside the repository (reference data in `../shared/kafka-protocol`); only the compact
tables derived from them are committed, so the codec needs no JSON at runtime.

Table layout (also described at the top of the generated file):

    message = (name, api_key, valid_versions, flexible_versions, fields)
    field   = (name, type, versions, nullable_versions, tag, tagged_versions, default,
               flexible_versions, fields)

Version ranges are `(low, high)` pairs; "N+" becomes `(N, 32767)` and "none" becomes `None`,
except a field's own `flexibleVersions`, where `None` means "as the message" and "none" is the
empty range `(0, -1)`.
`type` is a primitive name ("int32", "string", ...), "struct", or "[]" + either. Struct
references to `commonStructs` are resolved inline. `default` is already the Python value the
codec uses: a struct's default is `{}` (every sub-field at its default) or `None` (null).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

VERSION_MAX = 0x7FFF
REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_SCHEMAS = REPO_ROOT.parent / "shared" / "kafka-protocol"
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "schemas.py"
REGENERATE = "python -m ferrolog.protocol.generate"

PRIMITIVES = frozenset(
    {
        "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64",
        "varint", "varlong", "uuid", "string", "bytes", "records",
    }
)  # fmt: skip

VersionRange = tuple[int, int] | None
Field = tuple[Any, ...]


class SchemaError(Exception):
    """A schema file the generator does not understand."""


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


def _parse_int(text: str) -> int:
    return int(text, 16) if text.lower().startswith(("0x", "-0x")) else int(text)


def field_default(field: dict[str, Any], base: str, is_array: bool) -> Any:
    """The value an absent field takes, following Kafka's generator rules."""
    raw = field.get("default")
    if isinstance(raw, str) and raw.strip() in ("null", "None"):
        return None
    if is_array:
        return ()
    if base == "struct":
        return {}
    if base == "bool":
        return raw is not None and str(raw).lower() == "true"
    if base in ("int8", "int16", "uint16", "int32", "uint32", "int64", "varint", "varlong"):
        return 0 if raw is None or raw == "" else _parse_int(str(raw))
    if base == "float64":
        return 0.0 if raw is None or raw == "" else float(raw)
    if base == "string":
        return "" if raw is None else str(raw)
    if base == "bytes":
        return b""
    if base == "records":
        # Kafka's generated classes start `records` fields as null.
        return None
    if base == "uuid":
        return bytes(16)
    raise SchemaError(f"no default rule for {base}")


def _field_flexible(field: dict[str, Any]) -> VersionRange:
    # None means "as the message"; an explicit "none" (RequestHeader.ClientId, which keeps the
    # int16 length even in flexible headers) becomes the empty range (0, -1).
    if "flexibleVersions" not in field:
        return None
    return parse_versions(field["flexibleVersions"]) or (0, -1)


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


def convert_fields(
    fields: list[dict[str, Any]], common: dict[str, list[dict[str, Any]]], where: str
) -> tuple[Field, ...]:
    out: list[Field] = []
    for field in fields:
        name = field["name"]
        is_array, base, struct_fields = field_type(field, common, where)
        sub: tuple[Field, ...] | None = None
        if struct_fields is not None:
            sub = convert_fields(struct_fields, common, f"{where}.{name}")
            base = "struct"
        tag = field.get("tag")
        tagged = parse_versions(field.get("taggedVersions")) if tag is not None else None
        out.append(
            (
                snake_case(name),
                ("[]" if is_array else "") + base,
                field_versions(field),
                parse_versions(field.get("nullableVersions")),
                None if tag is None else int(tag),
                tagged,
                field_default(field, base, is_array),
                _field_flexible(field),
                sub,
            )
        )
    return tuple(out)


def convert(schema: dict[str, Any], where: str) -> tuple[Any, ...]:
    common = {c["name"]: c["fields"] for c in schema.get("commonStructs", [])}
    return (
        schema["name"],
        schema.get("apiKey"),
        parse_versions(schema["validVersions"]),
        parse_versions(schema.get("flexibleVersions")),
        convert_fields(schema["fields"], common, where),
    )


def collect(schemas_dir: Path) -> dict[str, dict[Any, tuple[Any, ...]]]:
    files = sorted((schemas_dir / "messages").glob("*.json"))
    files += sorted((schemas_dir / "internal").glob("*/*.json"))
    if not files:
        raise SchemaError(f"no schema files under {schemas_dir}")
    tables: dict[str, dict[Any, tuple[Any, ...]]] = {
        "REQUESTS": {}, "RESPONSES": {}, "HEADERS": {}, "DATA": {},
    }  # fmt: skip
    for path in files:
        schema = load_schema(path)
        kind = schema["type"]
        message = convert(schema, path.name)
        if kind == "request":
            tables["REQUESTS"][schema["apiKey"]] = message
        elif kind == "response":
            tables["RESPONSES"][schema["apiKey"]] = message
        elif kind == "header":
            tables["HEADERS"][schema["name"]] = message
        elif kind == "data":
            if schema["name"] in tables["DATA"]:
                raise SchemaError(f"{path.name}: duplicate data schema {schema['name']}")
            tables["DATA"][schema["name"]] = message
        else:
            raise SchemaError(f"{path.name}: unknown schema type {kind!r}")
    return tables


def _literal(value: Any) -> str:
    if isinstance(value, tuple) and len(value) == 1:
        return f"({_literal(value[0])},)"
    if isinstance(value, tuple):
        return "(" + ", ".join(_literal(v) for v in value) + ")"
    return repr(value)


def _emit_fields(fields: tuple[Field, ...], indent: str, lines: list[str]) -> None:
    for field in fields:
        *head, sub = field
        if sub is None:
            lines.append(f"{indent}{_literal((*head, None))},")
        else:
            inner = ", ".join(_literal(v) for v in head)
            lines.append(f"{indent}({inner}, (")
            _emit_fields(sub, indent + "    ", lines)
            lines.append(f"{indent})),")


def _emit_message(key: Any, message: tuple[Any, ...], lines: list[str]) -> None:
    *head, fields = message
    lines.append(f"    {key!r}: ({', '.join(_literal(v) for v in head)}, (")
    _emit_fields(fields, "        ", lines)
    lines.append("    )),")


def render(tables: dict[str, dict[Any, tuple[Any, ...]]]) -> str:
    lines = [
        f"# generated - do not edit; regenerate with `{REGENERATE}`",
        "# from Kafka's message schemas (messages/*.json, internal/*/*.json).",
        "# message = (name, api_key, valid_versions, flexible_versions, fields)",
        "# field = (name, type, versions, nullable_versions, tag, tagged_versions, default,",
        "#          flexible_versions, fields); version ranges are (low, high) or None.",
        "from typing import Any",
        "",
    ]
    for table in ("REQUESTS", "RESPONSES", "HEADERS", "DATA"):
        key_type = "int" if table in ("REQUESTS", "RESPONSES") else "str"
        lines.append(f"{table}: dict[{key_type}, Any] = {{")
        for key in sorted(tables[table]):
            _emit_message(key, tables[table][key], lines)
        lines.append("}")
        lines.append("")
    return "\n".join(lines)


def generate(schemas_dir: Path, output: Path) -> None:
    output.write_text(render(collect(schemas_dir)), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=REGENERATE, description=__doc__.splitlines()[0])
    parser.add_argument(
        "--schemas",
        type=Path,
        default=DEFAULT_SCHEMAS,
        help="the kafka-protocol directory (holding messages/ and internal/)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        help="where to write the tables (default: the package's schemas.py)",
    )
    args = parser.parse_args(argv)
    try:
        generate(args.schemas, args.output)
    except (OSError, SchemaError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
