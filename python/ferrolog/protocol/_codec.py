"""Kafka protocol codec: encodes and decodes bodies and headers following the plans that
`_plans.py` derives from the generated tables in `schemas.py`.

This file is the pure-Python twin and also the source of the compiled one: `_ccodec.pyx`
includes it verbatim, so it must stay plain Python that Cython accepts. Shared types live in
`_shared.py` so that both twins raise the very same exception classes.
"""

from struct import Struct
from struct import error as StructError
from typing import Any

from ferrolog.protocol._plans import (
    BOOL,
    BYTES,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    RECORDS,
    STRING,
    STRUCT,
    UINT16,
    UINT32,
    UUID,
    VARINT,
    VARLONG,
    default_value,
    in_range,
    min_size,
)
from ferrolog.protocol._plans import plan as _plan
from ferrolog.protocol._shared import ProtocolError, RequestHeader
from ferrolog.protocol.messages import ApiKey
from ferrolog.protocol.schemas import REQUESTS, RESPONSES

_I8 = Struct(">b")
_I16 = Struct(">h")
_U16 = Struct(">H")
_I32 = Struct(">i")
_U32 = Struct(">I")
_I64 = Struct(">q")
_F64 = Struct(">d")
# Arrays of zero-width elements (a struct with no field in this version) cannot be bounded by
# the remaining input, so their count is capped instead.
_ZERO_WIDTH_ARRAY_CAP = 1 << 16
_MISSING = object()


# ---------------------------------------------------------------- decoding


class _Reader:
    __slots__ = ("buf", "end", "pos")

    def __init__(self, buf: bytes, pos: int, end: int) -> None:
        self.buf = buf
        self.pos = pos
        self.end = end

    def take(self, n: int) -> int:
        """Consumes n bytes and returns where they start."""
        start = self.pos
        if n < 0 or start + n > self.end:
            raise ProtocolError(
                f"truncated: need {n} bytes at offset {start}, have {self.end - start}"
            )
        self.pos = start + n
        return start


def _read_uvarint(r: _Reader, max_bytes: int) -> int:
    buf = r.buf
    pos = r.pos
    end = r.end
    result = 0
    shift = 0
    for _ in range(max_bytes):
        if pos >= end:
            raise ProtocolError(f"truncated varint at offset {pos}")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            r.pos = pos
            return result
        shift += 7
    raise ProtocolError(f"varint longer than {max_bytes} bytes at offset {r.pos}")


def _read_length(r: _Reader, compact: bool, wide: bool) -> int:
    """A (compact) length or count; -1 means null. `wide` picks int32 over int16."""
    if compact:
        return _read_uvarint(r, 5) - 1
    n: int = (_I32 if wide else _I16).unpack_from(r.buf, r.take(4 if wide else 2))[0]
    return n


def _read_value(r: _Reader, code: int, nullable: bool, compact: bool, sub: Any) -> Any:
    buf = r.buf
    if code == INT32:
        return _I32.unpack_from(buf, r.take(4))[0]
    if code in (STRING, BYTES, RECORDS):
        n = _read_length(r, compact, code != STRING)
        if n < 0:
            if n == -1 and nullable:
                return None
            raise ProtocolError(f"invalid length {n} at offset {r.pos}")
        start = r.take(n)
        if code != STRING:
            return buf[start : start + n]
        try:
            return buf[start : start + n].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"invalid UTF-8 string at offset {start}") from exc
    if code == STRUCT:
        if nullable:
            marker = _I8.unpack_from(buf, r.take(1))[0]
            if marker == -1:
                return None
            if marker != 1:
                raise ProtocolError(f"invalid nullable struct marker {marker}")
        return _read_struct(r, sub)
    if code == INT16:
        return _I16.unpack_from(buf, r.take(2))[0]
    if code == INT64:
        return _I64.unpack_from(buf, r.take(8))[0]
    if code == INT8:
        return _I8.unpack_from(buf, r.take(1))[0]
    if code == BOOL:
        return buf[r.take(1)] != 0
    if code == UUID:
        start = r.take(16)
        return buf[start : start + 16]
    if code == UINT16:
        return _U16.unpack_from(buf, r.take(2))[0]
    if code == UINT32:
        return _U32.unpack_from(buf, r.take(4))[0]
    if code == FLOAT64:
        return _F64.unpack_from(buf, r.take(8))[0]
    if code == VARINT:
        v = _read_uvarint(r, 5)
        if v > 0xFFFFFFFF:
            raise ProtocolError("varint out of int32 range")
        return (v >> 1) ^ -(v & 1)
    if code == VARLONG:
        v = _read_uvarint(r, 10)
        if v > 0xFFFFFFFFFFFFFFFF:
            raise ProtocolError("varlong out of int64 range")
        return (v >> 1) ^ -(v & 1)
    raise ProtocolError(f"unknown type code {code}")


