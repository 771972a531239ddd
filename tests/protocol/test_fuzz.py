"""Decoders facing hostile bytes: random input, mutated valid encodings, huge lengths.

The only exception a decoder may raise is ProtocolError (UnknownSchemaError for a
version the tables lack); whatever decodes must encode again and decode to the same value.
"""

import random
import time
from typing import Any

import pytest
from ferrolog.protocol import (
    ProtocolError,
    decode_data,
    decode_request,
    decode_request_header,
    decode_response,
    encode_data,
    encode_request,
    encode_response,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_strategies import all_versions, random_body, scaled

REQUEST_VERSIONS = all_versions("request")
RESPONSE_VERSIONS = all_versions("response")


def _request_or_error(frame: bytes) -> tuple[Any, Any] | None:
    try:
        header, offset = decode_request_header(frame)
        return header, decode_request(header.api_key, header.api_version, frame, offset)
    except ProtocolError:
        return None


@settings(max_examples=scaled(300))
@given(st.binary(max_size=64))
def test_random_bytes_into_request_decoders(frame: bytes) -> None:
    _request_or_error(frame)


@settings(max_examples=scaled(300))
@given(st.sampled_from(REQUEST_VERSIONS), st.binary(max_size=64))
def test_random_bodies_after_a_valid_header(key_version: tuple[int, int], body: bytes) -> None:
    api_key, version = key_version
    frame = encode_request(api_key, version, 1, "c", {})
    _, offset = decode_request_header(frame)
    decoded = _request_or_error(frame[:offset] + body)
    if decoded is not None:
        reencoded = encode_request(api_key, version, 1, "c", decoded[1])
        assert _request_or_error(reencoded) == decoded


@settings(max_examples=scaled(300))
@given(st.sampled_from(RESPONSE_VERSIONS), st.binary(max_size=64))
def test_random_bytes_into_response_decoder(key_version: tuple[int, int], frame: bytes) -> None:
    api_key, version = key_version
    try:
        correlation_id, body = decode_response(api_key, version, frame)
    except ProtocolError:
        return
    reencoded = encode_response(api_key, version, correlation_id, body)
    assert decode_response(api_key, version, reencoded) == (correlation_id, body)


def _mutations(data: bytes, rng: random.Random) -> list[bytes]:
    out = []
    for _ in range(scaled(16)):
        b = bytearray(data)
        kind = rng.randrange(5)
        pos = rng.randrange(len(b)) if b else 0
        if kind == 0 and b:
            b[pos] ^= 1 << rng.randrange(8)
        elif kind == 1 and b:
            b[pos] = rng.choice([0x00, 0x7F, 0x80, 0xFF])
        elif kind == 2:
            del b[rng.randrange(len(b) + 1) :]
        elif kind == 3:
            b[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 5)))
        elif b:
            del b[pos : pos + rng.randrange(1, 5)]
        out.append(bytes(b))
    return out


@pytest.mark.parametrize("kind", ["request", "response", "data"])
def test_mutated_valid_encodings(kind: str) -> None:
    """Every schema version: encode a drawn body, then decode many corruptions of it."""
    rng = random.Random(f"ferrolog-{kind}")
    for key, version in all_versions(kind):
        body = random_body(kind, key, version, rng)
        if kind == "request":
            frame = encode_request(key, version, 3, "m", body)
            assert _request_or_error(frame) is not None
            for mutated in _mutations(frame, rng):
                _check_request(mutated)
        elif kind == "response":
            frame = encode_response(key, version, 3, body)
            for mutated in _mutations(frame, rng):
                _check_response(key, version, mutated)
        else:
            data = encode_data(key, version, body)
            for mutated in _mutations(data, rng):
                _check_data(key, version, mutated)


def _check_request(frame: bytes) -> None:
    decoded = _request_or_error(frame)
    if decoded is None:
        return
    header, body = decoded
    reencoded = encode_request(*header, body)
    assert _request_or_error(reencoded) == decoded


def _check_data(name: str, version: int, data: bytes) -> None:
    try:
        value = decode_data(name, version, data)
    except ProtocolError:
        return
    assert decode_data(name, version, encode_data(name, version, value)) == value


def _check_response(api_key: int, version: int, frame: bytes) -> None:
    try:
        correlation_id, body = decode_response(api_key, version, frame)
    except ProtocolError:
        return
    reencoded = encode_response(api_key, version, correlation_id, body)
    assert decode_response(api_key, version, reencoded) == (correlation_id, body)


HUGE = (2**31 - 1).to_bytes(4, "big")


@pytest.mark.parametrize(
    ("api_key", "version", "body"),
    [
        # Produce v3: transactional id (null), acks, timeout, topic array of 2**31-1 entries.
        (0, 3, b"\xff\xff\x00\x01\x00\x00\x00\x01" + HUGE + b"\x00" * 8),
        # Produce v3, one topic "t", one partition, records claiming 2**31-1 bytes.
        (
            0,
            3,
            b"\xff\xff\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x01t"
            + b"\x00\x00\x00\x01\x00\x00\x00\x00"
            + HUGE
            + b"\x00" * 4,
        ),
        # Metadata v1: a topic array of 2**31-1 names.
        (3, 1, HUGE + b"\x00" * 16),
        # Metadata v9 (flexible): compact array count as a 5-byte varint near 2**32.
        (3, 9, b"\xfe\xff\xff\xff\x0f" + b"\x00" * 15),
        # ApiVersions v3: a varint that never ends.
        (18, 3, b"\xff" * 20),
    ],
)
def test_huge_lengths_fail_fast(api_key: int, version: int, body: bytes) -> None:
    frame = encode_request(api_key, version, 1, "c", {})
    _, offset = decode_request_header(frame)
    started = time.perf_counter()
    with pytest.raises(ProtocolError):
        decode_request(api_key, version, frame[:offset] + body, offset)
    assert time.perf_counter() - started < 0.5
