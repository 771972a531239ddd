"""A quick end-to-end produce/consume figure against a fresh embedded ferrolog broker, with
librdkafka (confluent-kafka) as the client: records/s and MB/s for 100-byte and 1 KB records.

    python bench/e2e_quick.py [--records N] [--sizes 100,1024] [--repeat 3]

Prints the median of the repeats. This is the single-broker smoke figure; the side-by-side
comparison with Apache Kafka is the bench harness's job."""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.embedded import EmbeddedBroker


def produce(bootstrap: str, topic: str, count: int, size: int, acks: str) -> float:
    producer = Producer({"bootstrap.servers": bootstrap, "acks": acks, "linger.ms": 5,
                         "batch.size": 1_000_000, "queue.buffering.max.messages": 1_000_000})
    value = os.urandom(size)
    start = time.perf_counter()
    for _ in range(count):
        while True:
            try:
                producer.produce(topic, value)
                break
            except BufferError:
                producer.poll(0.001)
    producer.flush(120)
    return time.perf_counter() - start


def consume(bootstrap: str, topic: str, count: int) -> float:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench",
                         "enable.auto.commit": False, "fetch.max.bytes": 52_428_800})
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    got = 0
    start = time.perf_counter()
    while got < count:
        for msg in consumer.consume(10_000, 1.0):
            if msg.error() is None:
                got += 1
    elapsed = time.perf_counter() - start
    consumer.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=500_000)
    parser.add_argument("--sizes", default="100,1024")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--acks", default="1")
    args = parser.parse_args()

    with EmbeddedBroker() as broker:
        bootstrap = broker.bootstrap_servers
        admin = AdminClient({"bootstrap.servers": bootstrap})
        print(f"{'size':>6} {'phase':>8} {'records/s':>12} {'MB/s':>8}")
        for size in (int(s) for s in args.sizes.split(",")):
            count = args.records if size <= 100 else args.records // 4
            produce_s, consume_s = [], []
            for _ in range(args.repeat):
                topic = f"bench-{uuid.uuid4().hex[:8]}"
                admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(20)
                produce_s.append(produce(bootstrap, topic, count, size, args.acks))
                consume_s.append(consume(bootstrap, topic, count))
            for phase, times in (("produce", produce_s), ("consume", consume_s)):
                t = statistics.median(times)
                print(f"{size:>6} {phase:>8} {count / t:>12,.0f} {count * size / t / 1e6:>8.1f}")


if __name__ == "__main__":
    main()
