"""Behaviour of the public codec API beyond round trips: defaults, versions, tagged fields,
encode errors, data schemas and the api tables."""

import pytest
from ferrolog.protocol import (
    API_NAMES,
    SCHEMA_VERSIONS,
    ProtocolError,
    UnknownSchemaError,
    decode_data,
    decode_request,
    decode_request_header,
    decode_response,
    encode_data,
    encode_request,
    encode_response,
)

FETCH = 1
API_VERSIONS = 18


def _request_body(api_key: int, version: int, body: dict[str, object]) -> dict[str, object]:
    frame = encode_request(api_key, version, 1, "c", body)
    _, offset = decode_request_header(frame)
    return decode_request(api_key, version, frame, offset)


def test_missing_keys_take_schema_defaults() -> None:
    body = _request_body(FETCH, 4, {})
    assert body == {
        "replica_id": -1,
        "max_wait_ms": 0,
        "min_bytes": 0,
        "max_bytes": 0x7FFFFFFF,
        "isolation_level": 0,
        "topics": [],
    }


def test_fields_outside_the_version_are_ignored() -> None:
    plain = encode_request(FETCH, 4, 1, "c", {"max_wait_ms": 5})
    extra = encode_request(FETCH, 4, 1, "c", {"max_wait_ms": 5, "session_id": 9, "rack_id": "r"})
    assert plain == extra


def test_nested_structs_arrays_uuids_and_records() -> None:
    topic_id = bytes(range(16))
    body = {
        "topics": [
            {
                "topic_id": topic_id,
                "partitions": [{"partition": 3, "fetch_offset": 2**40, "partition_max_bytes": 7}],
            }
        ],
        "forgotten_topics_data": [{"topic_id": topic_id, "partitions": [1, 2]}],
    }
    decoded = _request_body(FETCH, 13, body)
    assert decoded["topics"][0]["topic_id"] == topic_id
    assert decoded["topics"][0]["partitions"][0]["fetch_offset"] == 2**40
    assert decoded["topics"][0]["partitions"][0]["last_fetched_epoch"] == -1
    assert decoded["forgotten_topics_data"] == [{"topic_id": topic_id, "partitions": [1, 2]}]

    produce = {"topic_data": [{"name": "t", "partition_data": [{"index": 0, "records": b"xy"}]}]}
    records = _request_body(0, 9, produce)["topic_data"][0]["partition_data"][0]["records"]
    assert records == b"xy"
    assert isinstance(records, bytes)
    null = {"topic_data": [{"name": "t", "partition_data": [{"index": 0, "records": None}]}]}
    assert _request_body(0, 9, null)["topic_data"][0]["partition_data"][0]["records"] is None


def test_tagged_fields_are_written_only_when_not_default() -> None:
    base = {"api_keys": []}
    plain = encode_response(API_VERSIONS, 3, 1, base)
    # error code, empty compact array, throttle time, empty tag section.
    assert plain == b"\x00\x00\x00\x01" + b"\x00\x00" + b"\x01" + b"\x00\x00\x00\x00" + b"\x00"
    assert encode_response(API_VERSIONS, 3, 1, {**base, "finalized_features_epoch": -1}) == plain
    tagged = encode_response(API_VERSIONS, 3, 1, {**base, "finalized_features_epoch": 5})
    assert tagged[-11:] == b"\x01\x01\x08" + (5).to_bytes(8, "big")
    _, decoded = decode_response(API_VERSIONS, 3, tagged)
    assert decoded["finalized_features_epoch"] == 5
    # Absent tagged fields decode to their defaults.
    _, decoded = decode_response(API_VERSIONS, 3, plain)
    assert decoded["finalized_features_epoch"] == -1
    assert decoded["supported_features"] == []
    assert decoded["zk_migration_ready"] is False


def test_tagged_fields_in_ascending_tag_order() -> None:
    body = {"api_keys": [], "zk_migration_ready": True, "finalized_features_epoch": 2}
    frame = encode_response(API_VERSIONS, 3, 1, body)
    section = frame[4 + 2 + 1 + 4 :]
    assert section == b"\x02" + b"\x01\x08" + (2).to_bytes(8, "big") + b"\x03\x01\x01"


def test_unknown_tags_are_skipped() -> None:
    plain = encode_response(API_VERSIONS, 3, 1, {"api_keys": []})
    # Replace the empty tag section with: unknown tag 9 (2 bytes), known tag 1, unknown tag 40.
    epoch = b"\x01\x08" + (7).to_bytes(8, "big")
    frame = plain[:-1] + b"\x03" + b"\x09\x02ab" + epoch + b"\x28\x00"
    _, decoded = decode_response(API_VERSIONS, 3, frame)
    assert decoded["finalized_features_epoch"] == 7


def test_tagged_field_size_must_match_its_content() -> None:
    plain = encode_response(API_VERSIONS, 3, 1, {"api_keys": []})
    frame = plain[:-1] + b"\x01\x01\x09" + (7).to_bytes(8, "big") + b"\x00"
    with pytest.raises(ProtocolError):
        decode_response(API_VERSIONS, 3, frame)


