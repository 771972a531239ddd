"""aiokafka against ferrolog: every codec, headers, timestamps."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

CODECS = [None, "gzip", "snappy", "lz4", "zstd"]


async def round_trip(bootstrap: str, topic: str, codec: str | None) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, compression_type=codec)
    await producer.start()
    try:
        sent = []
        for i in range(200):
            sent.append(
                await producer.send(
                    topic,
                    key=f"k{i}".encode(),
                    value=None if i % 10 == 0 else f"v{i}".encode(),
                    headers=[("i", str(i).encode())],
                    timestamp_ms=1_650_000_000_000 + i,
                )
            )
        metas = await asyncio.gather(*sent)
        assert sorted(m.offset for m in metas) == list(range(200))
    finally:
        await producer.stop()

    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="earliest"
    )
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        got = []
        while len(got) < 200:
            batch = await asyncio.wait_for(consumer.getmany(tp, timeout_ms=1000), 30)
            got.extend(batch.get(tp, []))
        for i, m in enumerate(got):
            assert m.offset == i
            assert m.key == f"k{i}".encode()
            assert m.value == (None if i % 10 == 0 else f"v{i}".encode())
            assert list(m.headers) == [("i", str(i).encode())]
            assert m.timestamp == 1_650_000_000_000 + i
    finally:
        await consumer.stop()


@pytest.mark.parametrize("codec", CODECS)
def test_round_trip(bootstrap: str, new_topic: Callable[..., str], codec: str | None) -> None:
    asyncio.run(round_trip(bootstrap, new_topic(), codec))