def _read_field(r: _Reader, f: Any) -> Any:
    if not f[2]:
        return _read_value(r, f[1], f[3], f[4], f[5])
    n = _read_length(r, f[4], True)
    if n < 0:
        if n == -1 and f[3]:
            return None
        raise ProtocolError(f"invalid array length {n} for {f[0]}")
    code = f[1]
    sub = f[5]
    elem_size = sub[4] if code == STRUCT else min_size(code, False, False, f[4], None)
    if elem_size > 0:
        if n * elem_size > r.end - r.pos:
            raise ProtocolError(f"array {f[0]} of {n} elements exceeds the remaining input")
    elif n > _ZERO_WIDTH_ARRAY_CAP:
        raise ProtocolError(f"array {f[0]} of {n} elements is too long")
    compact = f[4]
    return [_read_value(r, code, False, compact, sub) for _ in range(n)]


def _read_struct(r: _Reader, plan: Any) -> dict[str, Any]:
    out = {}
    for f in plan[0]:
        out[f[0]] = _read_field(r, f)
    if plan[3]:
        for f in plan[1]:
            out[f[0]] = default_value(f)
        count = _read_uvarint(r, 5)
        if count > r.end - r.pos:
            raise ProtocolError(f"{count} tagged fields exceed the remaining input")
        tags = plan[2]
        for _ in range(count):
            tag = _read_uvarint(r, 5)
            size = _read_uvarint(r, 5)
            start = r.take(size)
            f = tags.get(tag)
            if f is None:
                continue  # unknown tags are skipped, as KIP-482 requires
            inner = _Reader(r.buf, start, start + size)
            out[f[0]] = _read_field(inner, f)
            if inner.pos != inner.end:
                raise ProtocolError(
                    f"tagged field {f[0]} has {size} bytes, used {inner.pos - start}"
                )
    return out


# ---------------------------------------------------------------- encoding


def _write_uvarint(out: bytearray, v: int) -> None:
    if v < 0:
        raise ProtocolError(f"negative unsigned varint {v}")
    while v > 0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def _write_value(
    out: bytearray, code: int, nullable: bool, compact: bool, sub: Any, v: Any
) -> None:
    if v is None and code >= STRING:
        if not nullable:
            raise ProtocolError("null value for a non-nullable field")
        if code == STRUCT:
            out += b"\xff"
        elif compact:
            out.append(0)
        else:
            out += b"\xff\xff" if code == STRING else b"\xff\xff\xff\xff"
        return
    if code == INT32:
        out += _I32.pack(v)
    elif code in (STRING, BYTES, RECORDS):
        data = v.encode("utf-8") if code == STRING else bytes(v)
        if compact:
            _write_uvarint(out, len(data) + 1)
        elif code == STRING:
            if len(data) > 0x7FFF:
                raise ProtocolError(f"string of {len(data)} bytes is too long")
            out += _I16.pack(len(data))
        else:
            out += _I32.pack(len(data))
        out += data
    elif code == STRUCT:
        if nullable:
            out.append(1)
        _write_struct(out, sub, v)
    elif code == INT16:
        out += _I16.pack(v)
    elif code == INT64:
        out += _I64.pack(v)
    elif code == INT8:
        out += _I8.pack(v)
    elif code == BOOL:
        out.append(1 if v else 0)
    elif code == UUID:
        data = bytes(v)
        if len(data) != 16:
            raise ProtocolError(f"uuid must be 16 bytes, got {len(data)}")
        out += data
    elif code == UINT16:
        out += _U16.pack(v)
    elif code == UINT32:
        out += _U32.pack(v)
    elif code == FLOAT64:
        out += _F64.pack(v)
    elif code == VARINT:
        if not -0x80000000 <= v <= 0x7FFFFFFF:
            raise ProtocolError(f"varint {v} out of range")
        _write_uvarint(out, ((v << 1) ^ (v >> 31)) & 0xFFFFFFFF)
    elif code == VARLONG:
        if not -0x8000000000000000 <= v <= 0x7FFFFFFFFFFFFFFF:
            raise ProtocolError(f"varlong {v} out of range")
        _write_uvarint(out, ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF)
    else:
        raise ProtocolError(f"unknown type code {code}")


