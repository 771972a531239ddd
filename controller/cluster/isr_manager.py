"""The ISR manager: on a partition leader, shrinks and expands the ISR by the
`replica.lag.time.max.ms` rule (`isr.next_isr`).

A change is written to the state znode first, compare-and-set on its version and only while
the state still names this broker leader at the epoch it leads with (as Kafka's ZK-mode
leaders did); only then does the native core get the new ISR (`set_isr`), so the high
watermark never advances over an ISR the store does not hold. A failed compare-and-set means
someone else (the controller) changed the partition: the broker reads the view again, and if
it was deposed it becomes a follower there. The changes one check finds are written together,
pipelined (Kafka's leaders batch theirs into one AlterPartition): after a follower restarts,
its leaders take it back into hundreds of ISRs in a few round trips.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Protocol

from ferrolog.controller.cluster.election import eligibility, with_isr
from ferrolog.controller.cluster.isr import FollowerProgress, next_isr
from ferrolog.native_calls import native_call

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.config import BrokerConfig
    from ferrolog.controller.cluster.replica_manager import ReplicaManager
    from ferrolog.controller.cluster.stats import ClusterStats
    from ferrolog.controller.store.base import PartitionState
    from ferrolog.controller.store.view import ClusterView
    from ferrolog.controller.store.zookeeper import ZkStore

log = logging.getLogger(__name__)


class ViewHolder(Protocol):
    view: ClusterView

    def mark_dirty(self) -> None: ...


class IsrManager:
    def __init__(
        self,
        store: ZkStore,
        config: BrokerConfig,
        replicas: ReplicaManager,
        native: ferrolog_native.Server,
        node_id: int,
        holder: ViewHolder,
        stats: ClusterStats,
    ) -> None:
        self._store = store
        self._replicas = replicas
        self._native = native
        self._node_id = node_id
        self._holder = holder
        self._stats = stats
        self._config = config
        self._lag_ms = config.get_int("replica.lag.time.max.ms")
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="isr-manager")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        # Checked several times per lag period so a change lands well within it.
        interval = max(0.05, min(self._lag_ms / 4000, 1.0))
        while True:
            await asyncio.sleep(interval)
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("ISR check failed node_id=%d: %r", self._node_id, exc)

    async def tick(self) -> None:
        led = self._replicas.leader_since_ms
        if not led:
            return
        view = self._holder.view
        partitions = await native_call(self._native.partition_states)
        progress = await native_call(self._native.replica_states)
        followers: dict[tuple[str, int], dict[int, FollowerProgress]] = {}
        for r in progress:
            followers.setdefault((r.topic, r.partition), {})[r.replica_id] = FollowerProgress(
                r.log_end_offset, r.last_caught_up_ms
            )
        now = int(time.time() * 1000)
        # A leader on an offline log directory decides nothing: its followers cannot fetch
        # from it, and shrinking the ISR to itself would leave the controller no replica to
        # move the leadership to.
        offline_dirs = set(self._native.offline_log_dirs())
        changes: list[tuple[str, int, PartitionState, PartitionState]] = []
        for ps in partitions:
            key = (ps.topic, ps.partition)
            since = led.get(key)
            state = view.state(ps.topic, ps.partition)
            topic = view.topics.get(ps.topic)
            if since is None or state is None or topic is None or ps.role != "leader":
                continue
            if ps.log_dir in offline_dirs:
                continue
            if state.leader != self._node_id or state.leader_epoch != ps.leader_epoch:
                continue
            wanted = next_isr(
                state.isr,
                topic.assignment.get(ps.partition, []),
                self._node_id,
                followers.get(key, {}),
                ps.high_watermark,
                now,
                self._lag_ms,
                since,
            )
            # Only a registered broker joins (as KIP-841's leaders refuse fenced ones): one
            # whose session expired may still fetch, but the controller takes every broker
            # it does not see alive out again, and the two would rewrite the ISR every tick.
            # Nor does a follower on an offline log directory (the controller took it out),
            # even if it looked caught up when it stopped.
            wanted = [
                b
                for b in wanted
                if b in state.isr
                or (b in view.brokers and key not in view.offline_replicas.get(b, ()))
            ]
            if wanted != list(state.isr):
                elr = eligibility(
                    view.features.levels,
                    self._config.topic_config(topic.configs),
                    topic.assignment.get(ps.partition, []),
                )
                changes.append((ps.topic, ps.partition, state, with_isr(state, wanted, elr)))
        if changes:
            await self._apply(view, changes)

    async def _apply(
        self, view: ClusterView, changes: list[tuple[str, int, PartitionState, PartitionState]]
    ) -> None:
        """Writes every change of one tick at once (store first), then gives the ones written
        to the native core."""
        written = await self._store.update_partition_states(
            [(t, p, decided, state.version) for t, p, state, decided in changes]
        )
        applied = []
        for (t, p, state, decided), new in zip(changes, written, strict=True):
            wanted = list(decided.isr)
            if new is None:  # someone else (the controller) changed the partition
                self._holder.mark_dirty()
                continue
            # The next view read would bring it too; patching now keeps the next tick from
            # writing against a stale version.
            view.states.setdefault(t, {})[p] = new
            applied.append((t, p, state, wanted, new.version))
        failed = await native_call(self._set_isrs, applied)
        for (t, p, state, wanted, version), error in zip(applied, failed, strict=True):
            if error is not None:
                log.warning("set ISR failed topic=%s partition=%d: %r", t, p, error)
                continue
            self._replicas.note_isr(t, p, wanted, version)
            self._stats.count_isr_change(state.isr, wanted)
            log.info("ISR changed topic=%s partition=%d isr=%s -> %s", t, p, state.isr, wanted)

    def _set_isrs(
        self, applied: list[tuple[str, int, PartitionState, list[int], int]]
    ) -> list[Exception | None]:
        """In one worker thread: `set_isr` for each written change, its error if any (one
        partition's failure must not keep the others' ISR from the native core)."""
        out: list[Exception | None] = []
        for t, p, state, wanted, _ in applied:
            try:
                self._native.set_isr(t, p, wanted, state.leader_epoch)
                out.append(None)
            except Exception as exc:
                out.append(exc)
        return out
