"""Round trips of every schema at every version, on bodies drawn from the schema tables."""

from typing import Any

import pytest
from ferrolog.protocol import (
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
from protocol_strategies import all_versions, body_strategy, scaled

_CORRELATION = st.integers(-(2**31), 2**31 - 1)
_CLIENT_ID = st.one_of(st.none(), st.text(max_size=10))


@pytest.mark.parametrize(("api_key", "version"), all_versions("request"))
@settings(max_examples=scaled(4))
@given(data=st.data(), correlation_id=_CORRELATION, client_id=_CLIENT_ID)
def test_request_round_trip(
    api_key: int, version: int, data: st.DataObject, correlation_id: int, client_id: str | None
) -> None:
    body = data.draw(body_strategy("request", api_key, version))
    frame = encode_request(api_key, version, correlation_id, client_id, body)
    header, offset = decode_request_header(frame)
    assert (header.api_key, header.api_version) == (api_key, version)
    assert header.correlation_id == correlation_id
    assert header.client_id == client_id
    decoded = decode_request(api_key, version, frame, offset)
    assert decoded == body
    assert encode_request(api_key, version, correlation_id, client_id, decoded) == frame


@pytest.mark.parametrize(("api_key", "version"), all_versions("response"))
@settings(max_examples=scaled(4))
@given(data=st.data(), correlation_id=_CORRELATION)
def test_response_round_trip(
    api_key: int, version: int, data: st.DataObject, correlation_id: int
) -> None:
    body = data.draw(body_strategy("response", api_key, version))
    frame = encode_response(api_key, version, correlation_id, body)
    got_correlation, decoded = decode_response(api_key, version, frame)
    assert got_correlation == correlation_id
    assert decoded == body
    assert encode_response(api_key, version, correlation_id, decoded) == frame


@pytest.mark.parametrize(("name", "version"), all_versions("data"))
@settings(max_examples=scaled(8))
@given(data=st.data())
def test_data_round_trip(name: str, version: int, data: st.DataObject) -> None:
    value = data.draw(body_strategy("data", name, version))
    encoded = encode_data(name, version, value)
    decoded = decode_data(name, version, encoded)
    assert decoded == value
    assert encode_data(name, version, decoded) == encoded


@pytest.mark.parametrize(("api_key", "version"), all_versions("request"))
def test_empty_request_body_takes_defaults(api_key: int, version: int) -> None:
    frame = encode_request(api_key, version, 1, "c", {})
    _, offset = decode_request_header(frame)
    decoded: dict[str, Any] = decode_request(api_key, version, frame, offset)
    assert encode_request(api_key, version, 1, "c", decoded) == frame