def _write_field(out: bytearray, f: Any, v: Any) -> None:
    if v is _MISSING:
        v = f[6]
    if not f[2]:
        _write_value(out, f[1], f[3], f[4], f[5], v)
        return
    if v is None:
        if not f[3]:
            raise ProtocolError(f"null array for non-nullable field {f[0]}")
        if f[4]:
            out.append(0)
        else:
            out += b"\xff\xff\xff\xff"
        return
    if f[4]:
        _write_uvarint(out, len(v) + 1)
    else:
        out += _I32.pack(len(v))
    code = f[1]
    compact = f[4]
    sub = f[5]
    for item in v:
        _write_value(out, code, False, compact, sub, item)


def _write_struct(out: bytearray, plan: Any, value: Any) -> None:
    get = value.get
    # Keys that are fields of this version are counted as they are written; only a body
    # with other keys pays for the full check (`_check_keys`).
    seen = 0
    for f in plan[0]:
        v = get(f[0], _MISSING)
        if v is not _MISSING:
            seen += 1
        _write_field(out, f, v)
    if not plan[3]:
        if seen != len(value):
            _check_keys(plan, value)
        return
    entries = []
    for f in plan[1]:
        v = get(f[0], _MISSING)
        if v is _MISSING:
            continue
        seen += 1
        if v is None and f[6] is None:
            continue
        if f[2] and f[6] is not None and v is not None and len(v) == 0:
            continue
        if not f[2] and f[1] != STRUCT and v == f[6]:
            continue
        if f[8] is not None and v is not None and {**f[8], **v} == f[8]:
            continue
        data = bytearray()
        _write_field(data, f, v)
        entries.append((f[7], data))
    if seen != len(value):
        _check_keys(plan, value)
    _write_uvarint(out, len(entries))
    for tag, data in entries:
        _write_uvarint(out, tag)
        _write_uvarint(out, len(data))
        out += data


def _check_keys(plan: Any, value: Any) -> None:
    """Refuses a key that is not a field of the struct in any version: misspelled or stray,
    it would otherwise go out as the field's default. Fields of other versions pass (and are
    left out), so that one body serves every version."""
    names = plan[5]
    if not names.issuperset(value):
        unknown = ", ".join(sorted(repr(key) for key in value if key not in names))
        raise ProtocolError(f"unknown field {unknown}" + (f" in {plan[6]}" if plan[6] else ""))


def _encode_struct(out: bytearray, plan: Any, value: Any, what: str) -> None:
    try:
        _write_struct(out, plan, value)
    except ProtocolError as exc:
        raise ProtocolError(f"cannot encode {what}: {exc}") from exc
    except (StructError, OverflowError, TypeError, AttributeError, UnicodeEncodeError) as exc:
        raise ProtocolError(f"cannot encode {what}: {exc}") from exc


# ---------------------------------------------------------------- public functions


def _as_bytes(data: Any) -> bytes:
    return data if type(data) is bytes else bytes(data)


def _is_flexible(table: Any, key: Any, version: int) -> bool:
    schema = table.get(key)
    return schema is not None and in_range(schema[3], version)


def _request_header_version(api_key: int, api_version: int) -> int:
    schema = REQUESTS.get(api_key)
    if schema is None:
        # Unknown key: versions 0 and 1 share the prefix up to the client id, which is all a
        # broker needs to answer or log before closing the connection.
        return 1
    flex = schema[3]
    # The flexible range is open-ended, so versions newer than the tables still get the
    # right header: ApiVersions must parse any version's header to answer it as v0.
    return 2 if flex is not None and api_version >= flex[0] else 1


