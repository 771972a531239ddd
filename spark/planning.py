"""Driver-side planning: which partitions, which offsets, and how they split into Spark
partitions. Runs in Spark's planning worker; asks the cluster with Metadata and ListOffsets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise

from ferrolog.spark.client import EARLIEST, LATEST, Cluster
from ferrolog.spark.options import OffsetSpec, Options, TopicPartition
from pyspark.sql.datasource import InputPartition


@dataclass(frozen=True)
class OffsetRange(InputPartition):
    """One Spark partition: offsets [start, end) of one Kafka partition."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def size(self) -> int:
        return max(self.end - self.start, 0)


def topic_partitions(cluster: Cluster, opts: Options) -> list[TopicPartition]:
    if opts.assign:
        return list(opts.assign)
    topics = cluster.metadata(opts.subscribe or None)
    return sorted(
        (p.topic, p.partition)
        for name, parts in topics.items()
        if opts.matches(name)
        for p in parts
    )


def resolve(
    cluster: Cluster,
    opts: Options,
    spec: OffsetSpec,
    tps: list[TopicPartition],
    *,
    ending: bool = False,
) -> dict[TopicPartition, int]:
    """Concrete offsets for `spec` on every partition of `tps`."""
    queries = {tp: spec.resolved_query(tp) for tp in tps}
    if spec.kind == "offsets":
        # Spark keeps explicit offsets as given; only -2/-1 are asked for.
        fixed = {tp: q for tp, q in queries.items() if q >= 0}
        asked = {tp: q for tp, q in queries.items() if q < 0}
        return {**fixed, **cluster.list_offsets(asked, opts.isolation_level)}
    found = cluster.list_offsets(queries, opts.isolation_level)
    if spec.kind in ("timestamp", "timestamps"):
        missing = [tp for tp, offset in found.items() if offset < 0]
        if missing:
            # No record at or after the timestamp: Spark's "error" strategy (its default) for
            # starting offsets; the end of the partition for ending offsets or "latest".
            if not ending and opts.timestamp_strategy == "error":
                names = ", ".join(f"{t}-{p}" for t, p in missing)
                raise ValueError(
                    f"no offset matches the timestamp for {names} "
                    "(startingOffsetsByTimestampStrategy=error)"
                )
            found.update(cluster.list_offsets({tp: LATEST for tp in missing}, opts.isolation_level))
    return found


def earliest(
    cluster: Cluster, opts: Options, tps: list[TopicPartition]
) -> dict[TopicPartition, int]:
    return cluster.list_offsets({tp: EARLIEST for tp in tps}, opts.isolation_level)


def split_ranges(
    bounds: Mapping[TopicPartition, tuple[int, int]],
    min_partitions: int | None,
    max_records: int | None,
) -> list[OffsetRange]:
    """Kafka partitions -> Spark partitions, as Spark's Kafka source splits them: one per Kafka
    partition, then large ranges cut so that none holds more than `max_records`
    (maxRecordsPerPartition) and there are at least `min_partitions` (minPartitions, split in
    proportion to the ranges' sizes)."""
    ranges = [
        OffsetRange(t, p, start, end)
        for (t, p), (start, end) in sorted(bounds.items())
        if end > start
    ]
    if max_records is not None:
        ranges = [piece for r in ranges for piece in _cut(r, -(-r.size // max_records))]
    total = sum(r.size for r in ranges)
    if min_partitions is not None and len(ranges) < min_partitions and total > 0:
        split = []
        for r in ranges:
            share = r.size * min_partitions / total
            split.extend(_cut(r, max(1, round(share))))
        ranges = split
    return ranges


def _cut(r: OffsetRange, parts: int) -> list[OffsetRange]:
    parts = max(1, min(parts, r.size))
    edges = [r.start + r.size * i // parts for i in range(parts + 1)]
    return [OffsetRange(r.topic, r.partition, a, b) for a, b in pairwise(edges) if b > a]


def apportion(
    start: Mapping[TopicPartition, int], latest: Mapping[TopicPartition, int], limit: int
) -> dict[TopicPartition, int]:
    """End offsets that take at most `limit` records in all, shared in proportion to what
    each partition has (admission control for maxOffsetsPerTrigger). Unlike a plain rounding
    the total never exceeds the limit, and some progress is made whenever there is data."""
    available = {tp: max(latest[tp] - start.get(tp, latest[tp]), 0) for tp in latest}
    total = sum(available.values())
    if total <= limit:
        return dict(latest)
    shares = {tp: limit * n / total for tp, n in available.items()}
    taken = {tp: int(share) for tp, share in shares.items()}
    left = limit - sum(taken.values())
    # The records left by rounding down go to the largest fractional parts.
    for tp in sorted(shares, key=lambda tp: shares[tp] - taken[tp], reverse=True)[:left]:
        taken[tp] += 1
    return {tp: start.get(tp, latest[tp]) + taken[tp] for tp in latest}
