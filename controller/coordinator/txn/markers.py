"""Writing a transaction's COMMIT or ABORT markers to every partition it touched (Kafka's
`TransactionMarkerChannelManager`).

Each marker goes to the partition's current leader: written by the native core directly when
that is this broker, else sent as WriteTxnMarkers to the leader over the Kafka protocol
(broker to broker). Markers queued for one broker while a request to it is in flight go
together in the next request, as Kafka batches them per destination. Retriable failures (no
leader yet, a leader change, too few replicas, a timeout) are retried with the leaders of the
moment until every partition has its marker, the partition is gone, or the coordinator gives
the transaction up (it no longer owns it, or the marker was refused as stale)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from ferrolog import errors
from ferrolog.client.channel import BrokerChannel
from ferrolog.protocol.messages import (
    Apis,
    WriteTxnMarkersRequest,
    WriteTxnMarkersRequestWritableTxnMarker,
    WriteTxnMarkersResponse,
)

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]
RETRY_BACKOFF_S = 0.1
WRITE_TXN_MARKERS_VERSION = 1
# v2 carries each marker's transaction version (KIP-890 part 2), sent when one has version 2.
WRITE_TXN_MARKERS_TV2_VERSION = 2

# Kafka's classification of a marker's outcome.
_RETRY = frozenset(
    c.code
    for c in (
        errors.UnknownTopicOrPartitionError,
        errors.NotLeaderOrFollowerError,
        errors.NotEnoughReplicasError,
        errors.NotEnoughReplicasAfterAppendError,
        errors.RequestTimedOutError,
        errors.KafkaStorageError,
        errors.NetworkExceptionError,
        errors.CoordinatorNotAvailableError,
    )
)
# The producer's epoch or this coordinator are stale: the markers are someone else's now.
_STALE = frozenset(
    {errors.InvalidProducerEpochError.code, errors.TransactionCoordinatorFencedError.code}
)
# The partition cannot take markers and so never took the producer's data either.
_SKIP = frozenset(
    {errors.UnsupportedForMessageFormatError.code, errors.UnsupportedVersionError.code}
)


@dataclass(frozen=True)
class Marker:
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int
    commit: bool
    partitions: tuple[TopicPartition, ...]
    # The transaction's version: 2 (KIP-890 part 2) holds the marker's epoch, which the
    # coordinator bumped, to be newer than the producer's at the leader.
    transaction_version: int = 0


# Writes markers on this broker: per marker, per partition, the error code (0 for success).
WriteLocal = Callable[[list[Marker]], Awaitable[list[dict[TopicPartition, int]]]]
# The leader of a partition: a broker id, None while it has none, or -1 for a partition
# that no longer exists.
LeaderOf = Callable[[str, int], int | None]
GONE = -1


@dataclass
class _Queued:
    marker: Marker
    future: asyncio.Future[dict[TopicPartition, int]]


@dataclass
class _Destination:
    queue: list[_Queued] = field(default_factory=list)
    task: asyncio.Task[None] | None = None


class MarkerSender:
    def __init__(
        self, node_id: int, leader_of: LeaderOf, write_local: WriteLocal, channel: BrokerChannel
    ) -> None:
        self._node_id = node_id
        self._leader_of = leader_of
        self._write_local = write_local
        self._channel = channel
        self._destinations: dict[int, _Destination] = {}

    async def write(self, marker: Marker, keep_going: Callable[[], bool]) -> bool:
        """Writes `marker` to all of its partitions; True once each has it (or is gone), False
        when the coordinator should give the transaction up (`keep_going()` turned false,
        or a partition refused the marker as stale)."""
        remaining = set(marker.partitions)
        while remaining:
            if not keep_going():
                return False
            by_leader: dict[int, list[TopicPartition]] = {}
            waiting = False
            for tp in sorted(remaining):
                leader = self._leader_of(*tp)
                if leader == GONE:
                    remaining.discard(tp)
                elif leader is None:
                    waiting = True
                else:
                    by_leader.setdefault(leader, []).append(tp)
            futures = [
                self._enqueue(leader, _partial(marker, tps)) for leader, tps in by_leader.items()
            ]
            for outcome in await asyncio.gather(*futures):
                for tp, code in outcome.items():
                    if code == 0 or code in _SKIP:
                        remaining.discard(tp)
                    elif code in _STALE:
                        log.info("marker for producer %d refused: %d", marker.producer_id, code)
                        return False
                    elif code not in _RETRY:
                        log.error(
                            "marker for producer %d on %s-%d failed: %d",
                            marker.producer_id, tp[0], tp[1], code,
                        )  # fmt: skip
            if remaining or waiting:
                await asyncio.sleep(RETRY_BACKOFF_S)
        return True

    def _enqueue(self, node: int, marker: Marker) -> asyncio.Future[dict[TopicPartition, int]]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[TopicPartition, int]] = loop.create_future()
        dest = self._destinations.setdefault(node, _Destination())
        dest.queue.append(_Queued(marker, future))
        if dest.task is None:
            dest.task = loop.create_task(self._drain(node, dest))
        return future

    async def _drain(self, node: int, dest: _Destination) -> None:
        try:
            while dest.queue:
                batch, dest.queue = dest.queue, []
                try:
                    results = await self._send(node, [q.marker for q in batch])
                except Exception as exc:
                    log.info("markers to broker %d failed: %r", node, exc)
                    code = errors.NetworkExceptionError.code
                    results = [dict.fromkeys(q.marker.partitions, code) for q in batch]
                for queued, result in zip(batch, results, strict=True):
                    if not queued.future.done():
                        queued.future.set_result(result)
        finally:
            dest.task = None

    async def _send(self, node: int, markers: list[Marker]) -> list[dict[TopicPartition, int]]:
        if node == self._node_id:
            return await self._write_local(markers)
        version = WRITE_TXN_MARKERS_VERSION
        if any(m.transaction_version >= 2 for m in markers):
            version = WRITE_TXN_MARKERS_TV2_VERSION
        response = await self._channel.request(
            node, Apis.WRITE_TXN_MARKERS, version, request_body(markers)
        )
        return parse_response(markers, response)

    async def close(self) -> None:
        tasks = [d.task for d in self._destinations.values() if d.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for dest in self._destinations.values():
            for queued in dest.queue:
                if not queued.future.done():
                    queued.future.cancel()
        self._destinations.clear()
        await self._channel.aclose()


def _partial(marker: Marker, partitions: list[TopicPartition]) -> Marker:
    return dataclasses.replace(marker, partitions=tuple(partitions))


def request_body(markers: list[Marker]) -> WriteTxnMarkersRequest:
    """A WriteTxnMarkers request body for `markers`."""
    out: list[WriteTxnMarkersRequestWritableTxnMarker] = []
    for m in markers:
        by_topic: dict[str, list[int]] = {}
        for topic, partition in m.partitions:
            by_topic.setdefault(topic, []).append(partition)
        out.append(
            {
                "producer_id": m.producer_id,
                "producer_epoch": m.producer_epoch,
                "transaction_result": m.commit,
                "topics": [{"name": t, "partition_indexes": p} for t, p in by_topic.items()],
                "coordinator_epoch": m.coordinator_epoch,
                "transaction_version": m.transaction_version,
            }
        )
    return {"markers": out}


def parse_response(
    markers: list[Marker], response: WriteTxnMarkersResponse
) -> list[dict[TopicPartition, int]]:
    """Each marker's per-partition error codes from a WriteTxnMarkers response; a partition
    the response leaves out counts as a retriable failure."""
    by_producer: dict[int, dict[TopicPartition, int]] = {}
    for entry in response["markers"]:
        codes = by_producer.setdefault(entry["producer_id"], {})
        for t in entry["topics"]:
            for p in t["partitions"]:
                codes[(t["name"], p["partition_index"])] = p["error_code"]
    missing = errors.NetworkExceptionError.code
    return [
        {tp: by_producer.get(m.producer_id, {}).get(tp, missing) for tp in m.partitions}
        for m in markers
    ]
