"""Replication and controller events at /metrics: the ISR changes this broker made as a
partition leader (Kafka's `ReplicaManager` `IsrShrinksPerSec` / `IsrExpandsPerSec`) and the
leader elections it held as active controller (`ControllerStats`
`LeaderElectionRateAndTimeMs`, a summary of milliseconds: `_count` elections, `_sum` time).

Read from the cluster member's `ClusterStats` in the scrape thread (plain ints, see there).
A single-node broker never changes an ISR nor elects: it reports zeros."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, Metric, SummaryMetricFamily
from prometheus_client.registry import Collector

from ferrolog.controller.cluster.stats import ClusterStats

if TYPE_CHECKING:
    from ferrolog.broker import Broker

ISR_SHRINKS = "kafka_server_replicamanager_isrshrinks"
ISR_EXPANDS = "kafka_server_replicamanager_isrexpands"
ELECTIONS = "kafka_controller_controllerstats_leaderelectionrateandtimems"


class ClusterCollector(Collector):
    def __init__(self, broker: Broker) -> None:
        self._broker = broker

    def collect(self) -> Iterator[Metric]:
        member = self._broker.member
        stats = member.stats if member is not None else ClusterStats()
        yield CounterMetricFamily(
            ISR_SHRINKS, "ISR shrinks this broker made as leader.", value=stats.isr_shrinks
        )
        yield CounterMetricFamily(
            ISR_EXPANDS, "ISR expansions this broker made as leader.", value=stats.isr_expands
        )
        yield SummaryMetricFamily(
            ELECTIONS,
            "Controller passes that elected partition leaders here, and their milliseconds.",
            count_value=stats.leader_elections,
            sum_value=stats.leader_election_ms,
        )
