"""A log directory that fills up on one broker of three (issue 16), with a real ZooKeeper:
broker 1 has a 4 MB tmpfs as the first of its two log.dirs and leads a partition there.
Producing with acks=all until it is full takes the directory offline (Kafka's
LogDirFailureChannel): the controller moves the leadership to another replica and the writes
go on there; every acknowledged record stays readable; broker 1 keeps leading and serving its
partition on its other directory. After the disk grows and broker 1 restarts (Kafka brings an
offline directory back only with a restart), the directory is online and its replica catches
up."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import NewTopic
from ferrolog.chaos import disk

from tests.cluster.checker import check_no_loss
from tests.cluster.harness import Cluster
from tests.consume import read
from tests.disk import log_dirs, small_disk
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]

SMALL = 4 << 20
VALUE = 64 * 1024


def produce(cluster: Cluster, topic: str, count: int, size: int) -> tuple[dict, list[int]]:
    """`count` records of `size` bytes to partition 0 with acks=all (retried by the client):
    ({(partition, offset): value} acknowledged, error codes of those that failed)."""
    producer = Producer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "acks": "all",
            "linger.ms": 5,
            "message.timeout.ms": 60000,
            "request.timeout.ms": 5000,
            "retry.backoff.ms": 100,
            "topic.metadata.refresh.interval.ms": 1000,
        }
    )
    acked: dict[tuple[int, int], bytes] = {}
    failed: list[int] = []

    def delivered(err: KafkaError | None, msg: Any) -> None:
        if err is not None:
            failed.append(err.code())
        else:
            acked[(msg.partition(), msg.offset())] = msg.value()

    for n in range(count):
        value = f"{topic}-{n:08d}".encode().ljust(size, b".")
        producer.produce(topic, value=value, partition=0, on_delivery=delivered)
        producer.poll(0)
        if n % 8 == 0:
            producer.flush(60)
    assert producer.flush(90) == 0
    return acked, failed


def test_a_full_log_dir_moves_leadership_and_comes_back_after_a_restart(
    cluster_factory: Callable[..., Cluster], tmp_path: Path
) -> None:
    cluster = cluster_factory()
    with small_disk(tmp_path / "small", SMALL) as small:
        one = cluster.brokers[1]
        one.terminate()
        one.overrides["log.dirs"] = f"{small},{one.data}"
        one.start()
        one.wait_ready()
        cluster.wait_for_brokers({1, 2, 3})
        admin = cluster.admin()
        for name in ("full", "spare"):  # the first to the first directory, then the other
            topic = NewTopic(
                name,
                num_partitions=1,
                replica_assignment=[[1, 2, 3]],
                config={"min.insync.replicas": "2"},
            )
            admin.create_topics([topic])[name].result(20)
            cluster.wait_for_leaders(name, 1)
            cluster.wait_for_isr(name, 0, [1, 2, 3])
        assert (small / "full-0").is_dir()
        assert (one.data / "spare-0").is_dir()
        assert cluster.leader("full") == 1

        # Three times what fits: the disk fills, broker 1 fails the write, the client retries
        # at the new leader.
        acked, failed = produce(cluster, "full", 3 * SMALL // VALUE, VALUE)
        assert failed == []
        assert len(acked) == 3 * SMALL // VALUE
        assert one.running
        assert cluster.leader("full") in (2, 3)
        assert 1 not in cluster.isr("full")
        dirs = log_dirs(one.bootstrap, 1)
        assert dirs[str(small)] == (KafkaError.KAFKA_STORAGE_ERROR, set())
        assert dirs[str(one.data)] == (0, {"spare"})
        zk = cluster.zk_client()
        try:
            offline = json.loads(zk.get("/ferrolog/offline_replicas/1")[0])
            assert offline["partitions"] == [{"topic": "full", "partition": 0}]
            # The controller handled (and deleted) the notification, as Kafka's does.
            wait_until(
                lambda: zk.get_children("/log_dir_event_notification") == [],
                what="the log dir event handled",
            )
        finally:
            zk.stop()
            zk.close()

        # Broker 1 keeps leading its partition on the other directory.
        spare, failed = produce(cluster, "spare", 20, 100)
        assert failed == []
        assert cluster.leader("spare") == 1
        check_no_loss(spare, read(cluster.bootstrap, "spare", 1))
        check_no_loss(acked, read(cluster.bootstrap, "full", 1))

        # The disk grows; broker 1 restarts: the directory is online and its replica catches
        # up and rejoins the ISR.
        disk.resize_tmpfs(small, 16 * SMALL)
        one.terminate()
        one.start()
        one.wait_ready()
        cluster.wait_for_brokers({1, 2, 3})
        cluster.wait_for_isr("full", 0, [1, 2, 3], timeout=60)
        dirs = log_dirs(one.bootstrap, 1)
        assert dirs[str(small)] == (0, {"full"})
        more, failed = produce(cluster, "full", 10, 100)
        assert failed == []
        check_no_loss({**acked, **more}, read(cluster.bootstrap, "full", 1))
        checked = cluster.verify_replicas("full")
        assert checked.returncode == 0, checked.stdout + checked.stderr
