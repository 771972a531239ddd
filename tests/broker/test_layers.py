"""Layering contracts (STYLE.md: checked by a tool, not by hope), and the one interface
through which request handlers reach the cluster.

import-linter would be the usual tool, but it finds subpackages by scanning the root
package's folder, and ferrolog maps `ferrolog.controller` and `ferrolog.spark` from other
folders (setup.py), so it cannot see them. This reads each module's imports with `ast`
instead: static imports, including those inside functions and `TYPE_CHECKING` blocks."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

import pytest
from ferrolog.controller.api import ControllerApi
from ferrolog.controller.cluster.controller import Controller
from ferrolog.controller.cluster.zk_controller import ZkController
from ferrolog.handlers.context import BrokerServices

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {
    "ferrolog": ROOT / "python/ferrolog",
    "ferrolog.controller": ROOT / "controller",
    "ferrolog.spark": ROOT / "spark",
}
FRONT_END = ["ferrolog.cli", "ferrolog.dispatcher", "ferrolog.handlers", "ferrolog.broker"]

# The names of the internal topics live with Kafka's topic-name rules in cluster/topics.py;
# coordinators need the names, not the cluster logic.
SHARED = ["ferrolog.controller.cluster.topics"]
# The one interface through which request handlers reach the cluster (`ctx.broker.controller`).
CONTROLLER_API = "ferrolog.controller.api"
STORES = ["ferrolog.controller.store", "kazoo"]
# The coordinators' service interfaces (`ctx.broker.group_coordinator`, `.txn_coordinator`),
# and the coordinators: shards on one runtime (`coordinator.runtime`), none reaching another.
COORDINATOR_API = "ferrolog.controller.coordinator.api"
COORDINATORS = ["group", "txn"]

# (what, source package, forbidden prefixes, allowed exceptions to them)
CONTRACTS = [
    (
        "the controller does not reach up into the broker's front end",
        "ferrolog.controller",
        [*FRONT_END, "ferrolog.spark"],
        SHARED,
    ),
    (
        "cluster logic does not import the coordinators",
        "ferrolog.controller.cluster",
        ["ferrolog.controller.coordinator"],
        SHARED,
    ),
    (
        "coordinators do not import cluster logic",
        "ferrolog.controller.coordinator",
        ["ferrolog.controller.cluster"],
        SHARED,
    ),
    (
        "the protocol codec is sans-IO and knows nothing of the broker",
        "ferrolog.protocol",
        [*FRONT_END, "ferrolog.controller", "ferrolog_native", "socket", "asyncio"],
        SHARED,
    ),
    (
        "the Spark source is a Kafka client, not a part of the broker",
        "ferrolog.spark",
        [*FRONT_END, "ferrolog.controller"],
        SHARED,
    ),
    (
        "ferrolog's own clients are clients, not a part of the broker",
        "ferrolog.client",
        [*FRONT_END, "ferrolog.controller", "ferrolog_native"],
        [],
    ),
    ("no handler imports a store implementation", "ferrolog.handlers", STORES, []),
    # The SASL authenticator is reached through `ctx.broker.sasl`; it is not cluster logic.
    (
        "handlers reach the cluster and the coordinators only through their interfaces",
        "ferrolog.handlers",
        ["ferrolog.controller", *STORES],
        [CONTROLLER_API, COORDINATOR_API, "ferrolog.controller.security"],
    ),
    *[
        (
            f"the {name} coordinator imports no other coordinator",
            f"ferrolog.controller.coordinator.{name}",
            [f"ferrolog.controller.coordinator.{other}" for other in COORDINATORS if other != name]
            + [COORDINATOR_API],
            [],
        )
        for name in COORDINATORS
    ],
    # The classic and the consumer protocol do not reach into each other: `protocols` chooses
    # one for each request and `migration` builds on both (no import cycle among the three).
    *[
        (
            f"the group coordinator's {name} protocol leaves the choice of protocol alone",
            f"ferrolog.controller.coordinator.group.{name}",
            [f"ferrolog.controller.coordinator.group.{m}" for m in ("migration", "protocols")],
            [],
        )
        for name in ("membership", "consumer")
    ],
    # The store keeps what the managers decide; it knows their models, not the managers.
    (
        "the metadata store depends only on the models it stores",
        "ferrolog.controller.store",
        ["ferrolog.controller"],
        [
            "ferrolog.controller.store",
            "ferrolog.controller.acl.model",
            "ferrolog.controller.quota.entity",
            "ferrolog.controller.tokens.model",
        ],
    ),
    (
        "the coordinator runtime knows no coordinator",
        "ferrolog.controller.coordinator.runtime",
        [f"ferrolog.controller.coordinator.{name}" for name in COORDINATORS] + [COORDINATOR_API],
        [],
    ),
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
    return module == prefix or module.startswith(prefix + ".")


def broken_imports(source: str, forbidden: list[str], allowed: list[str]) -> list[str]:
    broken = []
    for name, path in sorted(modules().items()):
        if not starts_with(name, source):
            continue
        for imported in sorted(imports_of(name, path)):
            if any(starts_with(imported, prefix) for prefix in forbidden) and not any(
                starts_with(imported, exception) for exception in allowed
            ):
                broken.append(f"{name} imports {imported}")
    return broken


@pytest.mark.parametrize(
    ("what", "source", "forbidden", "allowed"), CONTRACTS, ids=[c[0] for c in CONTRACTS]
)
def test_contract(what: str, source: str, forbidden: list[str], allowed: list[str]) -> None:
    broken = broken_imports(source, forbidden, allowed)
    assert broken == [], f"{what}: " + "; ".join(broken)


def test_nothing_imports_the_command_line() -> None:
    """`ferrolog.cli` sits on top of everything: the broker, the controller, the clients and
    the Spark source import nothing from it; only `python -m ferrolog` does."""
    broken = [
        line
        for line in broken_imports("ferrolog", ["ferrolog.cli"], [])
        if not starts_with(line.split()[0], "ferrolog.cli")
        and line.split()[0] != "ferrolog.__main__"
    ]
    assert broken == []
    # The controller (its own source folder) is checked as well.
    assert broken_imports("ferrolog.controller", ["ferrolog.cli"], []) == []


def controller_calls_in_handlers() -> dict[str, set[str]]:
    """Attribute names each handler module uses on the controller: on `<...>.controller` and on
    a name `controller` (handlers bind `controller = ctx.broker.controller`)."""
    used: dict[str, set[str]] = {}
    for name, path in sorted(modules().items()):
        if not starts_with(name, "ferrolog.handlers"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute):
                continue
            base = node.value
            if (isinstance(base, ast.Attribute) and base.attr == "controller") or (
                isinstance(base, ast.Name) and base.id == "controller"
            ):
                used.setdefault(name, set()).add(node.attr)
    return used


def test_the_controller_is_reached_through_one_interface() -> None:
    # Handlers get the controller typed as the interface, and no store beside it.
    fields = {f.name: str(f.type) for f in dataclasses.fields(BrokerServices)}
    assert fields["controller"] == "ControllerApi"
    assert not [n for n, t in fields.items() if "store" in n.lower() or "Store" in t]
    # What they call on it is part of the interface...
    interface = {n for n in dir(ControllerApi) if not n.startswith("_")}
    used = controller_calls_in_handlers()
    assert "ferrolog.handlers.elect_leaders" in used  # the scan sees the calls
    outside = {m: sorted(names - interface) for m, names in used.items() if names - interface}
    assert outside == {}
    # ...and both controllers implement all of it, with the interface's parameters.
    for cls in (Controller, ZkController):
        for member in sorted(interface):
            wanted, got = getattr(ControllerApi, member), getattr(cls, member, None)
            # A manager is an attribute each instance sets, declared on the class.
            declared = any(member in vars(c).get("__annotations__", {}) for c in cls.__mro__)
            assert got is not None or declared, f"{cls.__name__} lacks {member}"
            if callable(wanted):
                assert list(inspect.signature(got).parameters) == list(
                    inspect.signature(wanted).parameters
                ), f"{cls.__name__}.{member}"


def test_the_check_sees_every_folder() -> None:
    names = modules()
    assert "ferrolog.controller.cluster.election" in names
    assert "ferrolog.spark.source" in names
    assert "ferrolog.protocol._codec" in names
    # And it would catch a violation: the broker does import the controller and the stores,
    # which a handler must not.
    assert any(
        starts_with(i, "ferrolog.controller")
        for i in imports_of("ferrolog.broker", names["ferrolog.broker"])
    )
    assert broken_imports("ferrolog.broker", STORES, [])


def coordinator_calls_in_handlers() -> dict[str, set[str]]:
    """Attribute names the handlers use on each coordinator, by the helper that gave it
    (`_groups.coordinator(ctx)` or `_txn.coordinator(ctx)`): on the call itself and on a name
    bound to it."""
    used: dict[str, set[str]] = {"_groups": set(), "_txn": set()}
    for name, path in sorted(modules().items()):
        if not starts_with(name, "ferrolog.handlers"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        source = {  # the helper module a bare `coordinator(...)` comes from
            alias.asname or alias.name: node.module.rpartition(".")[2]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module in HELPERS
            for alias in node.names
            if alias.name == "coordinator"
        }

        bound = {
            target.id: found
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and (found := helper_of(node.value, source)) is not None
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                base = node.value
                found = helper_of(base, source) or (
                    bound.get(base.id) if isinstance(base, ast.Name) else None
                )
                if found is not None:
                    used[found].add(node.attr)
    return used


HELPERS = {"ferrolog.handlers._groups", "ferrolog.handlers._txn"}


def helper_of(call: ast.expr, source: dict[str, str]) -> str | None:
    """ "_groups" or "_txn" when `call` is that helper's `coordinator(...)`, else None."""
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    if isinstance(func, ast.Name) and func.id in source:
        return source[func.id]
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "coordinator"
        and isinstance(func.value, ast.Name)
        and func.value.id in ("_groups", "_txn")
    ):
        return func.value.id
    return None


