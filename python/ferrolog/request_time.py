"""The request quota (`request_percentage`, KIP-124) on the Python-served APIs: the time a
request keeps the broker busy, metered by the native core's quota manager against its client's
quota, and the throttle it earns.

Kafka meters the time its request handler threads spend on a request, not the time the request
waits in purgatory (for a rebalance, for replication): a JoinGroup parked for seconds costs its
client next to nothing. A handler here is a coroutine on the broker's one loop, so its busy
time is the time its steps run before each hands the loop back; `Stopwatch.run` adds those up
while the coroutine runs as usual."""

from __future__ import annotations

import time
import types
from collections.abc import Awaitable, Generator
from typing import Any, TypeVar

from ferrolog.protocol.schemas import RESPONSES

T = TypeVar("T")

# Kafka's cluster actions (`ApiKeys.clusterAction`), exempt from request quotas: brokers and
# controllers keeping the cluster running.
CLUSTER_ACTIONS = frozenset(
    {
        4,  # LeaderAndIsr
        5,  # StopReplica
        6,  # UpdateMetadata
        7,  # ControlledShutdown
        27,  # WriteTxnMarkers
        52,  # Vote
        53,  # BeginQuorumEpoch
        54,  # EndQuorumEpoch
        55,  # DescribeQuorum
        56,  # AlterPartition
        58,  # Envelope
        59,  # FetchSnapshot
        62,  # BrokerRegistration
        63,  # BrokerHeartbeat
        67,  # AllocateProducerIds
    }
)

# The APIs whose responses carry `throttle_time_ms` in some version.
THROTTLE_FIELD = frozenset(
    key for key, schema in RESPONSES.items() if any(f[0] == "throttle_time_ms" for f in schema[4])
)


class Stopwatch:
    """The time the coroutines it runs spend running, in nanoseconds."""

    def __init__(self) -> None:
        self.busy_ns = 0

    @types.coroutine
    def run(self, awaitable: Awaitable[T]) -> Generator[Any, Any, T]:
        """Awaits `awaitable`, timing each of its steps (from being resumed to yielding to the
        loop). Cancellation and other exceptions thrown in reach it as usual."""
        coro = awaitable.__await__()
        value: Any = None
        error: BaseException | None = None
        while True:
            started = time.perf_counter_ns()
            try:
                yielded = coro.send(value) if error is None else coro.throw(error)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]  # StopIteration's is Any
            finally:
                self.busy_ns += time.perf_counter_ns() - started
            try:
                value, error = (yield yielded), None
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # cancellation included: the handler decides
                value, error = None, exc
