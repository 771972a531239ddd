"""A deleted topic's committed offsets go with it, in every group (Kafka's group coordinator
deletes them when the topic's partitions are deleted, `onPartitionsDeleted`): a topic created
again under the same name starts without them, so its consumers start at `auto.offset.reset`
instead of at an offset of the old topic, which would skip the new topic's first records."""

from __future__ import annotations

from confluent_kafka import OFFSET_INVALID, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.groups.conftest import consumer_config, create_topic, produce
from tests.waiting import wait_until


def committed(bootstrap: str, group: str, topic: str, partitions: int) -> list[int]:
    probe = Consumer(consumer_config(bootstrap, group))
    try:
        wanted = [TopicPartition(topic, p) for p in range(partitions)]
        return [tp.offset for tp in probe.committed(wanted, timeout=20)]
    finally:
        probe.close()


def test_a_deleted_topics_offsets_go_with_it(bootstrap: str, group_id: str) -> None:
    topic = create_topic(bootstrap, partitions=2)
    produce(bootstrap, topic, 10, 2)
    other_group = f"{group_id}-other"
    for group, offsets in ((group_id, [5, 7]), (other_group, [3, 4])):
        consumer = Consumer(consumer_config(bootstrap, group))
        try:
            done = consumer.commit(
                offsets=[TopicPartition(topic, p, o) for p, o in enumerate(offsets)],
                asynchronous=False,
            )
        finally:
            consumer.close()
        assert [tp.error for tp in done or []] == [None, None]
    assert committed(bootstrap, group_id, topic, 2) == [5, 7]

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.delete_topics([topic])[topic].result(20)
    nothing = [OFFSET_INVALID, OFFSET_INVALID]
    for group in (group_id, other_group):
        wait_until(
            lambda group=group: committed(bootstrap, group, topic, 2) == nothing,
            30,
            what=f"{group}'s offsets of the deleted topic to go",
        )

    def created_again() -> bool:
        # Deleting a topic completes in the background; until then its name is taken.
        result = admin.create_topics([NewTopic(topic, 2, 1)])[topic]
        try:
            result.result(20)
        except Exception:
            return False
        return True

    wait_until(created_again, 30, 0.5, what=f"{topic} to be created again")
    produce(bootstrap, topic, 10, 2)
    assert committed(bootstrap, group_id, topic, 2) == nothing
    reader = Consumer(consumer_config(bootstrap, group_id))
    reader.subscribe([topic])
    first: dict[int, int] = {}
    try:

        def read_from_each_partition() -> bool:
            m = reader.poll(0.2)
            if m is not None and m.error() is None:
                first.setdefault(m.partition(), m.offset())
            return len(first) == 2

        wait_until(read_from_each_partition, 30, 0, what="records of both partitions")
    finally:
        reader.close()
    assert first == {0: 0, 1: 0}
