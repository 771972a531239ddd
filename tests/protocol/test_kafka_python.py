"""An independent check: kafka-python's own JSON-schema-driven codec (`kafka.protocol`).

Its schemas are a newer Kafka's, so only the (api, version) pairs whose field layout is the
same in both are compared; the test asserts that these cover the APIs a broker serves.
Values are drawn from our tables, encoded by one side and decoded by the other, and compared
field by field after mapping kafka-python's names and value types to ours; the two encodings
of the same message must also be byte for byte identical.
"""

from __future__ import annotations

import importlib
import pkgutil
import uuid
from functools import cache
from typing import Any

import pytest
from ferrolog.protocol import (
    decode_request,
    decode_request_header,
    decode_response,
    encode_request,
    encode_response,
)
from ferrolog.protocol.generate import SchemaError, convert
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_strategies import TABLES, body_strategy, scaled

kafka_protocol = pytest.importorskip("kafka.protocol")
from kafka.protocol.api_message import ApiMessage  # noqa: E402

# Every API of the broker's suggested set (kafka-protocol README, section 3).
BROKER_APIS = {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19, 20, 22, 23, 24, 25, 26, 28}


def _norm(name: str) -> str:
    # kafka-python splits before every capital ("IsKRaft" -> "is_k_raft"); both sides agree
    # once underscores are dropped.
    return name.replace("_", "").lower()


