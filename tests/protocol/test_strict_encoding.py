"""The encoder refuses a key that is not a field of the message, at any depth, naming the
message, the version and the key, in both twins alike; a field of another version of the
message is left out, so one body serves every version."""

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from ferrolog.protocol import ProtocolError, _ccodec, _codec

METADATA, FETCH, API_VERSIONS = 3, 1, 18
TWINS = [pytest.param(_codec, id="python"), pytest.param(_ccodec, id="cython")]

_PARTITION = {"partition_index": 0, "leader_id": 1, "replica_nodes": [1], "isr_nodes": [1]}
# A tagged struct is compared with its default before it is written; a stray key in one must
# neither pass as "not the default" nor be skipped as "the default".
_TAGGED = {"partition_index": 0, "records": None, "current_leader": {"leader": -1}}

REFUSALS: list[tuple[str, Callable[[Any], object], str]] = [
    (
        "misspelled",
        lambda c: c.encode_response(
            METADATA, 12, 1, {"brokers": [], "topics": [], "throtle_time_ms": 0}
        ),
        "cannot encode MetadataResponse v12: unknown field 'throtle_time_ms'",
    ),
    (
        "nested",
        lambda c: c.encode_response(
            METADATA,
            9,
            1,
            {"brokers": [], "topics": [{"name": "t", "partitions": [{"leader": 1, "error": 0}]}]},
        ),
        "cannot encode MetadataResponse v9: unknown field 'error', 'leader'"
        " in topics[].partitions[]",
    ),
    (
        "tagged-struct",
        lambda c: c.encode_response(
            FETCH, 12, 1, {"responses": [{"topic": "t", "partitions": [_TAGGED]}]}
        ),
        "cannot encode FetchResponse v12: unknown field 'leader'"
        " in responses[].partitions[].current_leader",
    ),
    (
        "request",
        lambda c: c.encode_request(FETCH, 4, 1, "c", {"max_wait": 5}),
        "cannot encode FetchRequest v4: unknown field 'max_wait'",
    ),
    (
        "data",
        lambda c: c.encode_data(
            "OffsetCommitValue", 3, {"offset": 1, "metadata": "", "timestamp": 0}
        ),
        "cannot encode OffsetCommitValue v3: unknown field 'timestamp'",
    ),
    (
        "not-a-string",
        lambda c: c.encode_response(API_VERSIONS, 3, 1, {"api_keys": [], 7: 0}),
        "cannot encode ApiVersionsResponse v3: unknown field 7",
    ),
]


@pytest.mark.parametrize("twin", TWINS)
@pytest.mark.parametrize(("encode", "expected"), [pytest.param(e, m, id=i) for i, e, m in REFUSALS])
def test_keys_that_are_no_field_are_refused(
    twin: ModuleType, encode: Callable[[Any], object], expected: str
) -> None:
    with pytest.raises(ProtocolError) as caught:
        encode(twin)
    assert str(caught.value) == expected


@pytest.mark.parametrize("twin", TWINS)
def test_fields_of_other_versions_are_left_out(twin: ModuleType) -> None:
    # throttle_time_ms is v3+, cluster_authorized_operations v8-10, leader_epoch v7+.
    plain = {"brokers": [], "topics": [{"name": "t", "partitions": [_PARTITION]}]}
    extra = {
        "brokers": [],
        "topics": [{"name": "t", "partitions": [{**_PARTITION, "leader_epoch": 5}]}],
        "throttle_time_ms": 9,
        "cluster_authorized_operations": 3,
    }
    assert twin.encode_response(METADATA, 0, 1, extra) == twin.encode_response(
        METADATA, 0, 1, plain
    )
