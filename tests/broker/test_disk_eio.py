"""A log directory whose writes fail (issue 16): a passthrough FUSE file system as one of two
log.dirs, switched to answer EIO to writes and fsyncs (`ferrolog.chaos.failing_disk`). The
broker takes that directory offline exactly as a full one: produce there gets
KAFKA_STORAGE_ERROR, the other directory keeps serving, the broker does not crash, and nothing
it did not acknowledge is stored. With the switch off again, a restart brings the directory
back with every acknowledged record and nothing else."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from confluent_kafka import KafkaError
from ferrolog.chaos import failing_disk
from ferrolog.embedded import EmbeddedBroker

from tests.cluster.checker import check_no_loss
from tests.consume import read
from tests.disk import create_in, log_dirs
from tests.disk import produce_one_by_one as produce

pytestmark = [pytest.mark.native]


@pytest.fixture
def failing(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(the mount point, its switch file): a FUSE file system over tmp_path/backing."""
    if os.geteuid() != 0:
        pytest.skip("mounting a FUSE file system here needs root")
    mountpoint, switch = tmp_path / "failing", tmp_path / "fail-writes"
    try:
        proc = failing_disk.mount(tmp_path / "backing", mountpoint, switch)
    except OSError as e:
        pytest.skip(f"no FUSE here: {e}")
    try:
        yield mountpoint, switch
    finally:
        failing_disk.unmount(mountpoint, proc)


def test_a_log_dir_whose_writes_fail_goes_offline_and_comes_back_after_a_restart(
    tmp_path: Path,
    failing: tuple[Path, Path],
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    mountpoint, switch = failing
    other = tmp_path / "other"
    broker = ferrolog_broker_factory(
        data_dir=other, overrides={"log.dirs": f"{mountpoint},{other}"}
    )
    bootstrap = broker.bootstrap_servers
    create_in(bootstrap, "failing", mountpoint)
    create_in(bootstrap, "spare", other)

    before, refused = produce(bootstrap, "failing", [f"before-{n}".encode() for n in range(20)])
    assert refused == []
    assert len(before) == 20

    switch.touch()  # from now on every write and fsync there is EIO
    during, refused = produce(bootstrap, "failing", [f"during-{n}".encode() for n in range(5)])
    assert during == {}, "a write the disk refused was acknowledged"
    assert refused == [KafkaError.KAFKA_STORAGE_ERROR] * 5, refused
    assert broker.running
    dirs = log_dirs(bootstrap)
    assert dirs[str(mountpoint)] == (KafkaError.KAFKA_STORAGE_ERROR, set())
    assert dirs[str(other)] == (0, {"spare"})

    # The other directory keeps serving.
    spare, refused = produce(bootstrap, "spare", [f"s-{n}".encode() for n in range(10)])
    assert refused == []
    assert [m.value() for m in read(bootstrap, "spare", 1)[0]] == list(spare.values())

    # The disk works again; Kafka brings an offline directory back only with a restart.
    switch.unlink()
    _, refused = produce(bootstrap, "failing", [b"still-offline"])
    assert refused == [KafkaError.KAFKA_STORAGE_ERROR]
    broker.restart()
    bootstrap = broker.bootstrap_servers
    dirs = log_dirs(bootstrap)
    assert dirs[str(mountpoint)] == (0, {"failing"})
    records = read(bootstrap, "failing", 1)
    check_no_loss({(0, o): v for o, v in before.items()}, records)
    assert [m.value() for m in records[0]] == list(before.values())  # nothing unacknowledged
    after, refused = produce(bootstrap, "failing", [f"after-{n}".encode() for n in range(5)])
    assert refused == []
    assert [m.value() for m in read(bootstrap, "failing", 1)[0]] == [
        *before.values(),
        *after.values(),
    ]