@cache
def their_classes() -> dict[tuple[str, int], Any]:
    for info in pkgutil.walk_packages(kafka_protocol.__path__, "kafka.protocol."):
        if ".old" not in info.name and "generate_stubs" not in info.name:
            importlib.import_module(info.name)
    found: dict[tuple[str, int], Any] = {}
    pending = list(ApiMessage.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if getattr(cls, "_class_version", 1) is None and getattr(cls, "_json", None):
            found[(cls.type, cls.API_KEY)] = cls
    return found


def _view(fields: Any, version: int, flexible: bool) -> tuple[Any, ...]:
    """What decides the wire layout of a struct at one version."""
    out = []
    for name, ftype, versions, nullable_v, tag, tagged_v, _default, _flex, sub in fields:
        if versions is None or not versions[0] <= version <= versions[1]:
            continue
        nullable = nullable_v is not None and nullable_v[0] <= version <= nullable_v[1]
        is_tagged = flexible and tag is not None and tagged_v[0] <= version <= tagged_v[1]
        subview = _view(sub, version, flexible) if sub is not None else None
        out.append((_norm(name), ftype, nullable, tag if is_tagged else None, subview))
    return tuple(out)


def _layout(message: Any, version: int) -> tuple[Any, ...]:
    _name, _key, _valid, flex, fields = message
    flexible = flex is not None and flex[0] <= version <= flex[1]
    return (flexible, _view(fields, version, flexible))


def _without_bitfields(node: Any) -> Any:
    # kafka-python retypes authorized-operations fields as "bitfield": an int32 on the wire.
    if isinstance(node, dict):
        return {k: "int32" if v == "bitfield" else _without_bitfields(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_without_bitfields(v) for v in node]
    return node


def _bits_to_int(bits: set[int] | None) -> int:
    # kafka-python's bit set for an int32; None stands for "bit 31 only" (INT32_MIN).
    value = 1 << 31 if bits is None else sum(1 << b for b in bits)
    return value - (1 << 32) if value >= 1 << 31 else value


def _int_to_bits(value: int) -> set[int] | None:
    bits = {b for b in range(32) if (value & 0xFFFFFFFF) >> b & 1}
    return None if bits == {31} else bits


@cache
def comparable(kind: str) -> list[tuple[int, int]]:
    """The (api key, version) pairs where kafka-python and our tables lay out the same bytes."""
    pairs = []
    for (their_kind, api_key), cls in sorted(their_classes().items()):
        ours = TABLES[kind].get(api_key)
        if their_kind != kind or ours is None:
            continue
        try:
            theirs = convert(_without_bitfields(cls._json), cls._json["name"])
        except SchemaError:
            continue  # a struct kafka-python resolves differently; nothing to compare
        low = max(ours[2][0], theirs[2][0])
        high = min(ours[2][1], theirs[2][1])
        for version in range(low, high + 1):
            if _layout(ours, version) == _layout(theirs, version):
                pairs.append((api_key, version))
    return pairs


def _field_map(struct: Any, value: dict[str, Any]) -> dict[str, str]:
    by_norm = {_norm(k): k for k in value}
    return {
        f.name: by_norm[_norm(f.name)] for f in struct.fields.values() if _norm(f.name) in by_norm
    }


def _to_theirs(field: Any, value: Any, version: int) -> Any:
    """One of our values as kafka-python expects it for `field`."""
    if value is None:
        return None
    if field.is_struct_array():
        return [_struct_to_theirs(field, item, version) for item in value]
    if field.is_struct():
        return _struct_to_theirs(field, value, version)
    if field._json["type"] == "uuid":
        return uuid.UUID(bytes=value)
    if field._json["type"] == "bitfield":
        return _int_to_bits(value)
    if field._json["type"] == "[]uuid":
        return [uuid.UUID(bytes=v) for v in value]
    return value


def _struct_to_theirs(struct: Any, value: dict[str, Any], at: int, **extra: Any) -> Any:
    """Our struct at version `at` as a kafka-python object (`extra` goes to its constructor)."""
    kwargs = {}
    for theirs, ours in _field_map(struct, value).items():
        field = struct.fields[theirs]
        # kafka-python writes every tagged field it is given; Kafka (and we) skip those at
        # their default. Leaving defaults out lets the two encodings be compared byte for byte.
        if field.tagged_field_q(at) and value[ours] == _from_theirs(field, field.default, at):
            continue
        kwargs[theirs] = _to_theirs(field, value[ours], at)
    return struct.data_class(**kwargs, **extra)


def _from_theirs(field: Any, value: Any, version: int) -> Any:
    if field._json["type"] == "bitfield":
        return _bits_to_int(value)
    if field._json["type"] == "uuid" and value is None:
        return bytes(16)  # kafka-python reads the all-zero uuid as None
    if value is None and field.is_struct() and not field.nullable_for_version_q(version):
        value = field.data_class()  # kafka-python leaves an absent tagged struct as None
    if value is None:
        return None
    if field.is_struct_array():
        return [_struct_from_theirs(field, item, version) for item in value]
    if field.is_struct():
        return _struct_from_theirs(field, value, version)
    if isinstance(value, uuid.UUID):
        return value.bytes
    if isinstance(value, list):
        return [v.bytes if isinstance(v, uuid.UUID) else v for v in value]
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return value


def _struct_from_theirs(struct: Any, obj: Any, version: int) -> dict[str, Any]:
    return {
        f.name: _from_theirs(f, getattr(obj, f.name), version)
        for f in struct.fields.values()
        if f.for_version_q(version)
    }


def _renamed(ours: dict[str, Any]) -> dict[str, Any]:
    """Our body with kafka-python's spelling of every key, recursively."""
    out = {}
    for key, value in ours.items():
        if isinstance(value, dict):
            value = _renamed(value)
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            value = [_renamed(v) for v in value]
        out[_norm(key)] = value
    return out


def _same(ours: dict[str, Any], theirs: dict[str, Any]) -> bool:
    return _renamed(ours) == _renamed(theirs)


def test_comparison_covers_the_broker_apis() -> None:
    for kind in ("request", "response"):
        covered = {api_key for api_key, _ in comparable(kind)}
        missing = BROKER_APIS - covered
        assert not missing, f"no comparable {kind} version for api keys {sorted(missing)}"


@pytest.mark.parametrize(("api_key", "version"), comparable("request"))
@settings(max_examples=scaled(3))
@given(data=st.data())
def test_requests_agree_with_kafka_python(api_key: int, version: int, data: st.DataObject) -> None:
    cls = their_classes()[("request", api_key)]
    body = data.draw(body_strategy("request", api_key, version))

    ours = encode_request(api_key, version, 42, "ferrolog", body)
    theirs = cls.decode(ours, version=version, header=True)
    assert theirs._header.correlation_id == 42
    assert theirs._header.client_id == "ferrolog"
    assert _same(body, _struct_from_theirs(cls._struct, theirs, version))

    # The version goes to the constructor: kafka-python's encode(version=) breaks on messages
    # that already carry a response header.
    message = _struct_to_theirs(cls._struct, body, version, version=version)
    message.with_header(correlation_id=42, client_id="ferrolog")
    frame = bytes(message.encode(header=True))
    assert frame == ours  # same header, same field order, same tagged-field choices
    header, offset = decode_request_header(frame)
    assert (header.api_key, header.api_version, header.correlation_id) == (api_key, version, 42)
    assert _same(decode_request(api_key, version, frame, offset), body)


@pytest.mark.parametrize(("api_key", "version"), comparable("response"))
@settings(max_examples=scaled(3))
@given(data=st.data())
def test_responses_agree_with_kafka_python(api_key: int, version: int, data: st.DataObject) -> None:
    cls = their_classes()[("response", api_key)]
    body = data.draw(body_strategy("response", api_key, version))
    if api_key == 18:
        # kafka-python reads any ApiVersions answer carrying an error as v0 (what a broker
        # sends for UNSUPPORTED_VERSION), so only error-free bodies compare at v1+.
        body["error_code"] = 0

    ours = encode_response(api_key, version, 7, body)
    theirs = cls.decode(ours, version=version, header=True)
    assert theirs._header.correlation_id == 7
    assert _same(body, _struct_from_theirs(cls._struct, theirs, version))

    message = _struct_to_theirs(cls._struct, body, version, version=version)
    message.with_header(correlation_id=7)
    frame = bytes(message.encode(header=True))
    assert frame == ours
    correlation_id, decoded = decode_response(api_key, version, frame)
    assert correlation_id == 7
    assert _same(decoded, body)
