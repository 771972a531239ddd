"""Generates `native/src/error_codes.rs`, the native core's table of Kafka's error codes, from
the one table in `ferrolog.errors` (a class per code, with Kafka's UPPER_SNAKE name).

Run as `python -m ferrolog.protocol.generate_errors [--output FILE]`. `native/src/error.rs`
includes the generated file; `tests/broker/test_errors.py` fails when the committed file
differs from this output, so a code added on one side only cannot build."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ferrolog import errors

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_OUTPUT = REPO_ROOT / "native" / "src" / "error_codes.rs"
REGENERATE = "python -m ferrolog.protocol.generate_errors"


def camel_case(upper_snake: str) -> str:
    """`NOT_LEADER_OR_FOLLOWER` -> `NotLeaderOrFollower` (the native `upper_snake` inverts
    it)."""
    return "".join(word.capitalize() for word in upper_snake.split("_"))


def render() -> str:
    codes = {0: "NONE", **{code: cls.name for code, cls in errors.all_errors().items()}}
    lines = [
        f"// generated - do not edit; regenerate with `{REGENERATE}`",
        "// Kafka's error codes, from ferrolog.errors (python/ferrolog/errors.py).",
        "",
        "error_codes! {",
        *(f"    {camel_case(name)} = {code}," for code, name in sorted(codes.items())),
        "}",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    args.output.write_text(render(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
