"""The broker side of partition decisions: applies the controller's layout and leadership to
the local native core (`open_partition`, `become_leader`, ...).

Native partition commands can be slow (opening a log runs recovery) and release the GIL, so
they run on worker threads: the event loop keeps serving other connections meanwhile."""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import ferrolog_native
from ferrolog.config.table import topic_configs_defaulting_to
from ferrolog.controller.cluster.election import NO_LEADER
from ferrolog.controller.store.base import BrokerRegistration, PartitionState, TopicRecord
from ferrolog.controller.store.view import ClusterView
from ferrolog.native_calls import native_call

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.config import BrokerConfig

log = logging.getLogger(__name__)

# One partition of `Server.open_partitions`: (topic, partition, topic id, role, leader epoch,
# leader id, leader host, leader port, ISR, replicas).
OpenRequest = tuple[str, int, bytes, str, int, int, str, int, list[int], list[int]]
Role = tuple[str, int, int, str, int, list[int], list[int]]
_NO_ROLE: Role = ("none", -1, -1, "", 0, [], [])
# The dynamic broker property the native core's log-directory mover is throttled by.
ALTER_LOG_DIRS_RATE = "replica.alter.log.dirs.io.max.bytes.per.second"


def _leader(state: PartitionState, replicas: list[int]) -> Role:
    return ("leader", state.leader_epoch, state.leader, "", 0, list(state.isr), list(replicas))


