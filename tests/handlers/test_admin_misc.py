"""DescribeCluster, InitProducerId (and the producer-id allocator), DeleteRecords and
DescribeLogDirs handlers against the real controller over a real LocalStore, with a stand-in
for the native core."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from admin_broker import Broker, FakePartition, call
from ferrolog import errors
from ferrolog.controller.producer_ids import ProducerIdAllocator
from ferrolog.controller.store.base import BrokerRegistration
from ferrolog.controller.store.local import LocalStore
from ferrolog.handlers import (
    delete_records,
    describe_cluster,
    describe_log_dirs,
    init_producer_id,
)


@pytest.fixture
def broker(admin_broker: Callable[..., Broker]) -> Broker:
    return admin_broker()


@pytest.mark.parametrize(("version", "fenced_too"), [(0, False), (1, False), (2, False), (2, True)])
def test_describe_cluster(
    admin_broker: Callable[..., Broker], version: int, fenced_too: bool
) -> None:
    broker = admin_broker(others=(BrokerRegistration(2, "other", 9093, rack="r1"),))
    body = {"include_cluster_authorized_operations": False, "include_fenced_brokers": fenced_too}
    response = call(broker, describe_cluster, version, body)
    assert response["error_code"] == 0
    assert response["cluster_id"] == broker.run(broker.store.cluster_id())
    assert len(response["cluster_id"]) == 22
    assert response["controller_id"] == 0
    assert response["endpoint_type"] == 1
    # Registered brokers only, none of them fenced (said from v2 on).
    assert response["brokers"] == [
        {"broker_id": 0, "host": "localhost", "port": 9092, "rack": None, "is_fenced": False},
        {"broker_id": 2, "host": "other", "port": 9093, "rack": "r1", "is_fenced": False},
    ]
    assert response["cluster_authorized_operations"] == -(2**31)


def test_describe_cluster_before_registration_and_operations(
    admin_broker: Callable[..., Broker],
) -> None:
    broker = admin_broker(start=False)
    response = call(broker, describe_cluster, 1, {"include_cluster_authorized_operations": True})
    assert [b["broker_id"] for b in response["brokers"]] == [0]
    operations = response["cluster_authorized_operations"]
    assert operations & (1 << 8)  # DESCRIBE
    assert operations & (1 << 7)  # ALTER
    assert not operations & (1 << 4)  # WRITE applies to topics, not the cluster


def test_describe_cluster_controller_endpoint_is_mismatched(broker: Broker) -> None:
    response = call(broker, describe_cluster, 1, {"endpoint_type": 2})
    assert response["error_code"] == errors.MismatchedEndpointTypeError.code
    response = call(broker, describe_cluster, 1, {"endpoint_type": 9})
    assert response["error_code"] == errors.UnsupportedEndpointTypeError.code


@pytest.mark.parametrize("version", range(0, 5))
def test_init_producer_id_idempotent(broker: Broker, version: int) -> None:
    request = {
        "transactional_id": None,
        "transaction_timeout_ms": 60000,
        "producer_id": 5,
        "producer_epoch": 3,
    }
    first = call(broker, init_producer_id, version, request)
    second = call(broker, init_producer_id, version, request)
    assert (first["error_code"], first["producer_epoch"]) == (0, 0)
    assert second["producer_id"] == first["producer_id"] + 1
    # One block serves both: the store has reserved exactly one (ids 0-999).
    assert first["producer_id"] == 0
    assert broker.run(broker.store.allocate_producer_ids(1)) == 1000


def test_init_producer_id_malformed_transactional_requests(broker: Broker) -> None:
    # Refused before any coordinator is asked (tests/transactions covers the coordinator).
    empty = call(broker, init_producer_id, 4, {"transactional_id": "", "transaction_timeout_ms": 1})
    assert empty["error_code"] == errors.InvalidRequestError.code
    assert (empty["producer_id"], empty["producer_epoch"]) == (-1, -1)
    half = call(
        broker,
        init_producer_id,
        4,
        {"transactional_id": "tx", "transaction_timeout_ms": 1, "producer_id": 3},
    )
    assert half["error_code"] == errors.InvalidRequestError.code
    assert broker.run(broker.store.allocate_producer_ids(1)) == 0  # nothing reserved


def test_init_producer_id_store_failure_is_retriable(broker: Broker) -> None:
    # The metadata file's place is taken by a non-empty directory: the store's next write
    # (reserving a block of producer ids) fails on the disk.
    broker.store.path.unlink()
    broker.store.path.mkdir()
    (broker.store.path / "in-the-way").touch()
    response = call(
        broker, init_producer_id, 4, {"transactional_id": None, "transaction_timeout_ms": 1}
    )
    assert response["error_code"] == errors.CoordinatorLoadInProgressError.code
    assert errors.CoordinatorLoadInProgressError.retriable


def test_allocator_reserves_new_blocks_and_never_repeats(tmp_path: Path) -> None:
    async def run() -> tuple[list[int], int]:
        store = LocalStore(tmp_path)
        await store.start()
        first = ProducerIdAllocator(store, block_size=3)
        ids = await asyncio.gather(*(first.next_id() for _ in range(7)))
        # A restarted broker gets a fresh allocator: it must not reuse the old block's rest.
        second = ProducerIdAllocator(store, block_size=3)
        ids = [*ids, await second.next_id()]
        reserved = await store.allocate_producer_ids(1)
        await store.close()
        return ids, reserved

    ids, reserved = asyncio.run(run())
    assert ids == [0, 1, 2, 3, 4, 5, 6, 9]
    assert reserved == 12  # four blocks of three were reserved


def test_producer_ids_come_from_one_block_per_controller(
    admin_broker: Callable[..., Broker],
) -> None:
    broker, other = admin_broker(), admin_broker()
    ids = [broker.run(broker.controller.allocate_producer_id()) for _ in range(3)]
    assert ids == [0, 1, 2]
    assert broker.run(broker.store.allocate_producer_ids(1)) == 1000  # one block for all three
    assert other.run(other.controller.allocate_producer_id()) == 0  # another store's own ids


def test_delete_records(broker: Broker, tmp_path: Path) -> None:
    broker.create("t", 3)
    broker.native.partitions = [
        FakePartition("t", 0, str(tmp_path)),
        FakePartition("t", 1, str(tmp_path)),
        FakePartition("t", 2, str(tmp_path), is_leader=False),
    ]
    request = {
        "topics": [
            {
                "name": "t",
                "partitions": [
                    {"partition_index": 0, "offset": 4},
                    {"partition_index": 1, "offset": 50},
                    {"partition_index": 2, "offset": 1},
                    {"partition_index": 9, "offset": 1},
                ],
            },
            {"name": "nope", "partitions": [{"partition_index": 0, "offset": -1}]},
        ],
        "timeout_ms": 1000,
    }
    response = call(broker, delete_records, 2, request)
    parts = response["topics"][0]["partitions"]
    assert parts[0] == {"partition_index": 0, "low_watermark": 4, "error_code": 0}
    assert parts[1]["error_code"] == errors.OffsetOutOfRangeError.code  # from the native core
    assert parts[2]["error_code"] == errors.NotLeaderOrFollowerError.code
    assert parts[3]["error_code"] == errors.UnknownTopicOrPartitionError.code
    assert response["topics"][1]["partitions"][0]["error_code"] == (
        errors.UnknownTopicOrPartitionError.code
    )
    assert broker.native.deleted == [("t", 0, 4), ("t", 1, 50)]


def test_delete_records_to_high_watermark(broker: Broker, tmp_path: Path) -> None:
    broker.create("t")
    broker.native.partitions = [FakePartition("t", 0, str(tmp_path), high_watermark=7)]
    request = {"topics": [{"name": "t", "partitions": [{"partition_index": 0, "offset": -1}]}]}
    part = call(broker, delete_records, 0, request)["topics"][0]["partitions"][0]
    assert (part["error_code"], part["low_watermark"]) == (0, 7)


@pytest.mark.parametrize("version", range(1, 6))
def test_describe_log_dirs(
    admin_broker: Callable[..., Broker], tmp_path: Path, version: int
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    broker = admin_broker(f"{first},{second}")
    broker.native.partitions = [
        FakePartition("t", 1, str(first), size_bytes=300),
        FakePartition("t", 0, str(first), size_bytes=100, log_end_offset=5, high_watermark=8),
        FakePartition("u", 0, str(first), size_bytes=7),
    ]
    response = call(broker, describe_log_dirs, version, {"topics": None})
    results = {r["log_dir"]: r for r in response["results"]}
    assert set(results) == {str(first), str(second)}
    first_dir = results[str(first)]
    assert first_dir["error_code"] == 0
    assert [t["name"] for t in first_dir["topics"]] == ["t", "u"]
    t_parts = first_dir["topics"][0]["partitions"]
    assert [(p["partition_index"], p["partition_size"], p["offset_lag"]) for p in t_parts] == [
        (0, 100, 3),
        (1, 300, 0),
    ]
    assert results[str(second)]["topics"] == []
    assert first_dir["total_bytes"] >= first_dir["usable_bytes"] > 0
    assert not any(r["is_cordoned"] for r in results.values())


def test_describe_log_dirs_groups_partition_directories_by_log_dir(
    admin_broker: Callable[..., Broker], tmp_path: Path
) -> None:
    # Whether the snapshot names the log dir or the partition's own directory inside it, the
    # answer is grouped by the configured log.dirs entry.
    broker = admin_broker(str(tmp_path / "logs"))
    broker.native.partitions = [
        FakePartition("t", 0, str(tmp_path / "logs" / "t-0")),
        FakePartition("t", 1, str(tmp_path / "logs")),
    ]
    results = call(broker, describe_log_dirs, 4, {"topics": None})["results"]
    assert [r["log_dir"] for r in results] == [str(tmp_path / "logs")]
    assert [p["partition_index"] for p in results[0]["topics"][0]["partitions"]] == [0, 1]


def test_describe_log_dirs_filters_and_missing_dir(
    admin_broker: Callable[..., Broker], tmp_path: Path
) -> None:
    broker = admin_broker(str(tmp_path / "a"))
    broker.native.partitions = [
        FakePartition("t", 0, str(tmp_path / "a")),
        FakePartition("t", 1, str(tmp_path / "a")),
        FakePartition("u", 0, str(tmp_path / "a")),
    ]
    request = {"topics": [{"topic": "t", "partitions": [1]}, {"topic": "zz", "partitions": [0]}]}
    result = call(broker, describe_log_dirs, 4, request)["results"][0]
    assert [
        (t["name"], [p["partition_index"] for p in t["partitions"]]) for t in result["topics"]
    ] == [("t", [1])]
    # The first log dir holds the metadata store; the second one goes missing.
    gone = admin_broker(f"{tmp_path / 'meta'},{tmp_path / 'gone'}")
    (tmp_path / "gone").rmdir()
    results = call(gone, describe_log_dirs, 4, {"topics": None})["results"]
    missing = next(r for r in results if r["log_dir"] == str(tmp_path / "gone"))
    assert missing["error_code"] == errors.KafkaStorageError.code
    assert missing["total_bytes"] == -1
