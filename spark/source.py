"""`format("ferrolog")`: the data source Spark sees (batch and streaming reads, writes)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from ferrolog.spark.arrow import read_range
from ferrolog.spark.client import LATEST, Cluster
from ferrolog.spark.options import (
    OffsetSpec,
    Options,
    TopicPartition,
    from_offsets_json,
    offsets_json,
    parse_options,
    schema_ddl,
)
from ferrolog.spark.planning import (
    OffsetRange,
    apportion,
    earliest,
    resolve,
    split_ranges,
    topic_partitions,
)
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
    InputPartition,
)
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import StructType


class FerrologDataSource(DataSource):
    """Kafka topics as a table or a stream, over the Kafka protocol (ferrolog or Kafka)."""

    @classmethod
    def name(cls) -> str:
        return "ferrolog"

    def schema(self) -> str:
        include = str(self.options.get("includeHeaders", "false")).lower() == "true"
        return schema_ddl(include)

    def reader(self, schema: StructType) -> DataSourceReader:
        opts = parse_options(self.options)
        if opts.starting is not None and opts.starting.kind == "latest":
            raise ValueError("startingOffsets=latest is for streaming queries only")
        return FerrologBatchReader(opts)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        opts = parse_options(self.options)
        if opts.ending is not None:
            raise ValueError("endingOffsets is for batch queries only")
        return FerrologStreamReader(opts)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        from ferrolog.spark.writer import FerrologWriter

        return FerrologWriter(dict(self.options), schema)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        from ferrolog.spark.writer import FerrologStreamWriter

        return FerrologStreamWriter(dict(self.options), schema)


def _read(opts: Options, partition: InputPartition) -> Iterator[pa.RecordBatch]:
    # Spark plans one empty InputPartition(None) when a batch has no ranges.
    if isinstance(partition, OffsetRange):
        yield from read_range(opts, partition)


class FerrologBatchReader(DataSourceReader):
    def __init__(self, opts: Options) -> None:
        self.opts = opts

    def partitions(self) -> list[OffsetRange]:
        opts = self.opts
        with Cluster(opts.bootstrap, security=opts.security) as cluster:
            tps = topic_partitions(cluster, opts)
            starts = resolve(cluster, opts, opts.starting_for(streaming=False), tps)
            ends = resolve(cluster, opts, opts.ending or OffsetSpec("latest"), tps, ending=True)
            if opts.ending is not None and opts.ending.kind == "offsets":
                latest = resolve(cluster, opts, OffsetSpec("latest"), tps)
                beyond = [f"{t}-{p}" for (t, p) in tps if ends[(t, p)] > latest[(t, p)]]
                if beyond:
                    # Offsets that do not exist yet would leave the read waiting for them.
                    raise ValueError(f"endingOffsets past the end of {', '.join(beyond)}")
        wrong = [f"{t}-{p}" for (t, p) in tps if starts[(t, p)] > ends[(t, p)]]
        if wrong:
            raise ValueError(f"starting offsets after ending offsets for {', '.join(wrong)}")
        bounds = {tp: (starts[tp], ends[tp]) for tp in tps}
        return split_ranges(bounds, opts.min_partitions, opts.max_records_per_partition)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read(self.opts, partition)


class FerrologStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Micro-batches over per-partition offsets, `{"topic":{"0":123}}` as in Spark's Kafka
    source. Offsets are end-exclusive: a batch reads [previous end, new end).

    Planning state lives only in the offsets Spark checkpoints: `commit` is not needed for
    correctness (it can come a batch late, or never for the last batch of an availableNow run),
    and nothing is committed to the cluster (no consumer group), as with Spark's source."""

    def __init__(self, opts: Options) -> None:
        self.opts = opts
        self._cluster: Cluster | None = None
        self._target: dict[TopicPartition, int] | None = None

    def __getstate__(self) -> dict[str, Any]:
        # `read()` runs on executors from a pickled copy: no sockets travel with it.
        return {**self.__dict__, "_cluster": None}

    @property
    def cluster(self) -> Cluster:
        if self._cluster is None:
            self._cluster = Cluster(self.opts.bootstrap, security=self.opts.security)
        return self._cluster

    def _latest(self) -> dict[TopicPartition, int]:
        tps = topic_partitions(self.cluster, self.opts)
        return self.cluster.list_offsets({tp: LATEST for tp in tps}, self.opts.isolation_level)

    def initialOffset(self) -> dict[str, dict[str, int]]:
        tps = topic_partitions(self.cluster, self.opts)
        spec = self.opts.starting_for(streaming=True)
        return offsets_json(resolve(self.cluster, self.opts, spec, tps))

    def getDefaultReadLimit(self) -> ReadLimit:
        if self.opts.max_offsets_per_trigger is not None:
            return ReadMaxRows(self.opts.max_offsets_per_trigger)
        return ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        self._target = self._latest()

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, dict[str, int]]:
        begin = from_offsets_json(start)
        latest = self._latest()
        if self._target is not None:
            # availableNow: never past what existed when the run started.
            latest = {
                tp: min(o, self._target.get(tp, begin.get(tp, o))) for tp, o in latest.items()
            }
        new = [tp for tp in latest if tp not in begin]
        if new:
            # Partitions added since the last batch are read from their beginning, as Spark's
            # Kafka source does.
            begin.update(earliest(self.cluster, self.opts, new))
        # An end that moved back (truncation) is not a new end: the start is kept, and reading
        # on from it reports the loss (failOnDataLoss) when the fetch is out of range.
        available = {tp: max(o, begin[tp]) for tp, o in latest.items()}
        if isinstance(limit, ReadMaxRows):
            ends = apportion(begin, available, limit.max_rows)
        else:
            ends = available
        return offsets_json(ends)

    def reportLatestOffset(self) -> dict[str, dict[str, int]] | None:
        return offsets_json(self._latest())

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[OffsetRange]:
        begin = from_offsets_json(start)
        ends = from_offsets_json(end)
        new = [tp for tp in ends if tp not in begin]
        if new:
            begin.update(earliest(self.cluster, self.opts, new))
        bounds = {}
        for tp, stop in ends.items():
            if stop < begin[tp]:
                if self.opts.fail_on_data_loss:
                    raise ValueError(
                        f"{tp[0]}-{tp[1]}: end offset {stop} is before start {begin[tp]}; "
                        "data may have been lost (set failOnDataLoss=false to skip it)"
                    )
                continue
            bounds[tp] = (begin[tp], stop)
        return split_ranges(bounds, self.opts.min_partitions, self.opts.max_records_per_partition)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read(self.opts, partition)

    def commit(self, end: dict[str, Any]) -> None:
        """Nothing to do: see the class note."""

    def stop(self) -> None:
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
