"""aiokafka's transactional producer on ferrolog (its older API versions: InitProducerId v1,
AddPartitionsToTxn v0, TxnOffsetCommit v0): committed and aborted transactions, offsets sent
to the transaction, and aiokafka's read_committed consumer."""

from __future__ import annotations

import asyncio
import uuid

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from tests.transactions.conftest import create_topic, read_all


async def _consume(bootstrap: str, topic: str, isolation: str, count: int) -> list[str]:
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=f"r-{uuid.uuid4().hex[:8]}",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        isolation_level=isolation,
    )
    await consumer.start()
    values: list[str] = []
    try:
        while len(values) < count:
            batch = await asyncio.wait_for(consumer.getmany(timeout_ms=1000), 30)
            values.extend(m.value.decode() for ms in batch.values() for m in ms)
    finally:
        await consumer.stop()
    return values


async def _transactions(bootstrap: str, topic: str, source: str, group: str) -> None:
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, transactional_id=f"aio-{uuid.uuid4().hex[:8]}"
    )
    await producer.start()
    try:
        await producer.begin_transaction()
        for i in range(5):
            await producer.send(topic, f"aborted{i}".encode(), partition=i % 2)
        await producer.abort_transaction()
        await producer.begin_transaction()
        for i in range(7):
            await producer.send(topic, f"committed{i}".encode(), partition=i % 2)
        await producer.send_offsets_to_transaction({TopicPartition(source, 0): 3}, group)
        await producer.commit_transaction()
    finally:
        await producer.stop()


def test_aiokafka_commit_abort_and_offsets(bootstrap: str) -> None:
    topic, source = create_topic(bootstrap, partitions=2), create_topic(bootstrap)
    group = f"g-{uuid.uuid4().hex[:8]}"
    asyncio.run(_transactions(bootstrap, topic, source, group))
    committed = asyncio.run(_consume(bootstrap, topic, "read_committed", 7))
    assert sorted(committed) == sorted(f"committed{i}" for i in range(7))
    assert sorted(read_all(bootstrap, topic, "read_committed", 7)) == sorted(committed)
    assert len(asyncio.run(_consume(bootstrap, topic, "read_uncommitted", 12))) == 12

    async def offset() -> int | None:
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group)
        await consumer.start()
        try:
            return await consumer.committed(TopicPartition(source, 0))
        finally:
            await consumer.stop()

    assert asyncio.run(offset()) == 3
