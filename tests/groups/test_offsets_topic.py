"""`__consumer_offsets` itself: written in Kafka's record formats
(readable by any consumer), compacted, and loaded again after compaction."""

from __future__ import annotations

from collections.abc import Callable

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource
from ferrolog.controller.coordinator.group import records
from ferrolog.controller.coordinator.group.coordinator import partition_for
from ferrolog.embedded import EmbeddedBroker

from tests.groups.conftest import FAST_GROUPS, create_topic
from tests.waiting import wait_until

OFFSETS = "__consumer_offsets"


def read_partition(bootstrap: str, partition: int) -> list[tuple[int, records.Record | None]]:
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "reader", "enable.auto.commit": False}
    )
    try:
        _, high = consumer.get_watermark_offsets(TopicPartition(OFFSETS, partition), timeout=10)
        consumer.assign([TopicPartition(OFFSETS, partition, 0)])
        out: list[tuple[int, records.Record | None]] = []
        while not out or out[-1][0] < high - 1:
            m = consumer.poll(1.0)
            if m is not None and m.error() is None:
                out.append((m.offset(), records.decode(m.key(), m.value())))
        return out
    finally:
        consumer.close()


def test_offsets_topic_is_compacted_and_reloads(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    overrides = {**FAST_GROUPS, "log.cleaner.min.cleanable.ratio": "0.1"}
    broker = ferrolog_broker_factory(overrides=overrides)
    bootstrap = broker.bootstrap_servers
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topic = create_topic(bootstrap, partitions=1)
    group = "compacted-offsets"
    committer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False}
    )
    try:
        committer.commit(offsets=[TopicPartition(topic, 0, 1)], asynchronous=False)
        # Small segments, so compaction has closed ones to clean: Kafka 4 refuses
        # offsets.topic.segment.bytes below segment.bytes' 1 MiB floor when it creates the
        # topic, so, as Kafka's own tests do, the test-only internal.segment.bytes.
        small = ConfigEntry(
            "internal.segment.bytes", "2048", incremental_operation=AlterConfigOpType.SET
        )
        resource = ConfigResource("TOPIC", OFFSETS, incremental_configs=[small])
        admin.incremental_alter_configs([resource])[resource].result(timeout=10)
        for offset in range(2, 151):
            committer.commit(offsets=[TopicPartition(topic, 0, offset)], asynchronous=False)
    finally:
        committer.close()
    metadata = admin.list_topics(timeout=10)
    assert OFFSETS in metadata.topics
    partition = partition_for(group, len(metadata.topics[OFFSETS].partitions))

    seen: list[tuple[int, records.Record | None]] = []

    def compacted() -> bool:
        seen[:] = read_partition(bootstrap, partition)
        return len(seen) < 150

    wait_until(compacted, timeout=20, step=0.5)
    commits = [r for _, r in seen if isinstance(r, records.OffsetRecord)]
    assert commits, "the partition holds Kafka OffsetCommit records"
    assert {(r.group, r.topic, r.partition) for r in commits} == {(group, topic, 0)}
    assert commits[-1].value is not None
    assert commits[-1].value.offset == 150

    broker.restart()
    reader = Consumer({"bootstrap.servers": broker.bootstrap_servers, "group.id": group})
    try:
        assert reader.committed([TopicPartition(topic, 0)], timeout=10)[0].offset == 150
    finally:
        reader.close()
