"""The workload matrices: `smoke` (CI, ferrolog alone, no Java), `quick` (a few minutes) and
`full` (about 20-25 minutes with three brokers and three rounds on a 2-core machine), and
`replicated` (three-broker clusters, replication factor 3, about 12-15 minutes).

Record counts are sized so that one max-throughput run takes a few seconds against Kafka
here: long enough to reach a steady state, short enough for several rounds."""

from __future__ import annotations

from bench.harness.workloads import Workload as W

SIZES = {100: "100", 1024: "1k"}


def _produce(size: int, acks: str, parts: int, count: int) -> W:
    return W(f"produce-{SIZES[size]}-acks{acks}-p{parts}", "java-produce", size, acks, parts,
             count)


def full() -> list[W]:
    # Every combination of record size, acks and partition count at maximum throughput.
    produce = [_produce(size, acks, parts, 1_500_000 if size == 100 else 300_000)
               for size in (100, 1024) for acks in ("1", "all") for parts in (1, 6)]
    return [
        *produce,
        W("rd-produce-1k-acks1-p6", "rd-produce", 1024, "1", 6, 300_000),
        W("consume-100-p1", "java-consume", 100, partitions=1, source="produce-100-acks1-p1"),
        W("consume-1k-p6", "java-consume", 1024, partitions=6, source="produce-1k-acks1-p6"),
        W("rd-consume-100-p1", "rd-consume", 100, partitions=1, source="produce-100-acks1-p1"),
        W("rd-consume-1k-p6", "rd-consume", 1024, partitions=6, source="produce-1k-acks1-p6"),
        W("latency-100-acksall-p6", "java-produce", 100, "all", 6,
          rate_of="produce-100-acksall-p6", seconds=10),
        W("latency-1k-acks1-p1", "java-produce", 1024, "1", 1,
          rate_of="produce-1k-acks1-p1", seconds=10),
        W("e2e-1k-acksall-p6", "rd-e2e", 1024, "all", 6,
          rate_of="produce-1k-acksall-p6", seconds=10),
        W("e2e-roundtrip-1k-acksall-p1", "java-e2e", 1024, "all", 1, count=3000),
    ]


def quick() -> list[W]:
    return [
        _produce(100, "1", 1, 1_000_000),
        _produce(1024, "all", 6, 200_000),
        W("rd-produce-1k-acks1-p6", "rd-produce", 1024, "1", 6, 200_000),
        W("consume-100-p1", "java-consume", 100, partitions=1, source="produce-100-acks1-p1"),
        W("rd-consume-1k-p6", "rd-consume", 1024, partitions=6,
          source="rd-produce-1k-acks1-p6"),
        W("e2e-1k-acksall-p6", "rd-e2e", 1024, "all", 6,
          rate_of="produce-1k-acksall-p6", seconds=5),
        W("latency-100-acks1-p1", "java-produce", 100, "1", 1,
          rate_of="produce-100-acks1-p1", seconds=5),
    ]


def smoke() -> list[W]:
    # librdkafka only: CI has no Kafka jars (and needs no Java).
    return [
        W("rd-produce-1k-acks1-p1", "rd-produce", 1024, "1", 1, 20_000),
        W("rd-produce-1k-acksall-p6", "rd-produce", 1024, "all", 6, 20_000),
        W("rd-consume-1k-p6", "rd-consume", 1024, partitions=6,
          source="rd-produce-1k-acksall-p6"),
        W("e2e-1k-acksall-p6", "rd-e2e", 1024, "all", 6,
          rate_of="rd-produce-1k-acksall-p6", seconds=2),
    ]


def replicated() -> list[W]:
    # Three brokers against three (bench/harness/cluster.py), topics with replication factor
    # 3, min.insync.replicas=2: every produce waits for the followers (acks=all).
    produce = [_produce(size, "all", parts, 800_000 if size == 100 else 150_000)
               for size in (100, 1024) for parts in (1, 6)]
    return [
        *produce,
        W("consume-100-p1", "java-consume", 100, partitions=1, source="produce-100-acksall-p1"),
        W("consume-1k-p6", "java-consume", 1024, partitions=6, source="produce-1k-acksall-p6"),
    ]


MATRICES = {"smoke": smoke, "quick": quick, "full": full, "replicated": replicated}
