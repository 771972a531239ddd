"""pytest-benchmark of the Python-side codec on the bodies the broker handles most: Metadata,
group membership and offset commits, and the Fetch responses the Spark reader decodes.

Run: `pytest tests/protocol/test_codec_speed.py --benchmark-enable` (and again with
FERROLOG_PURE_PYTHON=1 for the twin); the suite's default run only checks that each body
survives a round trip."""

from __future__ import annotations

from typing import Any

from ferrolog.protocol import (
    decode_data,
    decode_request,
    decode_request_header,
    decode_response,
    encode_data,
    encode_request,
    encode_response,
)

METADATA, OFFSET_COMMIT, HEARTBEAT, JOIN_GROUP, FETCH = 3, 8, 12, 11, 1


def _metadata_response(topics: int, partitions: int) -> dict[str, Any]:
    return {
        "throttle_time_ms": 0,
        "brokers": [
            {"node_id": n, "host": f"broker-{n}", "port": 9092, "rack": None} for n in range(3)
        ],
        "cluster_id": "cluster",
        "controller_id": 0,
        "topics": [
            {
                "error_code": 0,
                "name": f"topic-{t}",
                "topic_id": bytes(16),
                "is_internal": False,
                "partitions": [
                    {
                        "error_code": 0,
                        "partition_index": p,
                        "leader_id": p % 3,
                        "leader_epoch": 4,
                        "replica_nodes": [0, 1, 2],
                        "isr_nodes": [0, 1, 2],
                        "offline_replicas": [],
                    }
                    for p in range(partitions)
                ],
                "topic_authorized_operations": -(2**31),
            }
            for t in range(topics)
        ],
    }


def _offset_commit_request(partitions: int) -> dict[str, Any]:
    return {
        "group_id": "group",
        "generation_id_or_member_epoch": 3,
        "member_id": "member-1",
        "group_instance_id": None,
        "topics": [
            {
                "name": "topic",
                "partitions": [
                    {
                        "partition_index": p,
                        "committed_offset": 1000 + p,
                        "committed_leader_epoch": 2,
                        "committed_metadata": "",
                    }
                    for p in range(partitions)
                ],
            }
        ],
    }


def _fetch_response(partitions: int) -> dict[str, Any]:
    return {
        "throttle_time_ms": 0,
        "error_code": 0,
        "session_id": 0,
        "responses": [
            {
                "topic_id": bytes(range(16)),
                "partitions": [
                    {
                        "partition_index": p,
                        "error_code": 0,
                        "high_watermark": 5000,
                        "last_stable_offset": 5000,
                        "log_start_offset": 0,
                        "aborted_transactions": None,
                        "preferred_read_replica": -1,
                        "records": bytes(4096),
                    }
                    for p in range(partitions)
                ],
            }
        ],
    }


def test_encode_metadata_response(benchmark: Any) -> None:
    body = _metadata_response(topics=20, partitions=12)
    frame = benchmark(encode_response, METADATA, 12, 7, body)
    assert decode_response(METADATA, 12, frame) == (7, body)


def test_decode_offset_commit_request(benchmark: Any) -> None:
    body = _offset_commit_request(partitions=50)
    frame = encode_request(OFFSET_COMMIT, 9, 7, "client", body)
    _, offset = decode_request_header(frame)
    decoded = benchmark(decode_request, OFFSET_COMMIT, 9, frame, offset)
    assert decoded == body


def test_encode_heartbeat_response(benchmark: Any) -> None:
    # The smallest body: what every request pays whatever its size.
    body = {"throttle_time_ms": 0, "error_code": 0}
    frame = benchmark(encode_response, HEARTBEAT, 4, 7, body)
    assert decode_response(HEARTBEAT, 4, frame) == (7, body)


def test_encode_join_group_response(benchmark: Any) -> None:
    members = [
        {"member_id": f"member-{m}", "group_instance_id": None, "metadata": bytes(40)}
        for m in range(10)
    ]
    body = {
        "throttle_time_ms": 0,
        "error_code": 0,
        "generation_id": 3,
        "protocol_type": "consumer",
        "protocol_name": "range",
        "leader": "member-0",
        "skip_assignment": False,
        "member_id": "member-0",
        "members": members,
    }
    frame = benchmark(encode_response, JOIN_GROUP, 9, 7, body)
    assert decode_response(JOIN_GROUP, 9, frame) == (7, body)


def test_decode_fetch_response(benchmark: Any) -> None:
    body = _fetch_response(partitions=8)
    frame = encode_response(FETCH, 16, 7, body)
    _, decoded = benchmark(decode_response, FETCH, 16, frame)
    assert decoded["responses"][0]["partitions"][3]["records"] == bytes(4096)


def test_encode_offset_commit_value(benchmark: Any) -> None:
    value = {"offset": 10, "leader_epoch": 2, "metadata": "", "commit_timestamp": 5}
    encoded = benchmark(encode_data, "OffsetCommitValue", 3, value)
    assert decode_data("OffsetCommitValue", 3, encoded) == value
