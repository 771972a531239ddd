"""`ZkController`: the controller of a broker in cluster mode (ZooKeeper).

Topic writes are made by the broker that takes the request, as on a single node. Leadership
and replica moves are the active controller's (`ActiveController`, on whichever broker holds
`/controller`): a request is written to its admin znode (Kafka's ZK-mode layout), the active
controller decides with the same `election`/`reassignment` rules and settles the znode, and
every broker sees the outcome in the next view it reads. `elect_leaders` awaits that outcome:
each view the cluster member reads wakes the waiting requests (no polling).

The cache is the newest view (`replace_view`), so Metadata and admin checks need no store I/O.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING

from ferrolog.controller.api import PartitionResults, TopicPartition
from ferrolog.controller.cluster.election import ElectionType
from ferrolog.controller.store.base import PartitionState
from ferrolog.errors import (
    ElectionNotNeededError,
    EligibleLeadersNotAvailableError,
    KafkaError,
    NotControllerError,
    PreferredLeaderNotAvailableError,
    RequestTimedOutError,
)
from ferrolog.timeouts import wait_event

from ..acl.manager import AclSink

# Relative, so the type checker resolves them (it sees this folder as `controller`, not as
# `ferrolog.controller`).
from ..features import FeatureUpdate
from ..quota.manager import QuotaSink
from ..store.view import ClusterView
from ..store.zk_fenced import ControllerFencedError
from .controller import Controller

if TYPE_CHECKING:
    from ferrolog.config import BrokerConfig
    from ferrolog.controller.store.zookeeper import ZkStore


class ZkController(Controller):
    def __init__(
        self,
        store: ZkStore,
        config: BrokerConfig,
        quota_sink: QuotaSink | None = None,
        acl_sink: AclSink | None = None,
    ) -> None:
        # No replica manager: the cluster member applies roles from the views it reads.
        super().__init__(store, config, None, quota_sink=quota_sink, acl_sink=acl_sink)
        self._zk = store
        self.view = ClusterView()
        # `time.monotonic()` when the read of `view` began: a view read after a request's
        # znode write shows whether the active controller has settled it.
        self._view_read_at = 0.0
        self._view_changed = asyncio.Event()
        # When this broker, as controller, last wrote the finalized features: a view read
        # that began before has older ones.
        self._features_written_at = 0.0

    def replace_view(self, view: ClusterView, read_at: float) -> None:
        """The cache becomes `view`, whose read from the store began at `read_at`; requests
        waiting for an outcome look at it."""
        self.view = view
        self._view_read_at = read_at
        self._topics = dict(view.topics)
        self._states = {name: dict(states) for name, states in view.states.items()}
        self._set_brokers(dict(view.brokers))
        if read_at > self._features_written_at:
            self._feature_control.finalized = view.features
        changed, self._view_changed = self._view_changed, asyncio.Event()
        changed.set()

    async def wait_for_view(self, done: Callable[[], bool], timeout_s: float) -> bool:
        """Waits until `done()` holds, checked on every new view, for at most `timeout_s`;
        returns whether it held."""
        deadline = time.monotonic() + timeout_s
        while not done():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if not await wait_event(self._view_changed, remaining):
                return done()
        return True

    @property
    def controller_id(self) -> int:
        """The broker `/controller` names (-1 during an election)."""
        return self.view.controller_id

    async def update_features(
        self, updates: Mapping[str, FeatureUpdate], validate_only: bool = False
    ) -> None:
        """Decided and written by the active controller only, as Kafka's ZooKeeper-mode
        brokers answer NOT_CONTROLLER (clients send UpdateFeatures to the controller that
        Metadata names, and retry after a refresh); every broker sees the new levels in the
        next view it reads (`/feature` is watched)."""
        if self.controller_id != self.node_id:
            raise NotControllerError(f"broker {self.node_id} is not the controller")
        try:
            await super().update_features(updates, validate_only)
        except ControllerFencedError:
            raise NotControllerError(f"broker {self.node_id} is not the controller") from None
        if not validate_only:
            self._features_written_at = time.monotonic()

    def reassignments(self) -> dict[TopicPartition, list[int]]:
        return dict(self.view.reassignments)

    def shutting_down(self) -> Collection[int]:
        return self.view.shutting_down

    def offline_replicas(self, tp: TopicPartition) -> Collection[int]:
        return {b for b, replicas in self.view.offline_replicas.items() if tp in replicas}

    async def _carry_out(
        self, kind: ElectionType, partitions: set[TopicPartition], timeout_ms: int
    ) -> PartitionResults:
        """Asks the active controller for the elections and waits, at most `timeout_ms`, for
        each outcome: the new leader in a view, or (once a view read after the request shows
        it settled) the reason the controller found for not electing."""
        unclean = kind == ElectionType.UNCLEAN
        await self._zk.request_elections(partitions, unclean=unclean)
        asked_at = time.monotonic()
        results: PartitionResults = {}

        def settled() -> bool:
            view = self.view
            pending = view.unclean_elections if unclean else view.preferred_elections
            for tp in partitions - results.keys():
                outcome = self.requested_election(kind, tp)
                if isinstance(outcome, ElectionNotNeededError):
                    results[tp] = None  # the outcome asked for is there
                elif self._view_read_at > asked_at and tp not in pending:
                    # The controller settled the request without that outcome; the view reads
                    # the admin znodes before the states, so these states are its decision.
                    results[tp] = _declined(kind, outcome)
            return len(results) == len(partitions)

        if not await self.wait_for_view(settled, timeout_ms / 1000):
            for tp in partitions - results.keys():
                results[tp] = RequestTimedOutError("the election did not finish in time")
        return results

    async def _start_moves(
        self, accepted: dict[TopicPartition, list[int] | None]
    ) -> PartitionResults:
        """Merges the targets into `/admin/reassign_partitions`, where the active controller
        picks them up (`reassignment.step`). A cancelled move keeps the replicas the partition
        has at that moment (Kafka would revert to the original set)."""
        await self._zk.merge_reassignments(accepted)
        return {tp: None for tp in accepted}


def _declined(kind: ElectionType, outcome: PartitionState | KafkaError) -> KafkaError:
    if isinstance(outcome, KafkaError):
        return outcome
    if kind == ElectionType.UNCLEAN:
        return EligibleLeadersNotAvailableError("the controller found no replica to elect")
    return PreferredLeaderNotAvailableError("the controller could not elect the preferred replica")
