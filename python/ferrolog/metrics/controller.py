"""The active controller's view at /metrics: whether this broker is the active controller,
its epoch and the partitions without a leader (Kafka's `KafkaController` gauges).

The controller's state only changes on the broker's loop, so it is read there (`ask_loop`);
the replica families (partition counts, log gauges) come from the native core instead, see
`ferrolog.metrics.http`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from ferrolog.metrics.loop import ask_loop

if TYPE_CHECKING:
    from ferrolog.broker import Broker


class ControllerCollector(Collector):
    def __init__(self, loop: asyncio.AbstractEventLoop, broker: Broker) -> None:
        self._loop = loop
        self._broker = broker

    def collect(self) -> Iterator[GaugeMetricFamily]:
        # Wrapped, so that "no active controller" (None) differs from no answer.
        async def controller() -> tuple[tuple[int, int] | None]:
            return (self._broker.active_controller(),)

        answer = ask_loop(self._loop, controller)
        if answer is None:  # the loop closed, stopping or stuck: no controller metrics
            return
        active, epoch, offline = 0, -1, 0
        if answer[0] is not None:
            active = 1
            epoch, offline = answer[0]
        gauges = [
            ("kafka_controller_kafkacontroller_activecontrollercount",
             "1 on the broker that is the active controller.", active),
            ("kafka_controller_kafkacontroller_offlinepartitionscount",
             "Partitions without a leader (reported by the active controller).", offline),
            ("kafka_controller_kafkacontroller_controllerepoch",
             "The active controller's epoch (reported by the active controller).", epoch),
        ]  # fmt: skip
        for name, doc, value in gauges:
            yield GaugeMetricFamily(name, doc, value=value)