def test_the_coordinators_are_reached_through_their_interfaces() -> None:
    from ferrolog.controller.coordinator.api import (
        GroupCoordinatorApi,
        TransactionCoordinatorApi,
    )
    from ferrolog.controller.coordinator.group.coordinator import GroupCoordinator
    from ferrolog.controller.coordinator.txn.coordinator import TransactionCoordinator

    fields = {f.name: str(f.type) for f in dataclasses.fields(BrokerServices)}
    assert fields["group_coordinator"] == "GroupCoordinatorApi | None"
    assert fields["txn_coordinator"] == "TransactionCoordinatorApi | None"
    used = coordinator_calls_in_handlers()
    # The scan sees the calls, of both helpers.
    assert {"join_group", "commit_offsets"} <= used["_groups"]
    assert {"end_txn", "verify"} <= used["_txn"]
    for helper, interface, implementation in (
        ("_groups", GroupCoordinatorApi, GroupCoordinator),
        ("_txn", TransactionCoordinatorApi, TransactionCoordinator),
    ):
        members = {n for n in dir(interface) if not n.startswith("_")}
        if helper is not None:
            assert used[helper] - members == set(), f"outside {interface.__name__}"
        for member in sorted(members):
            wanted, got = getattr(interface, member), getattr(implementation, member, None)
            assert got is not None, f"{implementation.__name__} lacks {member}"
            assert list(inspect.signature(got).parameters) == list(
                inspect.signature(wanted).parameters
            ), f"{implementation.__name__}.{member}"


