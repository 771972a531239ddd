"""Generates the codec's two committed files from Kafka's JSON message schemas: `schemas.py`,
the tables the codec runs on, and `messages.py`, the typed bodies (`generate_messages.py`).

Run as `python -m ferrolog.protocol.generate [--schemas DIR] [--out-dir DIR]`. The schemas
stay outside the repository (reference data in `../shared/kafka-protocol-4.4`, Kafka 4.4.0's
own); only what is derived from them is committed, so the codec needs no JSON at run time.
APIs that Kafka retired (`validVersions` "none") are left out.

Each generated file records two digests in its header: `schemas sha256`, of the schema files
it came from, and `content sha256`, of its own text without that line. The hand-edit guard
(tests/protocol/test_generate.py) checks the latter wherever it runs, and where the schemas
are at hand regenerates both files and compares them whole.

Table layout (also described at the top of schemas.py):

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
import dataclasses
import hashlib
import sys
from pathlib import Path
from typing import Any

from ferrolog.protocol._schemas_json import (
    SchemaError,
    VersionRange,
    common_structs,
    field_type,
    field_versions,
    inputs_digest,
    load_schema,
    parse_versions,
    schema_files,
    snake_case,
)
from ferrolog.protocol.generate_messages import (
    LINE_LENGTH,
    TypedStruct,
    render_structs,
    typed_structs,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_SCHEMAS = REPO_ROOT.parent / "shared" / "kafka-protocol-4.4"
DEFAULT_OUT_DIR = Path(__file__).resolve().parent
TABLES_FILE = "schemas.py"
MESSAGES_FILE = "messages.py"
REGENERATE = "python -m ferrolog.protocol.generate"
GENERATED_LINE = f"# generated - do not edit; regenerate with `{REGENERATE}`"
INPUTS_PREFIX = "# schemas sha256: "
CONTENT_PREFIX = "# content sha256: "

Field = tuple[Any, ...]


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
    common = common_structs(schema)
    return (
        schema["name"],
        schema.get("apiKey"),
        parse_versions(schema["validVersions"]),
        parse_versions(schema.get("flexibleVersions")),
        convert_fields(schema["fields"], common, where),
    )


@dataclasses.dataclass
class Generated:
    """What one pass over the schema files yields, before it is rendered."""

    digest: str
    tables: dict[str, dict[Any, tuple[Any, ...]]] = dataclasses.field(
        default_factory=lambda: {"REQUESTS": {}, "RESPONSES": {}, "HEADERS": {}, "DATA": {}}
    )
    # Typed bodies, keyed so that each api key's request sorts before its response and the
    # data schemas come last. The headers have none: only the codec itself builds them.
    typed: dict[tuple[Any, ...], list[TypedStruct]] = dataclasses.field(default_factory=dict)
    # Each API's key by the name of its request schema, less "Request" (`ApiKey`).
    api_names: dict[int, str] = dataclasses.field(default_factory=dict)


def collect(schemas_dir: Path) -> Generated:
    files = schema_files(schemas_dir)
    out = Generated(inputs_digest(schemas_dir, files))
    tables = out.tables
    for path in files:
        schema = load_schema(path)
        kind = schema["type"]
        if schema["validVersions"] == "none":
            # An API Kafka retired (its ZooKeeper-era inter-broker messages since 4.0): the
            # schema keeps only its name, and no broker or client may send it.
            continue
        message = convert(schema, path.name)
        if kind == "request":
            out.api_names[schema["apiKey"]] = schema["name"].removesuffix("Request")
            tables["REQUESTS"][schema["apiKey"]] = message
            out.typed[(0, schema["apiKey"], 0)] = typed_structs(schema, path.name)
        elif kind == "response":
            tables["RESPONSES"][schema["apiKey"]] = message
            out.typed[(0, schema["apiKey"], 1)] = typed_structs(schema, path.name)
        elif kind == "header":
            tables["HEADERS"][schema["name"]] = message
        elif kind in ("data", "coordinator-key", "coordinator-value"):
            # Since Kafka 4.0 the records of the internal topics are typed apart from data: a
            # record's key carries its type (the schema's apiKey) where its version was, and
            # the key's fields are version 0.
            if schema["name"] in tables["DATA"]:
                raise SchemaError(f"{path.name}: duplicate data schema {schema['name']}")
            tables["DATA"][schema["name"]] = message
            out.typed[(1, schema["name"], 0)] = typed_structs(schema, path.name)
        else:
            raise SchemaError(f"{path.name}: unknown schema type {kind!r}")
    return out


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


def content_digest(text: str) -> str:
    """sha256 of a generated file's text without its own `content sha256` line."""
    kept = [line for line in text.split("\n") if not line.startswith(CONTENT_PREFIX)]
    return hashlib.sha256("\n".join(kept).encode()).hexdigest()


