"""Issue 15's proof: a real Prometheus scrapes a three-broker cluster every second while a
producer and a consumer group run, and its HTTP API shows what an operator would graph:
bytes and records in per topic matching what was produced, consumer lag per partition rising
while the consumer stops and falling to 0 once it catches up, under-replicated partitions
while a follower is paused and none once it rejoins (with the ISR shrinks and expands that
caused them), exactly one active controller, and a leader election when a broker dies."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import ferrolog.metrics
import pytest
from confluent_kafka import Consumer, Producer

from tests.cluster import prometheus
from tests.cluster.harness import Cluster
from tests.cluster.prometheus import Prometheus
from tests.metrics.scraping import get
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.native,
    pytest.mark.slow,
    pytest.mark.timeout(600),
    pytest.mark.skipif(not prometheus.available(), reason="needs Debian's prometheus package"),
]

TOPIC, GROUP, PARTITIONS = "metered", "metered-readers", 3
RECORDS, VALUE = 300, b"v" * 100  # the first batch, spread evenly over the partitions
MORE = 30  # records per partition produced while the consumer stops
WAIT_S = 60.0
DASHBOARD = Path(ferrolog.metrics.__file__).parent / "grafana-dashboard.json"


@pytest.fixture
def watched(
    cluster_factory: Callable[..., Cluster], tmp_path: Path
) -> Iterator[tuple[Cluster, Prometheus]]:
    # A ZooKeeper session far longer than replica.lag.time.max.ms: a paused follower leaves
    # the ISR by its leader's decision (an ISR shrink), not by its session's expiry.
    cluster = cluster_factory(**{"zookeeper.session.timeout.ms": "10000"})
    server = Prometheus(
        tmp_path / "prometheus", {n: b.metrics_url for n, b in cluster.brokers.items()}
    ).start()
    try:
        yield cluster, server
    finally:
        server.stop()


def test_prometheus_graphs_the_cluster(watched: tuple[Cluster, Prometheus]) -> None:
    cluster, prom = watched

    def eventually(expr: str, holds: Callable[[float | None], bool], what: str) -> float | None:
        """The value of `expr` once `holds` is true of it, as Prometheus answers."""
        found: list[float | None] = []

        def check() -> bool:
            found[:] = [prom.scalar(expr)]
            return holds(found[0])

        wait_until(check, WAIT_S, step=0.5, what=f"{what} ({expr} = {found})")
        return found[0]

    def lag(name: str = "kafka_consumergroup_lag") -> dict[str, float]:
        series = prom.query(f'{name}{{consumergroup="{GROUP}",topic="{TOPIC}"}}')
        brokers = {labels["broker"] for labels, _ in series}
        # Only the group's coordinator reports it.
        assert len(brokers) <= 1, series
        return {labels["partition"]: v for labels, v in series}

    eventually('count(up{job="ferrolog"} == 1)', lambda v: v == 3, "every broker scraped")
    controller = cluster.controller()
    actives = 'kafka_controller_kafkacontroller_activecontrollercount{job="ferrolog"}'
    eventually(f"count({actives})", lambda v: v == 3, "every broker's controller gauge")
    eventually(f"sum({actives})", lambda v: v == 1, "one active controller")
    assert prom.query(f"{actives} == 1")[0][0]["broker"] == str(controller)

    # Bytes and records in per topic, as produced.
    cluster.create_topic(TOPIC, partitions=PARTITIONS)
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "linger.ms": 5})

    def produce(per_partition: int) -> None:
        for i in range(per_partition * PARTITIONS):
            producer.produce(TOPIC, value=VALUE, partition=i % PARTITIONS)
        assert producer.flush(30) == 0

    produce(RECORDS // PARTITIONS)
    messages_in = f'sum(kafka_server_brokertopicmetrics_messagesin_total{{topic="{TOPIC}"}})'
    eventually(messages_in, lambda v: v == RECORDS, "the records produced counted")
    bytes_in = f'sum(kafka_server_brokertopicmetrics_bytesin_total{{topic="{TOPIC}"}})'
    # A partition's bytes in are its leader's log (replicas are identical).
    log_bytes = f'sum(max by (partition) (kafka_log_log_size{{topic="{TOPIC}"}}))'
    produced = eventually(bytes_in, lambda v: v is not None and v >= RECORDS * len(VALUE), "")
    eventually(log_bytes, lambda v: v == produced, "bytes in to match the logs")
    direct = 0.0
    for broker in cluster.brokers.values():
        _, text = get(f"{broker.metrics_url}/metrics")
        for line in text.splitlines():
            if line.startswith(f'kafka_server_brokertopicmetrics_bytesin_total{{topic="{TOPIC}"}}'):
                direct += float(line.split()[-1])
    assert direct == produced

    # Consumer lag: 0 once the group consumed and committed everything, then the produced
    # records per partition while it stops, then 0 again once it catches up.
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": GROUP,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.subscribe([TOPIC])
        consumed = 0

        def consume_until(total: int) -> Callable[[], bool]:
            def step() -> bool:
                nonlocal consumed
                message = consumer.poll(0.2)
                if message is not None and message.error() is None:
                    consumed += 1
                if consumed == total:
                    consumer.commit(asynchronous=False)
                    return True
                return False

            return step

        wait_until(consume_until(RECORDS), WAIT_S, step=0, what="the first records consumed")
        zero = {str(p): 0.0 for p in range(PARTITIONS)}
        wait_until(lambda: lag() == zero, WAIT_S, step=0.5, what="lag 0 after the first batch")
        produce(MORE)  # the consumer does not poll meanwhile
        behind = {str(p): float(MORE) for p in range(PARTITIONS)}
        wait_until(lambda: lag() == behind, WAIT_S, step=0.5, what=f"lag {MORE} per partition")
        wait_until(consume_until(RECORDS + MORE * PARTITIONS), WAIT_S, step=0, what="catch up")
        wait_until(lambda: lag() == zero, WAIT_S, step=0.5, what="lag 0 after catching up")
        end = float(RECORDS // PARTITIONS + MORE)
        assert lag("kafka_consumergroup_current_offset") == {str(p): end for p in range(3)}
    finally:
        consumer.close()

    # A paused follower: its leaders shrink their ISRs (under-replicated), and expand them
    # once it is back and caught up.
    under = 'sum(kafka_server_replicamanager_underreplicatedpartitions{job="ferrolog"})'
    shrinks = "sum(kafka_server_replicamanager_isrshrinks_total)"
    expands = "sum(kafka_server_replicamanager_isrexpands_total)"
    eventually(under, lambda v: v == 0, "no under-replicated partition")
    shrunk_before = prom.scalar(shrinks) or 0.0
    expanded_before = prom.scalar(expands) or 0.0
    follower = next(b for n, b in cluster.brokers.items() if n != controller)
    follower.pause()
    eventually(under, lambda v: v is not None and v >= 1, "under-replicated partitions")
    eventually(shrinks, lambda v: v is not None and v > shrunk_before, "ISR shrinks counted")
    follower.resume()
    eventually(f"count({under.removeprefix('sum')})", lambda v: v == 3, "all brokers scraped")
    eventually(under, lambda v: v == 0, "the follower back in every ISR")
    eventually(expands, lambda v: v is not None and v > expanded_before, "ISR expands counted")

    # A broker killed: the controller elects new leaders for its partitions.
    elections = "sum(kafka_controller_controllerstats_leaderelectionrateandtimems_count)"
    elected_before = prom.scalar(elections) or 0.0
    leaders = [cluster.leader(TOPIC, p) for p in range(PARTITIONS)]
    admin = cluster.admin()  # must outlive its future
    described = admin.describe_consumer_groups([GROUP])[GROUP].result(10)
    coordinator = described.coordinator.id
    # A leader, neither the controller (its count stays readable) nor the group's coordinator
    # (its lag series, which the dashboard check below needs, stays there: a CI run killed
    # the coordinator and found none). Three leaders on three brokers leave one.
    victim = next(n for n in cluster.brokers if n not in (controller, coordinator) and n in leaders)
    cluster.brokers[victim].kill()
    eventually(elections, lambda v: v is not None and v > elected_before, "an election counted")
    cluster.wait_for_leaders(TOPIC, PARTITIONS)
    assert victim not in [cluster.leader(TOPIC, p) for p in range(PARTITIONS)]
    eventually(f"sum({actives})", lambda v: v == 1, "still one active controller")

    # The Grafana dashboard shipped beside the metrics: every query parses in Prometheus and
    # every metric it graphs exists in this cluster.
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    assert exprs
    for expr in exprs:
        prom.query(expr.replace("$__rate_interval", "1m"))
    names = {n for e in exprs for n in re.findall(r"\b(?:kafka|process)_\w+", e)}
    # Series only once a client quota throttles someone (tests/metrics covers them).
    names -= {n for n in names if "_throttle_time_ms_" in n}
    for name in sorted(names):
        assert prom.scalar(f'count({{__name__="{name}"}})'), f"{name}: no series"
