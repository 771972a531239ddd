"""The active controller: runs on the one broker that holds `/controller`.

It is level-triggered: `reconcile(view)` looks at the whole cluster view and writes whatever
state should differ (failed or bounced leaders, dead followers still in an ISR, controlled
shutdowns, requested preferred-leader and unclean elections, reassignments). It runs after
every change the broker sees and periodically, so a coalesced watch or a failed write is
retried by the next pass rather than remembered.

Every write is fenced by the controller epoch (`ZkStore.update_partition_state_fenced`); a
fenced write means another controller was elected, and this one stops acting.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from ferrolog.controller.cluster import election, reassignment
from ferrolog.controller.cluster.election import ElectionType
from ferrolog.controller.store.base import PartitionState
from ferrolog.controller.store.zk_fenced import ControllerFencedError

if TYPE_CHECKING:
    from ferrolog.config import BrokerConfig
    from ferrolog.controller.cluster.stats import ClusterStats
    from ferrolog.controller.store.view import ClusterView, TopicPartition
    from ferrolog.controller.store.zookeeper import ZkStore

log = logging.getLogger(__name__)


class ActiveController:
    def __init__(
        self, store: ZkStore, config: BrokerConfig, node_id: int, epoch: int, stats: ClusterStats
    ) -> None:
        self._store = store
        self._config = config
        self.node_id = node_id
        self.epoch = epoch
        self.fenced = False
        self._stats = stats

    async def reconcile(self, view: ClusterView) -> bool:
        """One pass; returns True if it wrote anything (the caller reads the view again)."""
        try:
            wrote = await self._enable_features(view)
            wrote = await self._elections(view) or wrote
            wrote = await self._log_dir_events(view) or wrote
            wrote = await self._requested(view, ElectionType.PREFERRED) or wrote
            wrote = await self._requested(view, ElectionType.UNCLEAN) or wrote
            wrote = await self._reassign(view) or wrote
            return wrote
        except ControllerFencedError:
            log.warning("controller fenced node_id=%d epoch=%d", self.node_id, self.epoch)
            self.fenced = True
            return False

    async def _enable_features(self, view: ClusterView) -> bool:
        """Creates (or enables) `/feature` if the view has none, as Kafka's ZooKeeper-mode
        controller does when elected: the brokers then report epoch 0, not -1 (unknown)."""
        if view.features.epoch >= 0:
            return False
        await self._store.enable_features()
        log.info("controller enabled the finalized features node_id=%d", self.node_id)
        return True

    async def _write(self, topic: str, partition: int, state: PartitionState, old: int) -> bool:
        """Whether the state was written; False when it changed under us (the change fires a
        watch, so the next pass sees it)."""
        return bool(await self._write_all([(topic, partition, state, old)]))

    async def _write_all(
        self, writes: list[tuple[str, int, PartitionState, int]]
    ) -> set[TopicPartition]:
        """Writes many decided states at once (pipelined); returns the partitions written.
        The others changed under us, which fires a watch, so the next pass sees them."""
        if not writes:
            return set()
        written = await self._store.update_partition_states_fenced(writes)
        done = set()
        for (topic, partition, state, _), result in zip(writes, written, strict=True):
            if result is None:
                continue
            done.add((topic, partition))
            log.info(
                "controller wrote topic=%s partition=%d leader=%d epoch=%d isr=%s",
                topic,
                partition,
                state.leader,
                state.leader_epoch,
                state.isr,
            )
        return done

    def _count_elections(
        self,
        writes: list[tuple[str, int, PartitionState, int]],
        view: ClusterView,
        written: set[TopicPartition],
        started: float,
    ) -> None:
        """One election (Kafka's LeaderElectionRateAndTimeMs, which times each controller
        event that elects leaders) for a pass that gave a partition a leader in a new term,
        timed from the pass's start to its writes being done; shrinking an ISR or taking a
        partition offline elects nobody."""
        for topic, partition, state, _ in writes:
            old = view.state(topic, partition)
            if (
                (topic, partition) in written
                and state.leader >= 0
                and (old is None or state.leader_epoch > old.leader_epoch)
            ):
                self._stats.count_elections((time.monotonic() - started) * 1000)
                return

    def _eligibility(
        self,
        view: ClusterView,
        config: Mapping[str, str],
        replicas: list[int],
        restarted: Collection[int] = (),
    ) -> election.Eligibility | None:
        """KIP-966 for one partition of a topic of effective config `config`; `restarted`: its
        replicas whose registration is newer than its state (the ones whose unclean shutdown
        it has not taken in yet)."""
        return election.eligibility(
            view.features.levels,
            config,
            replicas,
            [b for b in restarted if view.brokers[b].unclean_shutdown],
        )

    async def _elections(self, view: ClusterView) -> bool:
        started = time.monotonic()
        live = set(view.brokers)
        writes: list[tuple[str, int, PartitionState, int]] = []
        configs: dict[str, Mapping[str, str]] = {}  # each topic's, worked out once a pass
        for topic, partition, replicas, state in view.partitions():
            config = configs.get(topic.name)
            if config is None:
                config = configs[topic.name] = self._config.topic_config(topic.configs)
            zxid = view.state_zxids.get((topic.name, partition), 0)
            # A replica whose registration is newer than the state restarted since: a leader's
            # term, and a follower's place in the ISR, belong to the previous process.
            restarted = [b for b in replicas if b in live and view.broker_epochs.get(b, 0) > zxid]
            bounced = [b for b in restarted if b == state.leader or b in state.isr]
            decided = election.failover(
                state,
                replicas,
                # A replica on an offline log directory is as good as dead for its partition.
                view.online(topic.name, partition, live),
                avoid=view.shutting_down,
                bounced=bounced,
                unclean_allowed=config["unclean.leader.election.enable"].lower() == "true",
                controller_epoch=self.epoch,
                elr=self._eligibility(view, config, replicas, restarted),
            )
            if decided is not None:
                writes.append((topic.name, partition, decided, state.version))
        self._count_elections(writes, view, await self._write_all(writes), started)
        return bool(writes)

    async def _log_dir_events(self, view: ClusterView) -> bool:
        """Settles the log directory notifications in the view: `_elections`, in the same
        pass, already moved leaders and ISRs off the replicas they made offline (the view
        reads the notifications before the offline replicas, which the broker writes first)."""
        if not view.log_dir_events:
            return False
        for broker, replicas in sorted(view.offline_replicas.items()):
            log.info(
                "controller: replicas offline on a failed log directory broker=%d partitions=%s",
                broker,
                sorted(replicas),
            )
        await self._store.complete_log_dir_events(view.log_dir_events)
        return True

    async def _requested(self, view: ClusterView, kind: ElectionType) -> bool:
        """ElectLeaders requests (preferred or unclean, KIP-460) found in their znode, decided
        by `election.requested`. A request is settled (taken off the znode) once decided; one
        whose state changed under the write stays for the next pass."""
        unclean = kind == ElectionType.UNCLEAN
        pending = view.unclean_elections if unclean else view.preferred_elections
        if not pending:
            return False
        started = time.monotonic()
        live = set(view.brokers)
        settled = set()
        writes: list[tuple[str, int, PartitionState, int]] = []
        for name, partition in sorted(pending):
            topic = view.topics.get(name)
            state = view.state(name, partition)
            if topic is not None and state is not None and partition in topic.assignment:
                decided = election.requested(
                    kind,
                    state,
                    topic.assignment[partition],
                    view.online(name, partition, live),
                    avoid=view.shutting_down,
                    controller_epoch=self.epoch,
                    elr=self._eligibility(
                        view,
                        self._config.topic_config(topic.configs),
                        topic.assignment[partition],
                    ),
                )
                if isinstance(decided, PartitionState):
                    writes.append((name, partition, decided, state.version))
                    continue
            settled.add((name, partition))
        written = await self._write_all(writes)
        self._count_elections(writes, view, written, started)
        settled |= written
        await self._store.complete_elections(settled, unclean=unclean)
        return True

    async def _reassign(self, view: ClusterView) -> bool:
        if not view.reassignments:
            return False
        live = set(view.brokers)
        remaining: dict[TopicPartition, list[int]] = {}
        layouts: dict[str, dict[int, list[int]]] = {}
        wrote = False
        for (name, partition), target in sorted(view.reassignments.items()):
            topic = view.topics.get(name)
            state = view.state(name, partition)
            if topic is None or state is None or partition not in topic.assignment:
                continue
            current = topic.assignment[partition]
            assignment, moved, done = reassignment.step(current, target, state, live, self.epoch)
            if assignment is not None and not done:
                # Growing: the replicas first, then the epoch that makes brokers act on them.
                await self._store.set_assignment(name, {**topic.assignment, partition: assignment})
                if moved is not None:
                    await self._write(name, partition, moved, state.version)
                wrote = True
                remaining[(name, partition)] = target
                continue
            # Cutting over: leadership and ISR inside the target first, then the replicas.
            if moved is not None and not await self._write(name, partition, moved, state.version):
                remaining[(name, partition)] = target  # the state changed: decide again
                wrote = True
                continue
            if assignment is not None:
                layouts.setdefault(name, dict(topic.assignment))[partition] = assignment
            wrote = wrote or moved is not None or assignment is not None
            if not done:
                remaining[(name, partition)] = target
        for name, layout in sorted(layouts.items()):
            await self._store.set_assignment(name, layout)
        finished = {k: t for k, t in view.reassignments.items() if k not in remaining}
        if finished:
            await self._store.complete_reassignments(finished)
            wrote = True
        return wrote