def test_unsupported_versions_and_keys() -> None:
    assert issubclass(UnknownSchemaError, ProtocolError)
    assert issubclass(ProtocolError, ValueError)
    low, high = SCHEMA_VERSIONS[FETCH]
    with pytest.raises(UnknownSchemaError):
        decode_request(FETCH, high + 1, b"", 0)
    with pytest.raises(UnknownSchemaError):
        encode_response(FETCH, low - 1, 1, {})
    with pytest.raises(UnknownSchemaError):
        encode_request(1000, 0, 1, None, {})
    with pytest.raises(UnknownSchemaError):
        decode_response(1000, 0, b"\x00\x00\x00\x00")
    with pytest.raises(UnknownSchemaError):
        encode_data("NoSuchRecord", 0, {})


@pytest.mark.parametrize(
    "body",
    [
        {"max_wait_ms": 2**31},
        {"isolation_level": 200},
        {"replica_id": "x"},
        {"topics": None},
        {"topics": [{"topic": None, "partitions": []}]},
        {"topics": [{"topic": "t", "partitions": [{"partition": None}]}]},
        {"topics": 5},
    ],
)
def test_unencodable_values_raise_protocol_error(body: dict[str, object]) -> None:
    with pytest.raises(ProtocolError):
        encode_request(FETCH, 4, 1, "c", body)


def test_invalid_uuid_length() -> None:
    with pytest.raises(ProtocolError):
        encode_request(FETCH, 13, 1, "c", {"topics": [{"topic_id": b"short", "partitions": []}]})


def test_data_schemas() -> None:
    key = {"group": "g", "topic": "t", "partition": 3}
    # Since Kafka 4.0 a coordinator key schema has only version 0 (the record type is apart).
    encoded = encode_data("OffsetCommitKey", 0, key)
    assert encoded == b"\x00\x01g\x00\x01t\x00\x00\x00\x03"
    assert decode_data("OffsetCommitKey", 0, encoded) == key
    value = {"offset": 10, "leader_epoch": 2, "metadata": "", "commit_timestamp": 5}
    decoded = decode_data("OffsetCommitValue", 3, encode_data("OffsetCommitValue", 3, value))
    assert decoded == value
    with pytest.raises(ProtocolError):
        decode_data("OffsetCommitKey", 0, encoded + b"\x00")  # trailing bytes
    with pytest.raises(ProtocolError):
        decode_data("OffsetCommitKey", 0, encoded[:-1])


def test_tagged_fields_that_give_only_tagged_versions() -> None:
    # TransactionLogValue's producer id fields name no `versions`: they take their tagged ones.
    value = {"producer_id": 5, "previous_producer_id": 4, "next_producer_id": 6}
    decoded = decode_data("TransactionLogValue", 1, encode_data("TransactionLogValue", 1, value))
    assert (decoded["previous_producer_id"], decoded["next_producer_id"]) == (4, 6)
    assert "previous_producer_id" not in decode_data(
        "TransactionLogValue", 0, encode_data("TransactionLogValue", 0, {"producer_id": 5})
    )


def test_nullable_struct() -> None:
    body = {"topics": [], "cursor": None}
    frame = encode_request(75, 0, 1, "c", body)
    _, offset = decode_request_header(frame)
    assert decode_request(75, 0, frame, offset)["cursor"] is None
    cursor = {"topic_name": "t", "partition_index": 4}
    frame = encode_request(75, 0, 1, "c", {"topics": [], "cursor": cursor})
    assert decode_request(75, 0, frame, offset)["cursor"] == cursor


def test_api_tables() -> None:
    assert API_NAMES[0] == "Produce"
    assert API_NAMES[1] == "Fetch"
    assert API_NAMES[18] == "ApiVersions"
    assert API_NAMES[75] == "DescribeTopicPartitions"
    assert SCHEMA_VERSIONS[18] == (0, 5)
    assert SCHEMA_VERSIONS[0] == (3, 13)  # Kafka 4.0 dropped Produce v0-2 (KIP-896)
    assert set(API_NAMES) == set(SCHEMA_VERSIONS)


def test_tagged_struct_at_its_default_is_not_written() -> None:
    def partition(**extra: object) -> dict[str, object]:
        return {"partition_index": 0, "records": None, **extra}

    def frame(**extra: object) -> bytes:
        body = {"responses": [{"topic": "t", "partitions": [partition(**extra)]}]}
        return encode_response(FETCH, 12, 1, body)

    plain = frame()
    # CurrentLeader's defaults are -1/-1: given in full or in part, it stays out of the wire.
    assert frame(current_leader={"leader_id": -1, "leader_epoch": -1}) == plain
    assert frame(current_leader={"leader_id": -1}) == plain
    moved = frame(current_leader={"leader_id": 2})
    assert len(moved) > len(plain)
    _, decoded = decode_response(FETCH, 12, moved)
    leader = decoded["responses"][0]["partitions"][0]["current_leader"]
    assert leader == {"leader_id": 2, "leader_epoch": -1}
    _, decoded = decode_response(FETCH, 12, plain)
    assert decoded["responses"][0]["partitions"][0]["current_leader"] == {
        "leader_id": -1,
        "leader_epoch": -1,
    }
