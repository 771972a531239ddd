"""librdkafka (confluent-kafka) producer and consumer drivers, each run as its own process
(`python -m bench.harness.rdkafka_driver MODE ...`) printing one JSON line of results.

Why Python over librdkafka rather than a C program: confluent-kafka's `produce()` and
`consume(num_messages)` hand whole batches to librdkafka's C threads, so the per-record
Python cost is about a microsecond. With 1 KB records that is several hundred MB/s of
client headroom, above what either broker reaches on this machine; the drivers use 1 KB
records for the max-throughput runs for that reason (100-byte max-throughput figures come
from Kafka's Java ProducerPerformance). The latency driver runs producer and consumer in
separate processes so neither waits on the other's GIL, and stamps each record with
CLOCK_MONOTONIC nanoseconds, which all processes on the machine share."""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import time
from collections.abc import Callable

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition

STAMP = struct.Struct("<q")


def _producer(bootstrap: str, acks: str, **extra: object) -> Producer:
    conf: dict[str, object] = {"bootstrap.servers": bootstrap, "acks": acks,
                               "linger.ms": 5, "batch.size": 1_000_000,
                               "queue.buffering.max.messages": 1_000_000,
                               "queue.buffering.max.kbytes": 1_048_576}
    conf.update(extra)
    return Producer(conf)


def spread_targets(producer: Producer, topics: list[str]) -> list[tuple[str, int]]:
    """Every partition of `topics` (from the cluster's metadata), in the order records are
    spread over them."""
    meta = producer.list_topics(timeout=60).topics
    return [(t, p) for t in topics for p in sorted(meta[t].partitions)]


def produce_max(bootstrap: str, topic: str, count: int, size: int, acks: str,
                spread: bool = False, client: dict[str, object] | None = None,
                ) -> dict[str, float]:
    """`count` records as fast as acknowledgements allow: to `topic` through the default
    partitioner, or with `spread` round-robin over every partition of the comma-separated
    topics (sticky partitioning would leave most of thousands of partitions untouched)."""
    producer = _producer(bootstrap, acks, **(client or {}))
    value = os.urandom(size)
    failed = 0
    targets = spread_targets(producer, topic.split(",")) if spread else [(topic, -1)]

    def on_delivery(err: object, _msg: object) -> None:
        nonlocal failed
        if err is not None:
            failed += 1

    produce = producer.produce
    start = time.perf_counter()
    for i in range(count):
        t, p = targets[i % len(targets)]
        while True:
            try:
                produce(t, value, partition=p, on_delivery=on_delivery)
                break
            except BufferError:  # librdkafka's queue is full: wait for acknowledgements
                producer.poll(0.005)
    left = producer.flush(300)
    elapsed = time.perf_counter() - start
    if failed or left:
        raise RuntimeError(f"{failed} records failed, {left} undelivered")
    return {"records": count, "seconds": elapsed}


def _consumer(bootstrap: str, **extra: object) -> Consumer:
    conf: dict[str, object] = {"bootstrap.servers": bootstrap, "group.id": "flbench",
                               "enable.auto.commit": False, "enable.partition.eof": False,
                               "fetch.max.bytes": 52_428_800,
                               "max.partition.fetch.bytes": 10_485_760}
    conf.update(extra)
    return Consumer(conf)


def consume_all(bootstrap: str, topic: str, partitions: int, count: int,
                on_batch: Callable[[list], None] | None = None,
                ready: Callable[[], None] | None = None, timeout: float = 120,
                client: dict[str, object] | None = None) -> dict[str, float]:
    """Reads `count` records from the start of every partition (assigned, no group: the
    group protocol is not what is measured). The clock runs from the assignment to the last
    record, as ConsumerPerformance's fetch time does (from its `onPartitionsAssigned`): the
    start-offset lookups and the first fetches are in it, which with a thousand partitions
    are no small part of reading them."""
    consumer = _consumer(bootstrap, **(client or {}))
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    start = time.perf_counter()
    # The client's own CPU (every thread of this process, librdkafka's too): whether the
    # consumer or the broker set the pace.
    cpu0 = time.process_time()
    got = 0
    nbytes = 0
    deadline = time.monotonic() + timeout
    if ready is not None:
        consumer.consume(1, 0.2)  # joins the cluster and starts fetching before the signal
        ready()
    while got < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"consumed {got} of {count} records in {timeout}s")
        if on_batch is None:
            msgs = consumer.consume(10_000, 0.5)
        else:
            # Latency: consume(n, t) would wait for n records or t; poll() returns as soon as
            # one record is there, then whatever else is queued is drained without waiting.
            first = consumer.poll(0.5)
            msgs = [first, *consumer.consume(10_000, 0)] if first is not None else []
        if not msgs:
            continue
        good = [m for m in msgs if m.error() is None]
        for m in msgs:
            if m.error() is not None and m.error().fatal():
                raise KafkaException(m.error())
        got += len(good)
        nbytes += sum(len(m.value()) for m in good)
        if on_batch is not None:
            on_batch(good)
    elapsed = time.perf_counter() - start
    client_cpu = time.process_time() - cpu0
    consumer.close()
    return {"records": got, "bytes": nbytes, "seconds": elapsed, "client_cpu_s": client_cpu}


