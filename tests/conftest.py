"""Shared test setup. The broker fixtures (`ferrolog_broker`, `ferrolog_broker_factory`) come
from the `ferrolog.testing` plugin, registered through the `pytest11` entry point; the SASL
broker (`sasl_broker`) from `tests/sasl_broker.py`.

Tests marked `native` need the native core with its network server; where it is not built
they are skipped with a reason rather than failing on an import."""

from __future__ import annotations

import gc
import importlib.util
import os
import warnings
from collections.abc import Iterator
from types import ModuleType

import pytest

pytest_plugins = ["tests.sasl_broker"]

# Python Kafka clients whose connect to a stopped broker leaves its socket unclosed:
# kafka-python 3 (`kafka.net.inet.sock_connect` raises on ECONNREFUSED without closing the
# socket, and the exception's traceback keeps it in a reference cycle).
_LEAKY_CLIENTS = ("kafka", "aiokafka")
# kafka-python's codec modules open no socket: a module that uses only them (the protocol
# tests' 467 cases) needs no collection after each test, which costs 0.12 s there.
_SOCKETLESS = ("kafka.protocol", "kafka.record")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """With FERROLOG_TEST_FAILURES naming a file (`.ci/run` sets it), each failure is added to
    it as it happens: a run that ends abruptly (an INTERNALERROR, a killed pytest) prints no
    summary, and CI shows only the end of its output, where `.ci/run` prints this file."""
    path = os.environ.get("FERROLOG_TEST_FAILURES")
    # Under pytest-xdist the main process sees each worker's reports too: it alone writes.
    if not path or not report.failed or "PYTEST_XDIST_WORKER" in os.environ:
        return
    lines = report.longreprtext.splitlines()
    why = next((line[1:].strip() for line in lines if line.startswith("E ")), "")
    why = why or (lines[-1].strip() if lines else "")
    with open(path, "a", encoding="utf-8") as out:
        out.write(f"{report.nodeid} [{report.when}, {report.duration:.0f} s] {why[:240]}\n")


def native_server_available() -> bool:
    if importlib.util.find_spec("ferrolog_native") is None:
        return False
    import ferrolog_native

    return hasattr(ferrolog_native, "Server")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "native: needs ferrolog_native with its Server")
    # kafka-python loads its schemas through importlib.resources' deprecated text API; the
    # warning is raised from importlib, so pyproject's `kafka.*` module filter misses it.
    for api in ("open_text", "read_text"):
        config.addinivalue_line("filterwarnings", f"ignore:{api} is deprecated:DeprecationWarning")
    # A socket whose connect was refused (bound to no address yet) and never closed: a client
    # library's reconnect to a stopped broker, from a thread that outlived its test (the
    # socket's owner is not ours: our code connects with `socket.create_connection`, which
    # closes on failure). Collected during a later test, its warning turned error once broke
    # Hypothesis' code generation and ended the whole run with an INTERNALERROR.
    config.addinivalue_line(
        "filterwarnings",
        r"ignore:unclosed <socket\.socket [^>]*laddr=\('0\.0\.0\.0', \d+\)>:ResourceWarning",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if native_server_available():
        return
    skip = pytest.mark.skip(reason="ferrolog_native with its Server is not installed")
    for item in items:
        if item.get_closest_marker("native"):
            item.add_marker(skip)


def _uses_leaky_clients(module: ModuleType | None) -> bool:
    if module is None:
        return False
    for value in vars(module).values():
        name = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", "")
        if (
            isinstance(name, str)
            and name.partition(".")[0] in _LEAKY_CLIENTS
            and not name.startswith(_SOCKETLESS)
        ):
            return True
    return False


@pytest.fixture(autouse=True)
def _collect_client_sockets(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test that used kafka-python or aiokafka, the sockets those clients dropped are
    collected there, their ResourceWarning expected, rather than in whatever later test the
    garbage collector happens to run in (where `filterwarnings = error` fails it)."""
    yield
    if _uses_leaky_clients(getattr(request, "module", None)):
        _collect_quietly()


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """A client thread may drop such a socket after its test ended (a close that timed out
    on a slow machine); it is collected here, before pytest's last collection would report
    it against the run as a whole."""
    _collect_quietly()


def _collect_quietly() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()