def _follower(
    state: PartitionState, leader: BrokerRegistration, replicas: list[int], listener: str
) -> Role:
    """Follow `leader` at its endpoint on the inter-broker listener `listener`."""
    host, port = leader.address_on(listener)
    return ("follower", state.leader_epoch, state.leader, host, port, [], list(replicas))


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

    async def apply(self, layouts: Sequence[tuple[TopicRecord, dict[int, PartitionState]]]) -> None:
        """Single-node mode: opens the local replicas of every partition in `layouts` and makes
        this broker the leader of those it leads, in one native command (partitions load in
        parallel and each is served as soon as it is open). Raises the first failure, after
        every partition was tried."""
        requests: list[OpenRequest] = []
        configs: dict[str, dict[str, str]] = {}
        for topic, states in layouts:
            local = {p: s for p, s in states.items() if self._node_id in topic.assignment[p]}
            if local:
                configs[topic.name] = self._config.resolve_topic_config(topic.configs)
            for partition, state in sorted(local.items()):
                role = _NO_ROLE
                if state.leader == self._node_id:
                    role = _leader(state, topic.assignment[partition])
                else:
                    # Following needs the replica fetcher (cluster mode); until then the
                    # replica stays open with no role and serves nothing.
                    log.warning(
                        "not leader of local replica topic=%s partition=%d leader=%d",
                        topic.name,
                        partition,
                        state.leader,
                    )
                requests.append((topic.name, partition, topic.topic_id, *role))
        errors = [e for e in await self._open(configs, requests) if e is not None]
        if errors:
            raise errors[0]

    async def _open(
        self, configs: dict[str, dict[str, str]], requests: list[OpenRequest]
    ) -> list[Exception | None]:
        if not requests:
            return []
        return await native_call(self._native.open_partitions, configs, requests)

    async def delete(self, topic: TopicRecord) -> None:
        for partition, replicas in sorted(topic.assignment.items()):
            if self._node_id in replicas:
                await native_call(self._native.delete_partition, topic.name, partition)

    async def update_config(self, topic: TopicRecord) -> None:
        if any(self._node_id in replicas for replicas in topic.assignment.values()):
            resolved = self._config.resolve_topic_config(topic.configs)
            await native_call(self._native.update_topic_config, topic.name, resolved)

    async def apply_broker_defaults(self, topics: Iterable[TopicRecord], changed: set[str]) -> None:
        """The broker properties `changed` changed at runtime (dynamic broker configs): gives
        the native core the new config of each local topic that takes one of them as the
        default of a topic config it does not override, in one worker thread; and the new
        rate of replicas moving between log directories."""
        if ALTER_LOG_DIRS_RATE in changed:
            rate = self._config.get(ALTER_LOG_DIRS_RATE)
            self._native.log_dirs.set_rate(int(rate) if rate is not None else None)
        affected = topic_configs_defaulting_to(changed)
        updates = {
            topic.name: self._config.resolve_topic_config(topic.configs)
            for topic in topics
            if affected - topic.configs.keys()
            and any(self._node_id in replicas for replicas in topic.assignment.values())
        }
        if not updates:
            return

        def push() -> None:
            for name, resolved in updates.items():
                try:
                    self._native.update_topic_config(name, resolved)
                except Exception as exc:  # not open here (yet): it opens with the new config
                    log.info("topic config not applied topic=%s: %r", name, exc)

        await native_call(push)
        log.info("new broker defaults applied to %d local topics", len(updates))

    def offline_partitions(self) -> set[tuple[str, int]]:
        """The local replicas on log directories an I/O error took offline (they stay so
        until the broker restarts, as in Kafka)."""
        dirs = set(self._native.offline_log_dirs())
        if not dirs:
            return set()
        states = self._native.partition_states()
        return {(s.topic, s.partition) for s in states if s.log_dir in dirs}

    # Cluster mode: the local replicas follow the cluster view.

    async def sync(
        self,
        view: ClusterView,
        registered_zxid: int | None,
        offline: Collection[tuple[str, int]] = (),
    ) -> list[RoleChange]:
        """Brings every local replica in line with `view` and returns the leadership changes.

        A leadership is taken on only if its state was written after this broker's current
        registration (`registered_zxid`): a state naming this broker from before is a term of
        a previous process (or of a session that expired), which the controller replaces with
        a new epoch. Following is always safe: the follower truncates against its leader.

        Replicas in `offline` (on an offline log directory) are left as they are: they take no
        new role and are not deleted; the controller moves their leadership away."""
        changes: list[RoleChange] = []
        self.brokers = dict(view.brokers)
        wanted: dict[tuple[str, int], bytes] = {}
        for name, topic in view.topics.items():
            for partition, replicas in topic.assignment.items():
                if self._node_id in replicas:
                    wanted[(name, partition)] = topic.topic_id
        for key, topic_id in sorted(self._opened.items()):
            if wanted.get(key) != topic_id and key not in offline:
                await self._drop(key, changes)
        requests: list[OpenRequest] = []
        planned: list[tuple[tuple[str, int], Role | None, int]] = []
        configs: dict[str, dict[str, str]] = {}
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
                if key in offline:
                    continue
                fresh = registered_zxid is not None and (
                    view.state_zxids.get(key, 0) > registered_zxid
                )
                role = await self._role_for(key, replicas, state, fresh)
                if role is None and key in self._opened:
                    continue
                if name not in configs:
                    configs[name] = self._config.resolve_topic_config(topic.configs)
                requests.append((name, partition, topic.topic_id, *(role or _NO_ROLE)))
                planned.append((key, role, state.version))
        # One native command opens every new replica (in parallel) and applies every role.
        for (key, role, version), error, request in zip(
            planned, await self._open(configs, requests), requests, strict=True
        ):
            if error is not None:
                # One bad partition must not stall the others; the next sync retries it.
                log.warning("applying role failed topic=%s partition=%d: %r", *key, error)
                continue
            self._opened[key] = request[2]
            if role is not None:
                self._record_role(key, role, version, changes)
        for name in list(self._configs):
            if name not in view.topics:
                del self._configs[name]
        return changes

    async def _role_for(
        self, key: tuple[str, int], replicas: list[int], state: PartitionState, fresh: bool
    ) -> Role | None:
        """The role `state` asks this broker to take for `key`, or None to keep the current
        one (updating the ISR of a partition it already leads, if that changed)."""
        name, partition = key
        applied = self._roles.get(key)
        if applied == (state.leader, state.leader_epoch):
            version, isr = self._isrs.get(key, (-1, []))
            if state.leader == self._node_id and state.version > version and isr != state.isr:
                await native_call(
                    self._native.set_isr, name, partition, list(state.isr), state.leader_epoch
                )
                self._isrs[key] = (state.version, list(state.isr))
            return None
        if applied is not None and applied[1] > state.leader_epoch:
            return None  # an older view than one already applied
        if state.leader == self._node_id:
            if not fresh:
                return None
            return _leader(state, replicas)
        if state.leader != NO_LEADER and state.leader in self.brokers:
            listener = self._config.inter_broker_listener_name
            return _follower(state, self.brokers[state.leader], replicas, listener)
        return None  # no leader to follow yet: keep the current role until there is one

    def _record_role(
        self, key: tuple[str, int], role: Role, version: int, changes: list[RoleChange]
    ) -> None:
        """Bookkeeping once the native core took `role` (from a state at `version`)."""
        name, partition = key
        kind, leader_epoch, leader = role[0], role[1], role[2]
        applied = self._roles.get(key)
        if kind == "leader":
            self.leader_since_ms[key] = int(time.time() * 1000)
            self._isrs[key] = (version, list(role[5]))
            changes.append(RoleChange(name, partition, True, leader_epoch))
        else:
            was_leader = applied is not None and applied[0] == self._node_id
            self.leader_since_ms.pop(key, None)
            if was_leader or applied is None:
                changes.append(RoleChange(name, partition, False, leader_epoch))
        self._roles[key] = (leader, leader_epoch)
        log.info(
            "replica role topic=%s partition=%d leader=%d epoch=%d",
            name,
            partition,
            leader,
            leader_epoch,
        )

    async def _drop(self, key: tuple[str, int], changes: list[RoleChange]) -> None:
        name, partition = key
        if self._roles.get(key, (NO_LEADER, 0))[0] == self._node_id:
            changes.append(RoleChange(name, partition, False, -1))
        await native_call(self._native.delete_partition, name, partition)
        self._opened.pop(key, None)
        self._roles.pop(key, None)
        self._isrs.pop(key, None)
        self.leader_since_ms.pop(key, None)

    def note_isr(self, topic: str, partition: int, isr: list[int], version: int) -> None:
        """The ISR manager changed the ISR of a partition led here (store, then native)."""
        self._isrs[(topic, partition)] = (version, list(isr))
