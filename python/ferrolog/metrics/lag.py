"""Consumer lag at /metrics, named as kafka-exporter names it: for each group this broker
coordinates and each partition the group committed an offset for,
`kafka_consumergroup_current_offset` (the committed offset) and `kafka_consumergroup_lag`
(the partition's high watermark minus that offset).

Computed when Prometheus scrapes, not by a periodic task: its cost is paid only when someone
looks, and its freshness is the scrape interval's. One scrape:
- copies the committed offsets on the broker's loop, yielding to the loop every
  `SLICE` offsets, so thousands of groups never hold it for long;
- reads the high watermarks of the committed partitions this broker leads from the native
  core, one partition at a time, in the scrape thread (the calls release the GIL);
- asks the leaders of the other partitions for theirs: one ListOffsets (latest,
  read_uncommitted, which answers the high watermark) per leader, over a `BrokerChannel` of
  its own, so a slow answer never queues the transaction coordinator's markers. The scrape
  waits at most `REMOTE_WAIT_S` for the requests it sent. A leader that is slower (paused,
  cut off) keeps its one request running, which later scrapes do not wait for; until it
  answers, its partitions report the high watermark it gave last, or no lag at all before
  its first answer. One stuck broker cannot stall the scrapes (Prometheus' timeout is the
  scrape interval at most).

A committed offset above the high watermark a leader gave last is the watermark's age, not
a negative lag (consumers read below the watermark): the lag is 0 then."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ferrolog.client.channel import BrokerChannel
from ferrolog.config.inter_broker import inter_broker_client
from ferrolog.metrics.loop import ask_loop
from ferrolog.protocol.messages import Apis, ListOffsetsRequest

if TYPE_CHECKING:
    from ferrolog.broker import Broker

log = logging.getLogger(__name__)

CURRENT_OFFSET = "kafka_consumergroup_current_offset"
LAG = "kafka_consumergroup_lag"
LABELS = ["consumergroup", "topic", "partition"]
# How long a scrape waits for other leaders' high watermarks.
REMOTE_WAIT_S = 0.5
# Committed offsets copied per turn of the broker's loop.
SLICE = 5000
LIST_OFFSETS_VERSION = 5
LATEST_TIMESTAMP = -1

Key = tuple[str, int]  # topic, partition
Committed = tuple[str, str, int, int]  # group, topic, partition, offset


class LagCollector(Collector):
    def __init__(self, loop: asyncio.AbstractEventLoop, broker: Broker) -> None:
        self._loop = loop
        self._broker = broker
        # Below: touched on the loop only.
        # The high watermark each other leader answered last, for the partitions still asked.
        self._remote: dict[Key, int] = {}
        # Leader -> its ListOffsets in flight: at most one per leader, however slow.
        self._asking: dict[int, asyncio.Task[None]] = {}
        self._channel: BrokerChannel | None = None

    def collect(self) -> Iterator[Metric]:
        committed = ask_loop(self._loop, self._committed)
        if committed is None:
            return
        keys = {(topic, partition) for _, topic, partition, _ in committed}
        watermarks = self._local_watermarks(keys)
        others = keys - watermarks.keys()

        async def remote() -> dict[Key, int]:
            return await self._remote_watermarks(others)

        if others:
            watermarks.update(ask_loop(self._loop, remote) or {})
        current = GaugeMetricFamily(
            CURRENT_OFFSET, "Committed offset of a group at a partition.", labels=LABELS
        )
        lag = GaugeMetricFamily(
            LAG,
            "The partition's high watermark minus the group's committed offset.",
            labels=LABELS,
        )
        for group, topic, partition, offset in committed:
            labels = [group, topic, str(partition)]
            current.add_metric(labels, offset)
            high_watermark = watermarks.get((topic, partition))
            if high_watermark is not None:
                lag.add_metric(labels, max(high_watermark - offset, 0))
        yield current
        yield lag

    def _local_watermarks(self, keys: set[Key]) -> dict[Key, int]:
        """The high watermarks of the partitions of `keys` this broker leads, each read alone:
        groups commit to a few partitions of the thousands a broker may host."""
        native = self._broker.native
        if native is None:
            return {}
        watermarks: dict[Key, int] = {}
        for topic, partition in keys:
            state = native.partition_state(topic, partition)
            if state is not None and state.is_leader:
                watermarks[(topic, partition)] = state.high_watermark
        return watermarks

    async def _committed(self) -> list[Committed]:
        coordinator = self._broker.group_coordinator
        if coordinator is None:
            return []
        groups = [g for shard in coordinator.shards() for g in shard.groups.values()]
        out: list[Committed] = []
        copied = 0
        for group in groups:
            # A group's offsets are copied in one turn: never half an old, half a new commit.
            out.extend((group.group_id, t, p, v.offset) for (t, p), v in group.offsets.items())
            copied += len(group.offsets)
            if copied >= SLICE:
                copied = 0
                await asyncio.sleep(0)
        return out

    async def _remote_watermarks(self, partitions: set[Key]) -> dict[Key, int]:
        """The high watermarks of `partitions` from their leaders (see the module's doc)."""
        controller = self._broker.controller
        if controller is None:
            return {}
        states: dict[str, dict[int, Any]] = {}
        by_leader: dict[int, list[Key]] = {}
        for topic, partition in partitions:
            if topic not in states:
                states[topic] = controller.partition_states(topic)
            state = states[topic].get(partition)
            # This broker as leader: the native core had no leader state yet; next scrape.
            if state is not None and state.leader >= 0 and state.leader != self._broker.node_id:
                by_leader.setdefault(state.leader, []).append((topic, partition))
        waiting = []
        for leader, keys in by_leader.items():
            # A request still in flight from an earlier scrape is not waited for again: a
            # stuck leader costs one scrape a wait, not every scrape.
            if leader not in self._asking:
                task = asyncio.create_task(self._ask(leader, keys), name=f"lag-from-{leader}")
                self._asking[leader] = task
                waiting.append(task)
        if waiting:
            await asyncio.wait(waiting, timeout=REMOTE_WAIT_S)
        # Partitions no longer committed to, or no longer led elsewhere, are forgotten.
        self._remote = {k: v for k, v in self._remote.items() if k in partitions}
        return dict(self._remote)

    async def _ask(self, leader: int, keys: list[Key]) -> None:
        topics: dict[str, list[int]] = {}
        for topic, partition in keys:
            topics.setdefault(topic, []).append(partition)
        body: ListOffsetsRequest = {
            "replica_id": -1,
            "isolation_level": 0,  # read_uncommitted: the latest offset is the high watermark
            "topics": [
                {
                    "name": topic,
                    "partitions": [
                        {
                            "partition_index": p,
                            "current_leader_epoch": -1,
                            "timestamp": LATEST_TIMESTAMP,
                        }
                        for p in partitions
                    ],
                }
                for topic, partitions in topics.items()
            ],
        }
        try:
            response = await self._channel_to_leaders().request(
                leader, Apis.LIST_OFFSETS, LIST_OFFSETS_VERSION, body
            )
        except ConnectionError as exc:
            log.debug("high watermarks from broker %d for lag: %s", leader, exc)
            return
        finally:
            self._asking.pop(leader, None)
        for answered in response["topics"]:
            for answer in answered["partitions"]:
                # NOT_LEADER_OR_FOLLOWER and the like: the next scrape asks the new leader.
                if answer["error_code"] == 0:
                    key = (answered["name"], answer["partition_index"])
                    self._remote[key] = answer["offset"]

    def _channel_to_leaders(self) -> BrokerChannel:
        if self._channel is None:
            broker = self._broker

            listener = broker.config.inter_broker_listener_name

            def address_of(node: int) -> tuple[str, int] | None:
                controller = broker.controller
                registration = None if controller is None else controller.brokers().get(node)
                return None if registration is None else registration.address_on(listener)

            config = broker.config
            self._channel = BrokerChannel(
                broker.node_id, address_of, lambda: inter_broker_client(config)
            )
        return self._channel

    def close(self) -> None:
        """On the loop, when the broker stops: the requests in flight end, connections close."""
        for task in self._asking.values():
            task.cancel()
        self._asking.clear()
        if self._channel is not None:
            self._channel.close()
            self._channel = None
