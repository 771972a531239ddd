"""The broker side of partition decisions: applies the controller's layout and leadership to
the local native core (`open_partition`, `become_leader`, ...).

Native partition commands can be slow (opening a log runs recovery) and release the GIL, so
they run on worker threads: the event loop keeps serving other connections meanwhile."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ferrolog.controller.cluster.election import NO_LEADER
from ferrolog.controller.store.base import BrokerRegistration, PartitionState, TopicRecord
from ferrolog.controller.store.view import ClusterView
from ferrolog_native import KafkaNativeError

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.config import BrokerConfig

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RoleChange:
    topic: str
    partition: int
    leader: bool  # True: this broker became the leader; False: it stopped leading
    leader_epoch: int


class ReplicaManager:
    def __init__(self, native: ferrolog_native.Server, config: BrokerConfig, node_id: int) -> None:
        self._native = native
        self._config = config
        self._node_id = node_id
        # Cluster mode bookkeeping: what has been applied to the native core.
        self.brokers: dict[int, BrokerRegistration] = {}
        self._opened: dict[tuple[str, int], bytes] = {}  # -> topic id
        self._roles: dict[tuple[str, int], tuple[int, int]] = {}  # -> (leader, leader epoch)
        # ISR given to native when leading, with the state version it came from: views are
        # read concurrently with the ISR manager's writes, so an older view must not undo a
        # newer ISR.
        self._isrs: dict[tuple[str, int], tuple[int, list[int]]] = {}
        self._configs: dict[str, dict[str, str]] = {}
        self.leader_since_ms: dict[tuple[str, int], int] = {}

    async def apply(self, topic: TopicRecord, partition: int, state: PartitionState) -> None:
        """Brings the local replica of `topic`-`partition` in line with `state`."""
        replicas = topic.assignment[partition]
        if self._node_id not in replicas:
            return
        resolved = self._config.resolve_topic_config(topic.configs)
        await asyncio.to_thread(
            self._native.open_partition, topic.name, partition, topic.topic_id, resolved
        )
        if state.leader == self._node_id:
            await asyncio.to_thread(
                self._native.become_leader,
                topic.name,
                partition,
                state.leader_epoch,
                list(state.isr),
                list(replicas),
            )
        else:
            # Following needs the replica fetcher (cluster mode); until then the replica
            # stays open with no role and serves nothing.
            log.warning(
                "not leader of local replica topic=%s partition=%d leader=%d",
                topic.name,
                partition,
                state.leader,
            )

    async def delete(self, topic: TopicRecord) -> None:
        for partition, replicas in sorted(topic.assignment.items()):
            if self._node_id in replicas:
                await asyncio.to_thread(self._native.delete_partition, topic.name, partition)

    async def update_config(self, topic: TopicRecord) -> None:
        if any(self._node_id in replicas for replicas in topic.assignment.values()):
            resolved = self._config.resolve_topic_config(topic.configs)
            await asyncio.to_thread(self._native.update_topic_config, topic.name, resolved)

    # Cluster mode: the local replicas follow the cluster view.

    async def sync(self, view: ClusterView, registered_zxid: int | None) -> list[RoleChange]:
        """Brings every local replica in line with `view` and returns the leadership changes.

        A leadership is taken on only if its state was written after this broker's current
        registration (`registered_zxid`): a state naming this broker from before is a term of
        a previous process (or of a session that expired), which the controller replaces with
        a new epoch. Following is always safe: the follower truncates against its leader."""
        changes: list[RoleChange] = []
        self.brokers = dict(view.brokers)
        wanted: dict[tuple[str, int], bytes] = {}
        for name, topic in view.topics.items():
            for partition, replicas in topic.assignment.items():
                if self._node_id in replicas:
                    wanted[(name, partition)] = topic.topic_id
        for key, topic_id in sorted(self._opened.items()):
            if wanted.get(key) != topic_id:
                await self._drop(key, changes)
        for name, topic in sorted(view.topics.items()):
            if self._configs.get(name) not in (None, topic.configs) and any(
                k[0] == name for k in self._opened
            ):
                await self.update_config(topic)
            self._configs[name] = dict(topic.configs)
            for partition, replicas in sorted(topic.assignment.items()):
                state = view.state(name, partition)
                if state is None or self._node_id not in replicas:
                    continue
                key = (name, partition)
                if key not in self._opened:
                    resolved = self._config.resolve_topic_config(topic.configs)
                    await asyncio.to_thread(
                        self._native.open_partition, name, partition, topic.topic_id, resolved
                    )
                    self._opened[key] = topic.topic_id
                fresh = registered_zxid is not None and (
                    view.state_zxids.get(key, 0) > registered_zxid
                )
                try:
                    await self._take_role(key, replicas, state, fresh, changes)
                except Exception as exc:  # one bad partition must not stall the others
                    log.warning(
                        "applying role failed topic=%s partition=%d: %r", name, partition, exc
                    )
        for name in list(self._configs):
            if name not in view.topics:
                del self._configs[name]
        return changes

    async def _take_role(
        self,
        key: tuple[str, int],
        replicas: list[int],
        state: PartitionState,
        fresh: bool,
        changes: list[RoleChange],
    ) -> None:
        name, partition = key
        applied = self._roles.get(key)
        if applied == (state.leader, state.leader_epoch):
            version, isr = self._isrs.get(key, (-1, []))
            if state.leader == self._node_id and state.version > version and isr != state.isr:
                await asyncio.to_thread(
                    self._native.set_isr, name, partition, list(state.isr), state.leader_epoch
                )
                self._isrs[key] = (state.version, list(state.isr))
            return
        if applied is not None and applied[1] > state.leader_epoch:
            return  # an older view than one already applied
        if state.leader == self._node_id:
            if not fresh:
                return
            await asyncio.to_thread(
                self._native.become_leader,
                name,
                partition,
                state.leader_epoch,
                list(state.isr),
                list(replicas),
            )
            self.leader_since_ms[key] = int(time.time() * 1000)
            self._isrs[key] = (state.version, list(state.isr))
            changes.append(RoleChange(name, partition, True, state.leader_epoch))
        elif state.leader != NO_LEADER and state.leader in self.brokers:
            leader = self.brokers[state.leader]
            try:
                await asyncio.to_thread(
                    self._native.become_follower,
                    name,
                    partition,
                    state.leader_epoch,
                    state.leader,
                    leader.host,
                    leader.port,
                    list(replicas),
                )
            except KafkaNativeError as exc:
                log.warning(
                    "become_follower refused topic=%s partition=%d: %s", name, partition, exc
                )
                return
            was_leader = applied is not None and applied[0] == self._node_id
            self.leader_since_ms.pop(key, None)
            if was_leader or applied is None:
                changes.append(RoleChange(name, partition, False, state.leader_epoch))
        else:
            return  # no leader to follow yet: keep the current role until there is one
        self._roles[key] = (state.leader, state.leader_epoch)
        log.info(
            "replica role topic=%s partition=%d leader=%d epoch=%d isr=%s",
            name,
            partition,
            state.leader,
            state.leader_epoch,
            state.isr,
        )

    async def _drop(self, key: tuple[str, int], changes: list[RoleChange]) -> None:
        name, partition = key
        if self._roles.get(key, (NO_LEADER, 0))[0] == self._node_id:
            changes.append(RoleChange(name, partition, False, -1))
        await asyncio.to_thread(self._native.delete_partition, name, partition)
        self._opened.pop(key, None)
        self._roles.pop(key, None)
        self._isrs.pop(key, None)
        self.leader_since_ms.pop(key, None)

    def note_isr(self, topic: str, partition: int, isr: list[int], version: int) -> None:
        """The ISR manager changed the ISR of a partition led here (store, then native)."""
        self._isrs[(topic, partition)] = (version, list(isr))