def decode_request_header(frame: Any) -> tuple[RequestHeader, int]:
    buf = _as_bytes(frame)
    r = _Reader(buf, 0, len(buf))
    if len(buf) < 4:
        raise ProtocolError(f"request header truncated: {len(buf)} bytes")
    api_key = _I16.unpack_from(buf, 0)[0]
    api_version = _I16.unpack_from(buf, 2)[0]
    h = _read_struct(
        r, _plan("header", "RequestHeader", _request_header_version(api_key, api_version))
    )
    header = RequestHeader(api_key, api_version, h["correlation_id"], h.get("client_id"))
    return header, r.pos


def decode_request(api_key: int, api_version: int, frame: Any, offset: int) -> dict[str, Any]:
    plan = _plan("request", api_key, api_version)
    buf = _as_bytes(frame)
    if not 0 <= offset <= len(buf):
        raise ProtocolError(f"body offset {offset} outside a frame of {len(buf)} bytes")
    # Trailing bytes are tolerated, as Kafka does: an ApiVersions request of an unknown
    # version is answered after parsing its body as v0.
    return _read_struct(_Reader(buf, offset, len(buf)), plan)


def _response_header_version(api_key: int, api_version: int) -> int:
    # ApiVersionsResponse keeps header v0 even when flexible, so that a client can read the
    # answer whatever version it asked for (ApiVersionsResponse.json).
    if api_key == ApiKey.API_VERSIONS or not _is_flexible(RESPONSES, api_key, api_version):
        return 0
    return 1


def encode_response(api_key: int, api_version: int, correlation_id: int, body: Any) -> bytes:
    plan = _plan("response", api_key, api_version)
    out = bytearray()
    header = _plan("header", "ResponseHeader", _response_header_version(api_key, api_version))
    _encode_struct(out, header, {"correlation_id": correlation_id}, "response header")
    _encode_struct(out, plan, body, f"{RESPONSES[api_key][0]} v{api_version}")
    return bytes(out)


def decode_response(api_key: int, api_version: int, frame: Any) -> tuple[int, dict[str, Any]]:
    plan = _plan("response", api_key, api_version)
    buf = _as_bytes(frame)
    r = _Reader(buf, 0, len(buf))
    header = _read_struct(
        r, _plan("header", "ResponseHeader", _response_header_version(api_key, api_version))
    )
    body = _read_struct(r, plan)
    if r.pos != r.end:
        raise ProtocolError(f"{r.end - r.pos} trailing bytes after the response body")
    return header["correlation_id"], body


def encode_request(
    api_key: int, api_version: int, correlation_id: int, client_id: Any, body: Any
) -> bytes:
    plan = _plan("request", api_key, api_version)
    header_plan = _plan("header", "RequestHeader", _request_header_version(api_key, api_version))
    header = {
        "request_api_key": api_key,
        "request_api_version": api_version,
        "correlation_id": correlation_id,
        "client_id": client_id,
    }
    out = bytearray()
    _encode_struct(out, header_plan, header, "request header")
    _encode_struct(out, plan, body, f"{REQUESTS[api_key][0]} v{api_version}")
    return bytes(out)


def encode_data(schema_name: str, version: int, value: Any) -> bytes:
    """Encodes a `type: data` struct; the caller adds any version or record-type prefix."""
    out = bytearray()
    _encode_struct(out, _plan("data", schema_name, version), value, f"{schema_name} v{version}")
    return bytes(out)


def decode_data(schema_name: str, version: int, data: Any) -> dict[str, Any]:
    plan = _plan("data", schema_name, version)
    buf = _as_bytes(data)
    r = _Reader(buf, 0, len(buf))
    value = _read_struct(r, plan)
    if r.pos != r.end:
        raise ProtocolError(f"{r.end - r.pos} trailing bytes after {schema_name}")
    return value


API_NAMES = {key: schema[0][: -len("Request")] for key, schema in sorted(REQUESTS.items())}
SCHEMA_VERSIONS = {key: schema[2] for key, schema in sorted(REQUESTS.items())}
