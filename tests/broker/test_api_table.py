"""The one API table: the handlers registered in `ferrolog.handlers`, the versions derived from
them and from the native core, and a live broker advertising and enforcing exactly that."""

from __future__ import annotations

import importlib
import pkgutil
import struct
import typing
from typing import Any

import ferrolog.handlers
import pytest
from ferrolog.api_versions import advertised, merge
from ferrolog.embedded import EmbeddedBroker
from ferrolog.handlers import HANDLERS, Handler, table
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol import API_NAMES, SCHEMA_VERSIONS, decode_response, encode_request, messages

from tests.broker.test_broker_basics import raw_exchange

API_VERSIONS, METADATA, CREATE_TOPICS = 18, 3, 19


async def answer(ctx: RequestContext, req: dict[str, Any]) -> dict[str, Any]:
    return {}


def test_every_handler_module_of_the_package_is_registered() -> None:
    registered = {h.module for h in HANDLERS.values()}
    for info in pkgutil.iter_modules(ferrolog.handlers.__path__):
        module = importlib.import_module(f"ferrolog.handlers.{info.name}")
        if hasattr(module, "handle"):
            assert module.__name__ in registered
            assert HANDLERS[module.API_KEY].handle is module.handle
    assert HANDLERS[METADATA].module == "ferrolog.handlers.metadata"
    assert HANDLERS[API_VERSIONS].module == "ferrolog.handlers.api_versions"
    assert all(h.api_key == key for key, h in HANDLERS.items())


def test_every_handler_takes_and_returns_its_messages_typed_body() -> None:
    """mypy checks a handler's field names only if its request and response are the generated
    TypedDicts of its own API, not `dict[str, Any]`."""
    for key, handler in HANDLERS.items():
        hints = typing.get_type_hints(handler.handle)
        request, response = hints["request"], hints["return"]
        # A coroutine function's return hint is what it returns when awaited.
        for body, kind in ((request, "Request"), (response, "Response")):
            assert typing.is_typeddict(body), (handler.module, kind, body)
            assert body is getattr(messages, f"{API_NAMES[key]}{kind}"), (handler.module, body)


def test_two_modules_claiming_one_key_is_a_bug() -> None:
    from ferrolog.handlers import heartbeat

    with pytest.raises(RuntimeError, match="API key 12"):
        table(heartbeat, heartbeat)


def test_every_handler_range_is_within_the_codec_schemas() -> None:
    for key, handler in HANDLERS.items():
        low, high = SCHEMA_VERSIONS[key]
        assert low <= handler.min_version <= handler.max_version <= high, handler.module


@pytest.mark.native
def test_every_advertised_key_has_a_handler_or_is_native() -> None:
    import ferrolog_native

    native = ferrolog_native.native_api_versions()
    versions = advertised()
    assert set(versions) == set(HANDLERS) | set(native)
    assert not set(HANDLERS) & set(native)
    for key, handler in HANDLERS.items():
        assert versions[key] == (handler.min_version, handler.max_version), handler.module
    for key, (low, high) in native.items():
        assert versions[key][1] == high
        assert versions[key][0] <= low


def test_advertised_versions_are_the_declared_ones() -> None:
    declared = {
        METADATA: Handler(METADATA, answer, 1, 12, "metadata"),
        CREATE_TOPICS: Handler(CREATE_TOPICS, answer, 2, 5, "create_topics"),
        45: Handler(45, answer, 0, 0, "alter_partition_reassignments"),
    }
    versions = merge(declared, {0: (3, 11), 1: (4, 12)})
    assert versions == {
        0: (0, 11),  # Produce v0-2 advertised but refused, as Kafka 4.x does
        1: (4, 12),
        METADATA: (1, 12),
        CREATE_TOPICS: (2, 5),
        45: (0, 0),
    }


@pytest.mark.parametrize(
    ("handler", "error"),
    [
        (Handler(METADATA, answer, 1, 99, "metadata"), "not all in the schemas"),
        (Handler(46, answer, 9, 9, "list_partition_reassignments"), "not all in the schemas"),
        (Handler(CREATE_TOPICS, answer, 5, 2, "create_topics"), "not all in the schemas"),
        (Handler(9999, answer, 0, 0, "no_such_api"), "not all in the schemas"),
        (Handler(0, answer, 3, 11, "produce"), "served by the native core"),
    ],
)
def test_a_handler_the_table_cannot_advertise_is_refused(handler: Handler, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        merge({handler.api_key: handler}, {0: (3, 11)})


def _api_versions(bootstrap: str, version: int) -> tuple[int, dict[int, tuple[int, int]]]:
    body = {"client_software_name": "ferrolog-test", "client_software_version": "1.0"}
    answered_as = version
    if version > 4:  # a version the broker does not know: answered as v0
        frame = struct.pack(">hhih", API_VERSIONS, version, 1, 4) + b"test" + b"\x00\x00"
        answered_as = 0
    else:
        frame = encode_request(API_VERSIONS, version, 1, "test", body)
    response = raw_exchange(bootstrap, frame)
    assert response is not None
    _, decoded = decode_response(API_VERSIONS, answered_as, response)
    keys = {k["api_key"]: (k["min_version"], k["max_version"]) for k in decoded["api_keys"]}
    return decoded["error_code"], keys


@pytest.mark.native
def test_the_dispatcher_enforces_the_advertised_table(ferrolog_broker: EmbeddedBroker) -> None:
    bootstrap = ferrolog_broker.bootstrap_servers
    # The ApiVersions handler's answer and the dispatcher's own (for a version it does not
    # know, answered from the table it enforces) are one table: the derived one.
    assert _api_versions(bootstrap, 4) == (0, advertised())
    assert _api_versions(bootstrap, 99) == (35, advertised())
    # Versions the codec knows but the handler does not declare are refused unread.
    outside = [
        (key, version)
        for key, h in HANDLERS.items()
        for version in (h.min_version - 1, h.max_version + 1)
        if key != API_VERSIONS and SCHEMA_VERSIONS[key][0] <= version <= SCHEMA_VERSIONS[key][1]
    ]
    assert outside, "no handler leaves a schema version out: nothing to check"
    for key, version in outside:
        frame = struct.pack(">hhih", key, version, 7, 4) + b"test" + b"\x00" * 16
        assert raw_exchange(bootstrap, frame) is None, (key, version)
