"""A log directory that fills up on a single broker (issue 16): a 4 MB tmpfs as one of two
log.dirs. Produce to a partition there gets KAFKA_STORAGE_ERROR and nothing it did not
acknowledge is stored; the directory goes offline (DescribeLogDirs says so) while the other
one keeps serving; after the disk grows and the broker restarts, as Kafka requires, the
directory is back and every acknowledged record is there."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.chaos import disk
from ferrolog.embedded import EmbeddedBroker

from tests.cluster.checker import check_no_loss, read_all
from tests.disk import log_dirs, small_disk
from tests.waiting import wait_until

pytestmark = [pytest.mark.native]

SMALL = 4 << 20
VALUE = 64 * 1024


@pytest.fixture
def small(tmp_path: Path) -> Iterator[Path]:
    with small_disk(tmp_path / "small", SMALL) as path:
        yield path


def create(bootstrap: str, name: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, 1, 1)])[name].result(20)


def produce_until_refused(bootstrap: str, topic: str, limit: int) -> tuple[dict[int, bytes], int]:
    """Produces `VALUE`-byte records with acks=all one at a time, without retries, until one is
    refused: ({offset: value} acknowledged, the refusal's error code)."""
    producer = Producer(
        {"bootstrap.servers": bootstrap, "acks": "all", "retries": 0, "linger.ms": 0}
    )
    acked: dict[int, bytes] = {}
    refused: list[int] = []

    def delivered(err: KafkaError | None, msg: Any) -> None:
        if err is not None:
            refused.append(err.code())
        else:
            acked[msg.offset()] = msg.value()

    for n in range(limit):
        value = f"{n:08d}".encode() * (VALUE // 8)
        producer.produce(topic, value=value, partition=0, on_delivery=delivered)
        producer.flush(30)
        if refused:
            return acked, refused[0]
    raise AssertionError(f"{limit} records of {VALUE} bytes fit in a {SMALL}-byte disk")


def test_a_full_log_dir_goes_offline_and_comes_back_after_a_restart(
    tmp_path: Path,
    small: Path,
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    other = tmp_path / "other"
    broker = ferrolog_broker_factory(data_dir=other, overrides={"log.dirs": f"{small},{other}"})
    bootstrap = broker.bootstrap_servers
    # A new partition goes to the directory holding the fewest: the first, then the second.
    # The log opens when the broker takes the leadership, shortly after CreateTopics answers.
    create(bootstrap, "full")
    wait_until(lambda: (small / "full-0").is_dir(), 20, what="full-0 in the small disk")
    create(bootstrap, "spare")
    wait_until(lambda: (other / "spare-0").is_dir(), 20, what="spare-0 in the other dir")

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
    assert [v for _, v in read_all(bootstrap, "spare", 1)[0]] == [
        f"s-{n}".encode() for n in range(20)
    ]
    _, code = produce_until_refused(bootstrap, "full", 1)
    assert code == KafkaError.KAFKA_STORAGE_ERROR

    # Space returns (the disk grows) and the broker restarts: the directory is back online,
    # with every acknowledged record and nothing else, and takes writes again.
    disk.resize_tmpfs(small, 8 * SMALL)
    broker.restart()
    bootstrap = broker.bootstrap_servers
    dirs = log_dirs(bootstrap)
    assert dirs[str(small)] == (0, {"full"})
    records = read_all(bootstrap, "full", 1)
    check_no_loss({(0, o): v for o, v in acked.items()}, records)
    assert len(records[0]) == len(acked)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for n in range(5):
        producer.produce("full", value=f"after-{n}".encode(), partition=0)
    assert producer.flush(30) == 0
    after = read_all(bootstrap, "full", 1)[0]
    assert [v for _, v in after[len(acked) :]] == [f"after-{n}".encode() for n in range(5)]
