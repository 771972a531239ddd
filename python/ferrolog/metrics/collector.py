"""Metrics read at scrape time from the broker: the native core's partition states (roles,
ISRs, log sizes and offsets) and the controller's view.

prometheus_client (the Prometheus project's own Python library) writes the exposition format;
it calls `collect` from its HTTP thread. The partition states are read there (the native call
releases the GIL, so thousands of partitions do not stall the broker's loop); only the
controller's view is asked of the loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from ferrolog.metrics.loop import ask_loop

if TYPE_CHECKING:
    from ferrolog.broker import Broker


Labels = tuple[str, str]  # topic, partition


@dataclass
class Snapshot:
    partitions: int = 0
    leaders: int = 0
    under_replicated: int = 0
    under_min_isr: int = 0
    offline: int = 0
    active_controller: int = 0
    controller_epoch: int = -1
    size: dict[Labels, int] = field(default_factory=dict)
    log_end: dict[Labels, int] = field(default_factory=dict)
    log_start: dict[Labels, int] = field(default_factory=dict)
    high_watermark: dict[Labels, int] = field(default_factory=dict)


def take_snapshot(broker: Broker, controller: tuple[int, int] | None) -> Snapshot:
    """The state Prometheus sees; `controller` is `Broker.active_controller()`'s answer."""
    snap = Snapshot()
    native = broker.native
    if native is None:
        return snap
    min_isr = broker.config.get_int("min.insync.replicas")
    for state in native.partition_states():
        labels = (state.topic, str(state.partition))
        snap.partitions += 1
        snap.size[labels] = state.size_bytes
        snap.log_end[labels] = state.log_end_offset
        snap.log_start[labels] = state.log_start_offset
        snap.high_watermark[labels] = state.high_watermark
        if state.is_leader:
            snap.leaders += 1
            isr = len(state.isr)
            snap.under_replicated += isr < len(state.replicas)
            snap.under_min_isr += isr < min(min_isr, len(state.replicas))
    if controller is not None:
        snap.active_controller = 1
        snap.controller_epoch, snap.offline = controller
    return snap


class BrokerCollector(Collector):
    def __init__(self, loop: asyncio.AbstractEventLoop, broker: Broker) -> None:
        self._loop = loop
        self._broker = broker

    def _snapshot(self) -> Snapshot | None:
        # Wrapped, so that "no active controller" (None) differs from no answer.
        async def controller() -> tuple[tuple[int, int] | None]:
            return (self._broker.active_controller(),)

        answer = ask_loop(self._loop, controller)
        if answer is None:  # the loop closed, stopping or stuck: no broker metrics
            return None
        return take_snapshot(self._broker, answer[0])

    def collect(self) -> Iterator[GaugeMetricFamily]:
        snap = self._snapshot()
        if snap is None:
            return
        scalars: list[tuple[str, str, int]] = [
            ("kafka_server_replicamanager_partitioncount",
             "Partitions with a replica on this broker.", snap.partitions),
            ("kafka_server_replicamanager_leadercount",
             "Partitions this broker leads.", snap.leaders),
            ("kafka_server_replicamanager_underreplicatedpartitions",
             "Led partitions whose ISR is smaller than their replica set.",
             snap.under_replicated),
            ("kafka_server_replicamanager_underminisrpartitioncount",
             "Led partitions whose ISR is below min.insync.replicas.", snap.under_min_isr),
            ("kafka_controller_kafkacontroller_activecontrollercount",
             "1 on the broker that is the active controller.", snap.active_controller),
            ("kafka_controller_kafkacontroller_offlinepartitionscount",
             "Partitions without a leader (reported by the active controller).", snap.offline),
            ("kafka_controller_kafkacontroller_controllerepoch",
             "The active controller's epoch (reported by the active controller).",
             snap.controller_epoch),
        ]  # fmt: skip
        for name, doc, value in scalars:
            yield GaugeMetricFamily(name, doc, value=value)
        per_partition: list[tuple[str, str, Callable[[Snapshot], dict[Labels, int]]]] = [
            ("kafka_log_log_size", "Bytes of the partition's log.", lambda s: s.size),
            ("kafka_log_log_logendoffset", "The partition's log end offset.",
             lambda s: s.log_end),
            ("kafka_log_log_logstartoffset", "The partition's log start offset.",
             lambda s: s.log_start),
            ("kafka_cluster_partition_highwatermark", "The partition's high watermark.",
             lambda s: s.high_watermark),
        ]  # fmt: skip
        for name, doc, values in per_partition:
            family = GaugeMetricFamily(name, doc, labels=["topic", "partition"])
            for labels, value in values(snap).items():
                family.add_metric(list(labels), value)
            yield family