# Generated code and data tables, which may be as long as what they hold.
LONG_BY_NATURE = {
    "python/ferrolog/protocol/messages.py",  # generated from Kafka's schemas
    "python/ferrolog/protocol/schemas.py",  # Kafka's schemas
    "python/ferrolog/config/table.py",  # the one config table
    "python/ferrolog/errors.py",  # the one error map
    "native/src/properties/table.rs",  # generated from the config table
}
MAX_LINES = 500


def test_no_source_file_is_longer_than_500_lines() -> None:
    """Big files are split along their seams (issue 29); tests are not counted."""
    sources = [
        path
        for folder in ("python/ferrolog", "controller", "spark", "bench", "native/src")
        for pattern in ("*.py", "*.rs", "*.pyx")
        for path in (ROOT / folder).rglob(pattern)
        if "tests" not in path.relative_to(ROOT).parts
        and not path.name.endswith("_tests.rs")
        and "cache" not in path.relative_to(ROOT).parts
    ]
    assert len(sources) > 300  # the walk sees the tree
    long = {
        str(path.relative_to(ROOT)): lines
        for path in sources
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert {name: n for name, n in long.items() if name not in LONG_BY_NATURE} == {}


def test_api_keys_are_named_not_written_as_numbers() -> None:
    """`ApiKey` (generated from Kafka's schemas) is the one source of the API keys: no module
    binds an API's name, or a handler's API_KEY, to a number of its own (issue 29)."""
    from ferrolog.protocol.messages import ApiKey

    names = {key.name for key in ApiKey} | {"API_KEY"}
    literal = []
    for folder in ("python/ferrolog", "controller", "spark", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "messages.py" or "cache" in path.parts:
                continue
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if not isinstance(node, ast.Assign):
                    continue
                targets = [
                    t
                    for target in node.targets
                    for t in (target.elts if isinstance(target, ast.Tuple) else [target])
                ]
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                for target, value in zip(targets, values, strict=False):
                    if (
                        isinstance(target, ast.Name)
                        and target.id in names
                        and isinstance(value, ast.Constant)
                        and isinstance(value.value, int)
                    ):
                        literal.append(f"{path.relative_to(ROOT)}: {target.id}")
    assert literal == []


def test_clients_send_typed_bodies() -> None:
    """ferrolog's own clients (the tools, Spark, the coordinators' requests to other brokers)
    name the API of every request by `Apis`, which types its request and response bodies for
    mypy: no `request` call passes a bare key (issue 29). Only the fuzzer's raw frames and the
    sans-IO SASL exchange, which send what they are given, are untyped."""
    untyped = []
    for folder in ("python/ferrolog", "controller", "spark", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            if "cache" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("request", "_request")
                    and node.args
                ):
                    continue
                # BrokerChannel.request(node, api, ...) names the broker first.
                for arg in node.args[:2]:
                    named = ast.unparse(arg)
                    if named.startswith("Apis.") or named == "api":
                        break
                else:
                    untyped.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert untyped == []


def test_native_calls_run_on_their_own_threads() -> None:
    """The native core's blocking calls are awaited on their own pool (`native_call`) or as
    completions (`NativeWaits`), never on asyncio's default executor, where the event loop's
    host-name lookups wait behind them (issue 29)."""
    on_default, on_own = [], 0
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            called, first = ast.unparse(node.func), ast.unparse(node.args[0])
            if called.endswith(("to_thread", "run_in_executor")) and "native" in first:
                on_default.append(f"{name}:{node.lineno}: {first}")
            on_own += called == "native_call"
    assert on_default == []
    assert on_own > 10  # the scan sees the calls


def test_the_native_layers_below_the_server_do_not_reach_up() -> None:
    """The native core's lower layers (the inter-broker client, the shared TLS, metrics,
    replication state, logs and records) never use the server: what both need lives below it
    (`crate::tls`, `crate::replica::PartitionState`)."""
    below = ["client", "tls", "metrics", "replica", "log", "record", "quota", "acl"]
    reaching = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in below
        for path in (ROOT / "native/src" / folder).rglob("*.rs")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "crate::server" in line and not line.lstrip().startswith("//")
    ]
    assert len(list((ROOT / "native/src/client").rglob("*.rs"))) > 2  # the walk sees them
    assert reaching == []
