"""Request and response headers: versions 0/1/2, the ClientId exception, ApiVersions' header."""

import pytest
from ferrolog.protocol import (
    ProtocolError,
    RequestHeader,
    UnknownSchemaError,
    decode_request,
    decode_request_header,
    decode_response,
    encode_request,
    encode_response,
)

METADATA = 3
API_VERSIONS = 18
CONTROLLED_SHUTDOWN = 7


def test_non_flexible_request_uses_header_v1() -> None:
    frame = encode_request(METADATA, 8, 0x01020304, "ab", {"topics": None})
    # key, version, correlation id, int16-length client id; no tag section.
    assert frame[:12] == b"\x00\x03\x00\x08\x01\x02\x03\x04\x00\x02ab"
    header, offset = decode_request_header(frame)
    assert header == RequestHeader(METADATA, 8, 0x01020304, "ab")
    assert offset == 12


def test_flexible_request_uses_header_v2_with_old_client_id_encoding() -> None:
    frame = encode_request(METADATA, 9, 5, "ab", {"topics": None})
    # ClientId keeps its int16 length in header v2; an empty tag section follows it.
    assert frame[:13] == b"\x00\x03\x00\x09\x00\x00\x00\x05\x00\x02ab\x00"
    header, offset = decode_request_header(frame)
    assert header == RequestHeader(METADATA, 9, 5, "ab")
    assert offset == 13
    assert decode_request(METADATA, 9, frame, offset)["topics"] is None


@pytest.mark.parametrize("version", [8, 9])
def test_null_client_id(version: int) -> None:
    frame = encode_request(METADATA, version, 1, None, {})
    assert frame[8:10] == b"\xff\xff"
    header, _ = decode_request_header(frame)
    assert header.client_id is None


def test_request_header_tagged_fields_are_skipped() -> None:
    frame = encode_request(METADATA, 9, 5, "ab", {"topics": None})
    # One unknown tag (7) of 3 bytes in the header's tag section.
    tagged = frame[:12] + b"\x01\x07\x03xyz" + frame[13:]
    header, offset = decode_request_header(tagged)
    assert header == RequestHeader(METADATA, 9, 5, "ab")
    assert decode_request(METADATA, 9, tagged, offset) == decode_request(METADATA, 9, frame, 13)


def test_a_retired_api_is_unknown() -> None:
    # Kafka 4.0 retired ControlledShutdown (and the other ZooKeeper-era inter-broker APIs):
    # its header reads as any unknown key's, far enough to close the connection, and the body
    # is not decoded.
    frame = b"\x00\x07\x00\x00\x00\x00\x00\x09\x00\x02id\x00\x00\x00\x03"
    header, offset = decode_request_header(frame)
    assert header == RequestHeader(CONTROLLED_SHUTDOWN, 0, 9, "id")
    with pytest.raises(UnknownSchemaError):
        decode_request(CONTROLLED_SHUTDOWN, 0, frame, offset)


def test_response_headers() -> None:
    body = {"brokers": [], "topics": []}
    assert encode_response(METADATA, 8, 7, body)[:4] == b"\x00\x00\x00\x07"
    assert encode_response(METADATA, 8, 7, body)[4:8] != b"\x00\x00\x00\x07"
    flexible = encode_response(METADATA, 9, 7, body)
    # Header v1: correlation id, then its own (empty) tag section.
    assert flexible[:5] == b"\x00\x00\x00\x07\x00"
    assert decode_response(METADATA, 9, flexible)[0] == 7


@pytest.mark.parametrize("version", [0, 3, 4])
def test_api_versions_response_always_uses_header_v0(version: int) -> None:
    body = {"error_code": 35, "api_keys": [{"api_key": 18, "min_version": 0, "max_version": 4}]}
    frame = encode_response(API_VERSIONS, version, 0x0A0B0C0D, body)
    # No tag section after the correlation id, even in flexible versions: the error code
    # follows at once, so any client can read it.
    assert frame[:6] == b"\x0a\x0b\x0c\x0d\x00\x23"
    correlation_id, decoded = decode_response(API_VERSIONS, version, frame)
    assert correlation_id == 0x0A0B0C0D
    assert decoded["api_keys"] == body["api_keys"]


def test_api_versions_request_of_an_unknown_version_still_parses() -> None:
    # A client newer than the tables sends ApiVersions v9: flexible, so header v2. The broker
    # reads the header and answers after parsing the body as v0 (an empty struct).
    known = encode_request(API_VERSIONS, 3, 11, "newer", {})
    frame = known[:2] + b"\x00\x09" + known[4:] + b"\x02x\x021\x00"
    header, offset = decode_request_header(frame)
    assert header == RequestHeader(API_VERSIONS, 9, 11, "newer")
    assert decode_request(API_VERSIONS, 0, frame, offset) == {}


def test_unknown_api_key_header_still_yields_correlation_id() -> None:
    frame = b"\x7f\x00\x00\x01\x00\x00\x00\x2a\x00\x01c" + b"body"
    header, offset = decode_request_header(frame)
    assert header == RequestHeader(0x7F00, 1, 42, "c")
    assert offset == 11


@pytest.mark.parametrize("size", range(12))
def test_truncated_request_header(size: int) -> None:
    frame = encode_request(METADATA, 9, 5, "ab", {})[:size]
    with pytest.raises(ProtocolError):
        decode_request_header(frame)


def test_truncated_response_header() -> None:
    with pytest.raises(ProtocolError):
        decode_response(METADATA, 9, b"\x00\x00\x00")
