"""A log directory that fills up on a single broker (issue 16): a 4 MB tmpfs as one of two
log.dirs. Produce to a partition there gets KAFKA_STORAGE_ERROR and nothing it did not
acknowledge is stored; the directory goes offline (DescribeLogDirs says so) while the other
one keeps serving; after the disk grows and the broker restarts, as Kafka requires, the
directory is back and every acknowledged record is there."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, Producer
from ferrolog.chaos import disk
from ferrolog.embedded import EmbeddedBroker

from tests.cluster.checker import check_no_loss
from tests.consume import read
from tests.disk import create_in, log_dirs, produce_one_by_one, read_errors, small_disk

pytestmark = [pytest.mark.native]

SMALL = 4 << 20
VALUE = 64 * 1024


@pytest.fixture
def small(tmp_path: Path) -> Iterator[Path]:
    with small_disk(tmp_path / "small", SMALL) as path:
        yield path


def produce_until_refused(bootstrap: str, topic: str, limit: int) -> tuple[dict[int, bytes], int]:
    """`VALUE`-byte records until one is refused: ({offset: value} acknowledged, the refusal's
    error code)."""
    values = (f"{n:08d}".encode() * (VALUE // 8) for n in range(limit))
    acked, refused = produce_one_by_one(bootstrap, topic, values, until_refused=True)
    if not refused:
        raise AssertionError(f"{limit} records of {VALUE} bytes fit in a {SMALL}-byte disk")
    return acked, refused[0]


def test_a_full_log_dir_goes_offline_and_comes_back_after_a_restart(
    tmp_path: Path,
    small: Path,
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    other = tmp_path / "other"
    broker = ferrolog_broker_factory(data_dir=other, overrides={"log.dirs": f"{small},{other}"})
    bootstrap = broker.bootstrap_servers
    create_in(bootstrap, "full", small)
    create_in(bootstrap, "spare", other)

    acked, code = produce_until_refused(bootstrap, "full", 3 * SMALL // VALUE)
    assert code == KafkaError.KAFKA_STORAGE_ERROR, code
    assert acked, "the disk had room for some records"
    assert broker.running

    dirs = log_dirs(bootstrap)
    assert dirs[str(small)] == (KafkaError.KAFKA_STORAGE_ERROR, set())
    assert dirs[str(other)] == (0, {"spare"})

    # The other directory keeps serving; the offline one refuses further writes.
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for n in range(20):
        producer.produce("spare", value=f"s-{n}".encode(), partition=0)
    assert producer.flush(30) == 0
    assert [m.value() for m in read(bootstrap, "spare", 1)[0]] == [
        f"s-{n}".encode() for n in range(20)
    ]
    _, code = produce_until_refused(bootstrap, "full", 1)
    assert code == KafkaError.KAFKA_STORAGE_ERROR
    # Reads too, past its end as well (a consumer that read further on a new leader must not
    # be told OFFSET_OUT_OF_RANGE and reset to the start), as Kafka's offline partitions.
    storage_error = KafkaError.KAFKA_STORAGE_ERROR
    for offset in (0, len(acked) + 100):
        assert read_errors(bootstrap, "full", offset) == dict.fromkeys(
            ("fetch", "list_offsets", "offset_for_leader_epoch"), storage_error
        )

    # Space returns (the disk grows) and the broker restarts: the directory is back online,
    # with every acknowledged record and nothing else, and takes writes again.
    disk.resize_tmpfs(small, 8 * SMALL)
    broker.restart()
    bootstrap = broker.bootstrap_servers
    dirs = log_dirs(bootstrap)
    assert dirs[str(small)] == (0, {"full"})
    records = read(bootstrap, "full", 1)
    check_no_loss({(0, o): v for o, v in acked.items()}, records)
    assert len(records[0]) == len(acked)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for n in range(5):
        producer.produce("full", value=f"after-{n}".encode(), partition=0)
    assert producer.flush(30) == 0
    after = read(bootstrap, "full", 1)[0]
    assert [m.value() for m in after[len(acked) :]] == [f"after-{n}".encode() for n in range(5)]
