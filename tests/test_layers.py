"""Layering contracts (STYLE.md: checked by a tool, not by hope).

import-linter would be the usual tool, but it finds subpackages by scanning the root
package's folder, and ferrolog maps `ferrolog.controller` and `ferrolog.spark` from other
folders (setup.py), so it cannot see them. This reads each module's imports with `ast`
instead: static imports, including those inside functions and `TYPE_CHECKING` blocks."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"ferrolog": ROOT / "python/ferrolog", "ferrolog.controller": ROOT / "controller",
           "ferrolog.spark": ROOT / "spark"}
FRONT_END = ["ferrolog.cli", "ferrolog.dispatcher", "ferrolog.handlers", "ferrolog.broker"]

# The names of the internal topics live with Kafka's topic-name rules in cluster/topics.py;
# coordinators need the names, not the cluster logic.
SHARED = ["ferrolog.controller.cluster.topics"]

# (what, source package, forbidden prefixes)
CONTRACTS = [
    ("the controller does not reach up into the broker's front end", "ferrolog.controller",
     [*FRONT_END, "ferrolog.spark"]),
    ("cluster logic does not import the coordinators", "ferrolog.controller.cluster",
     ["ferrolog.controller.coordinator"]),
    ("coordinators do not import cluster logic", "ferrolog.controller.coordinator",
     ["ferrolog.controller.cluster"]),
    ("the protocol codec is sans-IO and knows nothing of the broker", "ferrolog.protocol",
     [*FRONT_END, "ferrolog.controller", "ferrolog_native", "socket", "asyncio"]),
    ("the Spark source is a Kafka client, not a part of the broker", "ferrolog.spark",
     [*FRONT_END, "ferrolog.controller"]),
]


def modules() -> dict[str, Path]:
    """Every module of the package, by dotted name, from its source folders."""
    found: dict[str, Path] = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([package, *parts])
            # A mapped subpackage's own folder wins over a same-named path elsewhere.
            found.setdefault(name, path)
    return found


def imports_of(name: str, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return out


def starts_with(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".") or (
        prefix == "ferrolog.cli" and module.startswith("ferrolog.cli_"))


@pytest.mark.parametrize(("what", "source", "forbidden"), CONTRACTS, ids=[c[0] for c in CONTRACTS])
def test_contract(what: str, source: str, forbidden: list[str]) -> None:
    broken = []
    for name, path in sorted(modules().items()):
        if not starts_with(name, source):
            continue
        for imported in sorted(imports_of(name, path)):
            if any(starts_with(imported, prefix) for prefix in forbidden) and not any(
                starts_with(imported, shared) for shared in SHARED
            ):
                broken.append(f"{name} imports {imported}")
    assert broken == [], f"{what}: " + "; ".join(broken)


def test_the_check_sees_every_folder() -> None:
    names = modules()
    assert "ferrolog.controller.cluster.election" in names
    assert "ferrolog.spark.source" in names
    assert "ferrolog.protocol._codec" in names
    # And it would catch a violation: the broker does import the controller.
    assert any(starts_with(i, "ferrolog.controller")
               for i in imports_of("ferrolog.broker", names["ferrolog.broker"]))
