"""The data path's counters, read from the native core when Prometheus scrapes: bytes and
records in and out per topic (Kafka's `BrokerTopicMetrics`), requests, latency and errors per
API (`RequestMetrics`), and the requests waiting for Python (`RequestChannel`).

The native calls take their own locks and release the GIL, so this collector reads them from
prometheus_client's HTTP thread without going through the broker's event loop."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from ferrolog.errors import all_errors
from ferrolog.protocol import API_NAMES

if TYPE_CHECKING:
    from ferrolog_native import Server

# Native field -> (exposition name without `_total`, help). The names are the JMX exporter's
# for Kafka's meters, so existing dashboards find them.
TOPIC_COUNTERS: dict[str, tuple[str, str]] = {
    "bytes_in": ("kafka_server_brokertopicmetrics_bytesin",
                 "Record bytes appended from producers."),
    "messages_in": ("kafka_server_brokertopicmetrics_messagesin",
                    "Records appended from producers."),
    "bytes_out": ("kafka_server_brokertopicmetrics_bytesout",
                  "Record bytes sent to consumers (not to followers)."),
    "bytes_rejected": ("kafka_server_brokertopicmetrics_bytesrejected",
                       "Record bytes refused as larger than max.message.bytes."),
    "produce_requests": ("kafka_server_brokertopicmetrics_totalproducerequests",
                         "Partitions of Produce requests."),
    "failed_produce_requests": ("kafka_server_brokertopicmetrics_failedproducerequests",
                                "Partitions of Produce requests answered with an error."),
    "fetch_requests": ("kafka_server_brokertopicmetrics_totalfetchrequests",
                       "Partitions of consumers' Fetch requests."),
    "failed_fetch_requests": ("kafka_server_brokertopicmetrics_failedfetchrequests",
                              "Partitions of consumers' Fetch requests answered with an error."),
}  # fmt: skip

# Kafka keeps the replication meters for all topics only.
BROKER_COUNTERS: dict[str, tuple[str, str]] = {
    "replication_bytes_in": ("kafka_server_brokertopicmetrics_replicationbytesin",
                             "Record bytes this broker appended as a follower."),
    "replication_bytes_out": ("kafka_server_brokertopicmetrics_replicationbytesout",
                              "Record bytes sent to followers."),
}  # fmt: skip

REQUESTS = "kafka_network_requestmetrics_requests"
ERRORS = "kafka_network_requestmetrics_errors"
TOTAL_TIME = "kafka_network_requestmetrics_totaltimems"
QUEUE_SIZE = "kafka_network_requestchannel_requestqueuesize"
SHARE_IN_FLIGHT_RECORDS = "kafka_server_sharepartitionmetrics_inflightmessagecount"
SHARE_IN_FLIGHT_BATCHES = "kafka_server_sharepartitionmetrics_inflightbatchcount"
SHARE_LOCK_TIMEOUTS = "kafka_server_sharepartitionmetrics_acquisitionlocktimeout"
# Kafka 4.4 reports a share group's lag only through DescribeShareGroupOffsets; this is the
# same figure, named as kafka-exporter names a consumer group's.
SHARE_LAG = "kafka_sharegroup_lag"
POOL_AVAILABLE = "kafka_network_socketserver_memorypoolavailable"
POOL_USED = "kafka_network_socketserver_memorypoolused"
# Kafka's per-client quota sensors are `kafka.server:type=Produce|Fetch|Request,user=,client-id=`
# (`throttle-time`); here as totals, so a dashboard takes their rate.
THROTTLE_TIME = "kafka_server_{}_throttle_time_ms"
THROTTLES = "kafka_server_{}_throttles"


def error_name(code: int) -> str:
    if code == 0:
        return "NONE"
    error = all_errors().get(code)
    return error.name if error is not None else str(code)


def api_name(key: int) -> str:
    return API_NAMES.get(key, str(key))


class NativeCollector(Collector):
    def __init__(self, native: Server) -> None:
        self._native = native
        self._bounds = [str(ms) for ms in native.latency_buckets_ms()] + ["+Inf"]

    def collect(self) -> Iterator[Metric]:
        yield from self._topics()
        yield from self._requests()
        yield from self._throttles()
        yield from self._share_partitions()
        yield GaugeMetricFamily(
            QUEUE_SIZE,
            "Requests handed to the Python control plane and not answered yet.",
            value=self._native.request_queue_size(),
        )
        available, used = self._native.request_memory()
        yield GaugeMetricFamily(
            POOL_AVAILABLE, "Bytes left for requests read and not yet handled.", value=available
        )
        yield GaugeMetricFamily(
            POOL_USED, "Bytes of requests read and not yet handled.", value=used
        )

    def _topics(self) -> Iterator[Metric]:
        topics = self._native.topic_metrics()
        for field, (name, doc) in TOPIC_COUNTERS.items():
            family = CounterMetricFamily(name, doc, labels=["topic"])
            for topic, values in topics:
                family.add_metric([topic], values[field])
            yield family
        for field, (name, doc) in BROKER_COUNTERS.items():
            yield CounterMetricFamily(name, doc, value=sum(v[field] for _, v in topics))

    def _share_partitions(self) -> Iterator[Metric]:
        """Kafka's SharePartitionMetrics of each share-partition led here, and its lag."""
        labels = ["group", "topic", "partition"]
        records = GaugeMetricFamily(
            SHARE_IN_FLIGHT_RECORDS,
            "Records of the share-partition in flight (acquired, or waiting to be delivered).",
            labels=labels,
        )
        batches = GaugeMetricFamily(
            SHARE_IN_FLIGHT_BATCHES, "Batches the in-flight records are kept in.", labels=labels
        )
        timeouts = CounterMetricFamily(
            SHARE_LOCK_TIMEOUTS, "Records whose acquisition lock ran out.", labels=labels
        )
        lag = GaugeMetricFamily(
            SHARE_LAG,
            "Records the share group has still to deliver: the high watermark less its start "
            "offset and the records past it already acknowledged or archived.",
            labels=labels,
        )
        for group, topic, partition, n, b, t, left in self._native.share_groups.partition_metrics():
            tags = [group, topic, str(partition)]
            records.add_metric(tags, n)
            batches.add_metric(tags, b)
            timeouts.add_metric(tags, t)
            lag.add_metric(tags, left)
        yield from (records, batches, timeouts, lag)

    def _throttles(self) -> Iterator[Metric]:
        """Client quota throttles per metered entity (user and client id, "" when the quota
        that applied does not tell them apart, as Kafka's metric tags)."""
        labels = ["user", "client_id"]
        for kind in ("Produce", "Fetch", "Request"):
            what = "Responses" if kind == "Request" else f"{kind} responses"
            time_ms = CounterMetricFamily(
                THROTTLE_TIME.format(kind.lower()),
                f"Milliseconds {what} were throttled by a client quota.",
                labels=labels,
            )
            count = CounterMetricFamily(
                THROTTLES.format(kind.lower()),
                f"{what} throttled by a client quota.",
                labels=labels,
            )
            for quota, user, client, total_ms, throttled in self._native.client_quota_throttles():
                if quota == kind:
                    time_ms.add_metric([user, client], total_ms)
                    count.add_metric([user, client], throttled)
            yield time_ms
            yield count

    def _requests(self) -> Iterator[Metric]:
        requests = CounterMetricFamily(REQUESTS, "Requests answered, per API.", labels=["request"])
        errors = CounterMetricFamily(
            ERRORS,
            "Error codes in responses, per API (NONE included), one per partition or entity.",
            labels=["request", "error"],
        )
        total_time = HistogramMetricFamily(
            TOTAL_TIME,
            "Milliseconds from a request read to its response written, per API.",
            labels=["request"],
        )
        for key, count, buckets, sum_ms, codes in self._native.request_metrics():
            name = api_name(key)
            if count:
                requests.add_metric([name], count)
                cumulative, running = [], 0
                for bound, n in zip(self._bounds, buckets, strict=True):
                    running += n
                    cumulative.append((bound, float(running)))
                total_time.add_metric([name], cumulative, sum_ms)
            for code, n in codes:
                errors.add_metric([name, error_name(code)], n)
        yield requests
        yield errors
        yield total_time