def produce_rate(bootstrap: str, topic: str, rate: float, seconds: float, size: int,
                 acks: str) -> dict[str, float]:
    """Produces at `rate` records/s for `seconds`, each stamped with its send time; paced in
    1 ms slots so the offered load is steady."""
    # The same client settings as the max-throughput run (linger.ms=5): the offered load
    # at half the maximum is then the same kind of load, only less of it.
    producer = _producer(bootstrap, acks)
    pad = os.urandom(max(0, size - STAMP.size))
    total = int(rate * seconds)
    start = time.monotonic()
    sent = 0
    while sent < total:
        due = min(total, int((time.monotonic() - start) * rate) + 1)
        while sent < due:
            try:
                producer.produce(topic, STAMP.pack(time.monotonic_ns()) + pad)
                sent += 1
            except BufferError:
                producer.poll(0.001)
        producer.poll(0)
        time.sleep(0.0005)
    producer.flush(120)
    return {"records": sent, "seconds": time.monotonic() - start}


def consume_latency(bootstrap: str, topic: str, partitions: int, count: int,
                    warmup: int) -> dict[str, object]:
    lat_us: list[int] = []

    def on_batch(msgs: list) -> None:
        now = time.monotonic_ns()
        lat_us.extend((now - STAMP.unpack_from(m.value())[0]) // 1000 for m in msgs)

    def ready() -> None:
        print("READY", flush=True)

    res = consume_all(bootstrap, topic, partitions, count, on_batch, ready)
    kept = sorted(lat_us[warmup:])
    return {**res, "p50_ms": _pct(kept, 50), "p99_ms": _pct(kept, 99),
            "p999_ms": _pct(kept, 99.9), "samples": len(kept)}


def _pct(sorted_values: list[int], pct: float) -> float:
    if not sorted_values:
        return float("nan")
    i = min(len(sorted_values) - 1, int(len(sorted_values) * pct / 100))
    return sorted_values[i] / 1000


def first_ack_producer(bootstrap: str) -> Producer:
    """A producer that retries fast until the broker answers: created before the broker
    spawns, so start-to-first-produce is not the client's own start-up."""
    return Producer({"bootstrap.servers": bootstrap, "acks": "1", "linger.ms": 0,
                     "reconnect.backoff.ms": 5, "reconnect.backoff.max.ms": 20,
                     "retry.backoff.ms": 10, "retry.backoff.max.ms": 20,
                     "topic.metadata.refresh.fast.interval.ms": 10,
                     "message.timeout.ms": 120_000, "socket.connection.setup.timeout.ms": 1000,
                     "log_level": 0})


def wait_first_ack(producer: Producer, topic: str, timeout: float = 120) -> float:
    """Produces one record and returns the monotonic time its acknowledgement arrived."""
    acked: list[float] = []
    errors: list[object] = []

    def on_delivery(err: object, _msg: object) -> None:
        (errors if err is not None else acked).append(time.monotonic())
        if err is not None:
            errors[-1] = err

    producer.produce(topic, b"first", on_delivery=on_delivery)
    deadline = time.monotonic() + timeout
    while not acked and not errors and time.monotonic() < deadline:
        producer.poll(0.002)
    if not acked:
        raise RuntimeError(f"no acknowledged produce: {errors or 'timeout'}")
    return acked[0]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["produce", "consume", "produce-rate", "consume-latency"])
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--count", type=int, default=0)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--acks", default="1")
    p.add_argument("--partitions", type=int, default=1)
    p.add_argument("--rate", type=float, default=0)
    p.add_argument("--seconds", type=float, default=0)
    p.add_argument("--warmup", type=int, default=0)
    p.add_argument("--spread", action="store_true",
                   help="produce: round-robin over every partition of the --topic list")
    p.add_argument("--client", action="append", default=[], metavar="KEY=VALUE",
                   help="consume: a librdkafka setting over the driver's own")
    a = p.parse_args()
    if a.mode == "produce":
        out: dict[str, object] = produce_max(a.bootstrap, a.topic, a.count, a.size, a.acks,
                                              a.spread)
    elif a.mode == "consume":
        settings = dict(kv.split("=", 1) for kv in a.client)
        out = consume_all(a.bootstrap, a.topic, a.partitions, a.count, client=settings)
    elif a.mode == "produce-rate":
        out = produce_rate(a.bootstrap, a.topic, a.rate, a.seconds, a.size, a.acks)
    else:
        out = consume_latency(a.bootstrap, a.topic, a.partitions, a.count, a.warmup)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.exit(main())
