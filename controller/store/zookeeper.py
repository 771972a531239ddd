"""`ZkStore`: the cluster-mode metadata store over ZooKeeper (kazoo), plus the primitives the
cluster needs beyond `MetadataStore`: ephemeral broker registration, controller election with
an epoch that fences a deposed controller, whole-cluster reads that re-arm watches, and the
admin request znodes.

The znodes are read and written by the `zk_*` modules, one per kind, in blocking kazoo
calls; this class runs them on its own threads (`_call`), keeps the session and the watches,
and holds the controller epoch's version that fences the controller's writes (`zk_fenced`).

Threading: kazoo runs its own threads. Kazoo callbacks (watches, session state) never touch
our state themselves, they hop onto the event loop with `loop.call_soon_threadsafe`.

Watches are one-shot in ZooKeeper. `read_view` passes one watcher function to every read, so
each full read re-arms a watch on everything it looked at; any change fires the watcher, which
calls the `on_change` callback (the broker then reads the view again). Kazoo keeps watchers in
a set per path, so re-arming with the same function does not multiply them. The partition
states of the last watched read are kept, and the next watched read re-reads only those whose
watch fired since (or all of them after a connection state change, which may have lost
watches, and every `FULL_READ_S` regardless): with thousands of partitions, a burst of ISR
changes would otherwise have every broker read every state again after each change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ferrolog.timeouts import bounded
from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import NodeExistsError
from kazoo.protocol.states import WatchedEvent

from ..acl.model import AclChanges, AclTable
from ..tokens.model import TokenInfo
from . import (
    zk_acls,
    zk_brokers,
    zk_configs,
    zk_features,
    zk_fenced,
    zk_requests,
    zk_tokens,
    zk_topics,
)
from . import zk_paths as paths
from .base import (
    BadVersionError,
    BrokerRegistration,
    FinalizedFeatures,
    MetadataStore,
    PartitionState,
    TopicRecord,
)
from .entities import DEFAULT_ENTITY, ConfigChanges, EntityChanges, EntityConfigs, EntityType
from .local import new_cluster_id
from .view import ClusterView, TopicPartition
from .zk_tokens import TokenChanges
from .zk_view import KnownStates, read_brokers, read_features, read_topic_states, read_view

log = logging.getLogger(__name__)
T = TypeVar("T")

# A watched read re-reads every partition state at least this often, in case a change was
# not seen (it should not happen; this bounds the harm if it does).
FULL_READ_S = 30.0
_UNSEEN: dict[str, Any] = {"configs": False, "acls": None, "tokens": False}


class ZkStore(MetadataStore):
    def __init__(
        self,
        connect: str,
        session_timeout_ms: int = 18000,
        connection_timeout_ms: int | None = None,
    ) -> None:
        self._connect = connect
        self._session_timeout = session_timeout_ms / 1000
        self._connection_timeout = (connection_timeout_ms or session_timeout_ms) / 1000
        self._client: KazooClient | None = None
        self._cluster_id = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_change: Callable[[], None] | None = None
        self._on_session: Callable[[str], None] | None = None
        # Version of /controller_epoch written by our own election: the fencing token.
        self.controller_epoch_zk_version: int | None = None
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="zk")
        # The states of the last watched read, and the paths whose watch fired since: the
        # watcher runs on kazoo's thread, reads on the pool's, hence the lock. `_generation`
        # moves on every connection state change, so a read that straddles one keeps nothing.
        self._lock = threading.Lock()
        self._known: dict[str, tuple[PartitionState, int]] = {}
        self._changed: set[str] = set()
        self._generation = 0
        self._full_read_at = 0.0
        # The newest change notifications each of `config_changes`, `acl_changes` and
        # `token_changes` processed: `_UNSEEN` (read everything next time) at first and after a
        # connection state change, when a notification may have expired unseen.
        self._seen: dict[str, Any] = dict(_UNSEEN)

    @property
    def client(self) -> KazooClient:
        if self._client is None:
            raise RuntimeError("ZkStore is not started")
        return self._client

    def session_id(self) -> int:
        sid = self.client.client_id
        return int(sid[0]) if sid else 0

    def set_callbacks(
        self, on_change: Callable[[], None], on_session: Callable[[str], None]
    ) -> None:
        """`on_change()` after any watched znode changes; `on_session(state)` on session state
        changes ("LOST", "SUSPENDED", "CONNECTED"). Both run on the event loop."""
        self._on_change = on_change
        self._on_session = on_session

    def _watcher(self, event: WatchedEvent | None = None) -> None:
        if event is not None:
            with self._lock:
                self._changed.add(event.path)
        if self._loop is not None and self._on_change is not None:
            self._loop.call_soon_threadsafe(self._on_change)

    def _state_listener(self, state: str) -> None:
        with self._lock:
            self._generation += 1
            self._known = {}
            self._seen = dict(_UNSEEN)
        if self._loop is not None and self._on_session is not None:
            self._loop.call_soon_threadsafe(self._on_session, str(state))
        if state == KazooState.CONNECTED:
            self._watcher()

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        client = KazooClient(hosts=self._connect, timeout=self._session_timeout)
        client.add_listener(self._state_listener)
        self._client = client
        await self._call(
            lambda: client.start(self._connection_timeout), self._connection_timeout + 1
        )
        await self._call(self._init_tree)

    def _init_tree(self) -> None:
        client = self.client
        for root in paths.PERSISTENT_ROOTS:
            client.ensure_path(root)
        with contextlib.suppress(NodeExistsError):
            client.create(paths.CLUSTER_ID, paths.encode_cluster_id(new_cluster_id()))
        data, _ = client.get(paths.CLUSTER_ID)
        self._cluster_id = paths.decode_cluster_id(data)

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            # Not through `_call`: the pool may be stuck in calls waiting for a lost server;
            # stopping the client fails them.
            await asyncio.to_thread(client.stop)
            await asyncio.to_thread(client.close)
            self._pool.shutdown(wait=False, cancel_futures=True)

    async def cluster_id(self) -> str:
        return self._cluster_id

    async def _call(self, fn: Callable[[], T], limit_s: float | None = None) -> T:
        """Runs a blocking kazoo call on the store's own threads, bounded in time: kazoo waits
        forever for a server that is gone, and that must neither stall the caller nor take
        the threads the native partition commands run on."""
        loop = asyncio.get_running_loop()
        return await bounded(loop.run_in_executor(self._pool, fn), limit_s or self._session_timeout)

    # Reads

    async def topics(self) -> dict[str, TopicRecord]:
        return (await self.read_view(watch=False)).topics

    async def partition_states(self, name: str) -> dict[int, PartitionState]:
        # Only this topic's znodes: a broker starting reads every topic's states this way.
        return await self._call(lambda: read_topic_states(self.client, name))

    async def brokers(self) -> dict[int, BrokerRegistration]:
        # Only /brokers/ids: topic placement asks for every topic it creates, and the whole
        # view is one read per partition of the cluster.
        return await self._call(lambda: read_brokers(self.client, None)[0])

    async def read_view(self, watch: bool = True) -> ClusterView:
        if not watch:
            return await self._call(lambda: read_view(self.client, None))
        return await self._call(self._watched_read)

    def _watched_read(self) -> ClusterView:
        now = time.monotonic()
        with self._lock:
            changed, self._changed = self._changed, set()
            generation = self._generation
            known: KnownStates = {}
            if now - self._full_read_at < FULL_READ_S:
                known = {p: s for p, s in self._known.items() if p not in changed}
        view = read_view(self.client, self._watcher, known)
        read = {
            paths.state_path(name, partition): (state, view.state_zxids.get((name, partition), 0))
            for name, states in view.states.items()
            for partition, state in states.items()
        }
        with self._lock:
            # Paths whose watch fires from now on are in the new `_changed`, for the next read.
            self._known = read if generation == self._generation else {}
            if not known:
                self._full_read_at = now
        return view

    # Config entities: client quotas, SCRAM credentials, dynamic broker configs and group
    # configs (any broker writes them; every broker watches the change notifications)

    async def entity_configs(
        self, entity_type: EntityType, names: Collection[str] | None = None
    ) -> EntityConfigs:
        return await self._call(lambda: zk_configs.read_entities(self.client, entity_type, names))

    async def alter_entity_configs(self, entity_type: EntityType, changes: EntityChanges) -> None:
        await self._call(lambda: zk_configs.alter_entities(self.client, entity_type, changes))

    async def config_changes(self, node_id: int) -> ConfigChanges | None:
        """What changed in the followed config entities (every client, user, ip and group,
        and of the brokers, the cluster default and `node_id`) since the last call (the first
        call, and the first after a connection state change, reads everything); None if
        nothing. Watches for the next change."""
        brokers = (DEFAULT_ENTITY, str(node_id))
        return await self._since_seen(
            "configs",
            lambda after: zk_configs.read_changes(self.client, self._watcher, after, brokers),
        )

    # ACLs (any broker writes them; every broker watches the change notifications)

    async def acls(self) -> AclTable:
        return await self._call(lambda: zk_acls.read_all(self.client))

    async def alter_acls(self, additions: AclChanges, removals: AclChanges) -> AclTable:
        return await self._call(lambda: zk_acls.alter(self.client, additions, removals))

    async def acl_changes(self) -> tuple[AclTable, bool] | None:
        """The ACLs of the resource patterns changed since the last call (and whether that is
        every ACL: the first call, and the first after a connection state change); None if
        nothing changed. Watches for the next change."""

        def read(seen: zk_acls.Seen | None) -> tuple[zk_acls.Seen, tuple[AclTable, bool] | None]:
            latest, changes, full = zk_acls.read_changes(self.client, self._watcher, seen)
            return latest, None if changes is None else (changes, full)

        return await self._since_seen("acls", read)

    # Delegation tokens (any broker writes them; every broker watches the change notifications)

    async def delegation_tokens(self) -> dict[str, TokenInfo]:
        return await self._call(lambda: zk_tokens.read_all(self.client))

    async def alter_delegation_token(self, token_id: str, token: TokenInfo | None) -> None:
        await self._call(lambda: zk_tokens.write(self.client, token_id, token))

    async def token_changes(self) -> tuple[TokenChanges, bool] | None:
        """As `acl_changes`, for delegation tokens."""

        def read(seen: str | bool | None) -> tuple[str | None, tuple[TokenChanges, bool] | None]:
            after = None if isinstance(seen, bool) else seen
            full = seen is False
            latest, changes = zk_tokens.read_changes(self.client, self._watcher, after, full)
            return latest, None if changes is None else (changes, full)

        return await self._since_seen("tokens", read)

    async def _since_seen(self, kind: str, read: Callable[[Any], tuple[Any, T]]) -> T:
        """`read(seen)` with the newest notification of `kind` seen so far; keeps the one it
        returns as seen, unless the connection state changed meanwhile."""

        def run() -> T:
            with self._lock:
                seen, generation = self._seen[kind], self._generation
            latest, result = read(seen)
            with self._lock:
                if generation == self._generation:
                    self._seen[kind] = latest
            return result

        return await self._call(run)

    # Finalized features: read by every broker (in each view), written by the controller only

    async def finalized_features(self) -> FinalizedFeatures:
        return await self._call(lambda: read_features(self.client, None))

    async def update_finalized_features(
        self, levels: Mapping[str, int], expected_epoch: int
    ) -> FinalizedFeatures:
        """Fenced compare-and-set of `/feature` on its version (the epoch)."""
        version = self.controller_epoch_zk_version
        return await self._call(
            lambda: zk_features.update(self.client, version, levels, expected_epoch)
        )

    async def enable_features(self) -> None:
        """`zk_features.enable`; controller only."""
        version = self.controller_epoch_zk_version
        await self._call(lambda: zk_features.enable(self.client, version))

    # Topic writes (any broker: the broker that takes CreateTopics writes the topic)

    async def create_topic(self, topic: TopicRecord, states: dict[int, PartitionState]) -> None:
        await self._call(lambda: zk_topics.create(self.client, topic, states))

    async def delete_topic(self, name: str) -> None:
        await self._call(lambda: zk_topics.delete(self.client, name))

    async def add_partitions(
        self, name: str, assignment: dict[int, list[int]], states: dict[int, PartitionState]
    ) -> None:
        await self._call(lambda: zk_topics.add_partitions(self.client, name, assignment, states))

    async def set_assignment(self, name: str, assignment: dict[int, list[int]]) -> None:
        """Replaces the topic's replica lists (reassignment; controller only)."""
        version = self.controller_epoch_zk_version
        await self._call(lambda: zk_topics.set_assignment(self.client, version, name, assignment))

    # Partition state writes

    async def update_partition_state(
        self, name: str, partition: int, state: PartitionState, expected_version: int
    ) -> PartitionState:
        """Plain compare-and-set on the state znode: a partition leader's ISR change."""
        [written] = await self.update_partition_states([(name, partition, state, expected_version)])
        if written is None:
            raise BadVersionError(f"{name}-{partition}: not version {expected_version}")
        return written

    async def update_partition_states(
        self, writes: Sequence[tuple[str, int, PartitionState, int]]
    ) -> list[PartitionState | None]:
        """Many plain compare-and-sets (`zk_topics.write_states`)."""
        return await self._call(lambda: zk_topics.write_states(self.client, writes))

    async def update_partition_state_fenced(
        self, name: str, partition: int, state: PartitionState, expected_version: int
    ) -> PartitionState:
        """The controller's write: compare-and-set that also fails once another controller has
        been elected (ControllerFencedError)."""
        [written] = await self.update_partition_states_fenced(
            [(name, partition, state, expected_version)]
        )
        if written is None:
            raise BadVersionError("state changed since it was read")
        return written

    async def update_partition_states_fenced(
        self, writes: Sequence[tuple[str, int, PartitionState, int]]
    ) -> list[PartitionState | None]:
        """Many controller writes at once (`zk_fenced.write_states`)."""
        version = self.controller_epoch_zk_version
        return await self._call(lambda: zk_fenced.write_states(self.client, version, writes))

    # Brokers and the controller

    async def register_broker(
        self, registration: BrokerRegistration, replace_stale: bool = False
    ) -> None:
        """Creates the ephemeral registration. One held by another session raises
        BrokerIdInUseError, unless `replace_stale` and it names this broker's own endpoint:
        the caller then knows the registrant is a previous process of this broker that died
        (it listens on that endpoint itself), whose registration would otherwise keep the
        broker out, and the controller unaware of the restart, until that session expires
        (`zookeeper.session.timeout.ms`). The controller sees the new registration's epoch
        and moves the leaderships of the old process, as for any bounced broker."""
        await self._call(
            lambda: zk_brokers.register(self.client, self.session_id(), registration, replace_stale)
        )

    async def try_become_controller(self, node_id: int) -> int | None:
        """Creates the ephemeral `/controller` node and bumps `/controller_epoch`; returns the
        new controller epoch, or None if another broker is the controller."""
        elected = await self._call(lambda: zk_brokers.elect(self.client, node_id))
        if elected is None:
            return None
        epoch, self.controller_epoch_zk_version = elected
        return epoch

    async def resign_controller(self, node_id: int, any_session: bool = True) -> bool:
        """Deletes `/controller` if it names `node_id`, so the brokers elect again; with
        `any_session` False only if this session holds it. True if it was deleted."""
        self.controller_epoch_zk_version = None
        return await self._call(
            lambda: zk_brokers.resign(self.client, self.session_id(), node_id, any_session)
        )

    # Requests to the controller (`zk_requests`)

    async def request_controlled_shutdown(self, node_id: int) -> None:
        await self._call(lambda: zk_requests.request_controlled_shutdown(self.client, node_id))

    async def report_offline_replicas(self, node_id: int, partitions: set[TopicPartition]) -> None:
        """A log directory of this broker went offline: publishes its replicas there (all of
        them so far) and notifies the controller as Kafka's brokers do
        (`/log_dir_event_notification`)."""
        await self._call(
            lambda: zk_requests.report_offline_replicas(
                self.client, self.session_id(), node_id, partitions
            )
        )

    async def complete_log_dir_events(self, names: Collection[str]) -> None:
        """The controller handled these notifications (Kafka's controller deletes them)."""
        await self._call(lambda: zk_requests.complete_log_dir_events(self.client, names))

    async def merge_reassignments(
        self, changes: dict[TopicPartition, list[int] | None]
    ) -> dict[TopicPartition, list[int]]:
        """Adds targets to the pending reassignments (None cancels one); returns what is
        pending."""

        def merge(pending: dict[TopicPartition, list[int]]) -> dict[TopicPartition, list[int]]:
            for key, target in changes.items():
                if target is None:
                    pending.pop(key, None)
                else:
                    pending[key] = list(target)
            return pending

        return await self._call(lambda: zk_requests.update_reassignments(self.client, merge))

    async def complete_reassignments(self, finished: dict[TopicPartition, list[int]]) -> None:
        """Removes the reassignments the controller finished (or dropped), each only while its
        target is still the one it worked on."""

        def settle(pending: dict[TopicPartition, list[int]]) -> dict[TopicPartition, list[int]]:
            return {k: t for k, t in pending.items() if finished.get(k) != t}

        await self._call(lambda: zk_requests.update_reassignments(self.client, settle))

    async def request_elections(
        self, partitions: set[TopicPartition], *, unclean: bool = False
    ) -> None:
        """Asks the controller for preferred-leader (or unclean) elections of `partitions`."""
        await self._call(
            lambda: zk_requests.update_elections(
                self.client, unclean, lambda pending: pending | partitions
            )
        )

    async def complete_elections(self, done: set[TopicPartition], *, unclean: bool = False) -> None:
        await self._call(
            lambda: zk_requests.update_elections(
                self.client, unclean, lambda pending: pending - done
            )
        )

    async def allocate_producer_ids(self, count: int) -> int:
        if count < 1:
            raise ValueError("count must be positive")

        return await self._call(lambda: zk_requests.allocate_producer_ids(self.client, count))