def recorded_digest(text: str, prefix: str) -> str | None:
    """The digest a generated file records on its line that starts with `prefix`."""
    for line in text.split("\n"):
        if line.startswith(prefix):
            return line[len(prefix) :]
    return None


def _sealed(lines: list[str], digest: str) -> str:
    """The file's text with its header's digest lines filled in."""
    text = "\n".join([GENERATED_LINE, f"{INPUTS_PREFIX}{digest}", *lines])
    return text.replace("\n", f"\n{CONTENT_PREFIX}{content_digest(text)}\n", 1)


def render_tables(generated: Generated) -> str:
    lines = [
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
        for key in sorted(generated.tables[table]):
            _emit_message(key, generated.tables[table][key], lines)
        lines.append("}")
        lines.append("")
    return _sealed(lines, generated.digest)


def render_messages(generated: Generated) -> str:
    lines = [
        "# from Kafka's message schemas (messages/*.json, internal/*/*.json).",
        '"""Typed bodies of every request, response and data schema, for mypy: the dicts the',
        "codec takes and returns, one TypedDict per message (all its versions) and per nested",
        "struct. A NotRequired field exists only in the versions its comment gives (or is",
        "tagged); the encoder refuses keys that are not fields of the message. How the types",
        "are derived: ferrolog/protocol/generate_messages.py. `ApiKey` names every API's key",
        "as Kafka names the API (ProduceRequest: PRODUCE), for code that names one; `Apis`",
        'types each key with its request and response bodies, for the clients that send them."""',
        "",
        "from enum import IntEnum",
        "from typing import Generic, NotRequired, TypedDict, TypeVar",
        "",
        "",
        "class ApiKey(IntEnum):",
        *(
            f"    {snake_case(name).upper()} = {key}"
            for key, name in sorted(generated.api_names.items())
        ),
    ]
    names: set[str] = set()
    for key in sorted(generated.typed):
        structs = generated.typed[key]
        for struct in structs:
            if struct.name in names:
                raise SchemaError(f"{key[1]}: a second TypedDict named {struct.name}")
            names.add(struct.name)
        lines += render_structs(structs)
    lines += render_apis(generated.api_names)
    lines.append("")
    return _sealed(lines, generated.digest)


def render_apis(api_names: dict[int, str]) -> list[str]:
    """`Api`, an API's key typed with its request and response bodies, and `Apis`, one for
    every API: what lets a client's `request(Apis.METADATA, version, body)` be checked."""
    lines = [
        "",
        "",
        'Req = TypeVar("Req")',
        'Resp = TypeVar("Resp")',
        "",
        "",
        "class Api(Generic[Req, Resp]):",
        '    """An API\'s key, typed with its request body (`Req`) and response body (`Resp`)."""',
        "",
        "    def __init__(self, key: ApiKey) -> None:",
        "        self.key = key",
        "",
        "",
        "class Apis:",
        '    """Each API typed: `Apis.METADATA` is an `Api[MetadataRequest, MetadataResponse]`."""',
        "",
        *(_api_line(snake_case(name).upper(), name) for _, name in sorted(api_names.items())),
    ]
    return lines


def _api_line(constant: str, name: str) -> str:
    """One `Apis` entry, wrapped as ruff formats it when it is too long for one line."""
    types = f"{name}Request, {name}Response"
    key = f"ApiKey.{constant}"
    line = f"    {constant} = Api[{types}]({key})"
    if len(line) <= LINE_LENGTH:
        return line
    if len(f"    {constant} = Api[{types}](") <= LINE_LENGTH:
        return f"    {constant} = Api[{types}](\n        {key}\n    )"
    return f"    {constant} = Api[\n        {types}\n    ]({key})"


def render_all(schemas_dir: Path) -> dict[str, str]:
    """Every generated file's name and text."""
    generated = collect(schemas_dir)
    return {TABLES_FILE: render_tables(generated), MESSAGES_FILE: render_messages(generated)}


def generate(schemas_dir: Path, out_dir: Path) -> None:
    # Both files are rendered before either is written: they never come from different runs.
    for name, text in render_all(schemas_dir).items():
        (out_dir / name).write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=REGENERATE, description=__doc__.splitlines()[0])
    parser.add_argument(
        "--schemas",
        type=Path,
        default=DEFAULT_SCHEMAS,
        help="the kafka-protocol directory (holding messages/ and internal/)",
    )
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=DEFAULT_OUT_DIR,
        help=f"where to write {TABLES_FILE} and {MESSAGES_FILE} (default: this package)",
    )
    args = parser.parse_args(argv)
    try:
        generate(args.schemas, args.out_dir)
    except (OSError, SchemaError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
