"""`ClusterMember`: what every broker does in cluster mode (ZooKeeper).

- keeps its ephemeral registration `/brokers/ids/<id>` (again after a session expiry);
- reads the cluster view after every watched change (and every `RESYNC_S` as a backstop),
  hands it to the `ZkController` (its cache, and admin requests awaiting an outcome) and to
  the `ReplicaManager` (leader and follower roles of local replicas), and tells coordinators
  about leadership;
- competes for `/controller` and, while it holds it, runs the `ActiveController`;
- runs the ISR manager for the partitions it leads;
- on shutdown, asks the controller to move its leaderships away first (controlled shutdown).

How a broker learns leadership: from the partition state znodes it watches (the controller
sends no requests). A broker that lost its session (paused past the session timeout) keeps
its native roles until it reads the new states, but by then its followers follow the new
leader: its high watermark cannot advance, its ISR writes fail compare-and-set (which makes it
read the view and step down), so acks=all writes it takes are never acknowledged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from ferrolog.controller.cluster.active import ActiveController
from ferrolog.controller.cluster.isr_manager import IsrManager
from ferrolog.controller.cluster.stats import ClusterStats
from ferrolog.controller.store.view import ClusterView
from ferrolog.controller.store.zk_brokers import BrokerIdInUseError
from ferrolog.native_calls import native_call
from ferrolog.timeouts import wait_event

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.config import BrokerConfig
    from ferrolog.controller.cluster.replica_manager import ReplicaManager
    from ferrolog.controller.cluster.zk_controller import ZkController
    from ferrolog.controller.store.base import BrokerRegistration
    from ferrolog.controller.store.zookeeper import ZkStore

log = logging.getLogger(__name__)

RESYNC_S = 1.0
# Pause between two reads of the view, so a burst of watch events costs one read.
COALESCE_S = 0.02


class ClusterMember:
    def __init__(
        self,
        store: ZkStore,
        config: BrokerConfig,
        controller: ZkController,
        replicas: ReplicaManager,
        native: ferrolog_native.Server,
        registration: BrokerRegistration,
        replace_stale: bool = False,
    ) -> None:
        """`replace_stale`: this broker listens on its advertised endpoint itself, so a
        registration with that endpoint held by another session is its own previous,
        dead process's (see `ZkStore.register_broker`)."""
        self._store = store
        self._config = config
        self._controller = controller
        self._replicas = replicas
        self._registration = registration
        self._replace_stale = replace_stale
        self.node_id = registration.node_id
        self.view = ClusterView()
        self.active: ActiveController | None = None
        self._registered = False
        # The offline replicas published in this session (`/ferrolog/offline_replicas`).
        self._reported_offline: set[tuple[str, int]] = set()
        self._dirty = asyncio.Event()
        self._synced = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.stats = ClusterStats()
        self._isr = IsrManager(store, config, replicas, native, self.node_id, self, self.stats)
        controller.broker_configs.subscribe(
            lambda changed: replicas.apply_broker_defaults(controller.topics().values(), changed)
        )

    async def start(self) -> None:
        self._store.set_callbacks(self.mark_dirty, self._on_session)
        deadline = time.monotonic() + self._config.get_int("zookeeper.session.timeout.ms") / 500
        while True:
            try:
                await self._store.register_broker(self._registration, self._replace_stale)
                break
            except BrokerIdInUseError:
                # Our previous process's registration lives until its session times out.
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.25)
        self._registered = True
        log.info("registered broker node_id=%d", self.node_id)
        # Only the first registration speaks for how the previous process stopped; one after a
        # lost session follows no stop, and must not cost the replicas their eligibility.
        self._registration = replace(self._registration, unclean_shutdown=False)
        # The view goes to the controller cache now, so requests can be answered; the local
        # replicas load in the first sync of the loop, each served as soon as it is open.
        read_at = time.monotonic()
        self.view = await self._store.read_view()
        self._controller.replace_view(self.view, read_at)
        if self.view.controller_id == self.node_id:
            # Our previous process died as controller: let another broker take over now, not
            # once the first sync has opened every local replica (seconds with thousands).
            await self._release_stale_controller()
        self._dirty.set()
        self._task = asyncio.create_task(self._run(), name="cluster-member")
        self._isr.start()

    @property
    def registered(self) -> bool:
        """Whether this broker's registration is in ZooKeeper (not after a lost session until
        it registers again)."""
        return self._registered

    async def loaded(self) -> None:
        """Returns once a first sync applied the cluster view to the local replicas."""
        await self._synced.wait()

    def mark_dirty(self) -> None:
        self._dirty.set()

    def _on_session(self, state: str) -> None:
        log.info("zookeeper session state=%s node_id=%d", state, self.node_id)
        if state == "LOST":
            # Ephemeral nodes are gone: registration and controllership must be redone.
            self._registered = False
            self._reported_offline = set()  # the ephemeral node went with the session
            if self.active is not None:
                self.active.fenced = True
        self._dirty.set()

    async def _run(self) -> None:
        while True:
            await wait_event(self._dirty, RESYNC_S)
            await asyncio.sleep(COALESCE_S)
            self._dirty.clear()
            try:
                await self.sync()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # ZooKeeper unreachable for now: retry next round
                log.warning("cluster sync failed node_id=%d: %r", self.node_id, exc)
                await asyncio.sleep(0.2)
                self._dirty.set()

    async def sync(self) -> None:
        """Reads the view and acts on it (re-registration, roles, controller duties)."""
        if not self._registered:
            try:
                await self._store.register_broker(self._registration, self._replace_stale)
                self._registered = True
                log.info("re-registered broker node_id=%d", self.node_id)
            except BrokerIdInUseError:
                self._dirty.set()
        read_at = time.monotonic()
        view = await self._store.read_view()
        self.view = view
        self._controller.replace_view(view, read_at)
        configs = await self._store.config_changes(self.node_id)
        if configs is not None:
            # The broker configs before the replicas below open, so that they open with the
            # topic defaults.
            for manager in self._controller.entity_managers():
                await manager.update(configs)
        if self._controller.delegation_tokens.enabled:
            tokens = await self._store.token_changes()
            if tokens is not None:
                self._controller.delegation_tokens.update(*tokens)
        acls = await self._store.acl_changes()
        if acls is not None:
            self._controller.acls.update(*acls)
        registered = view.broker_epochs.get(self.node_id) if self._registered else None
        offline = await self._report_offline()
        changes = await self._replicas.sync(view, registered, offline)
        for change in changes:
            self._controller.notify_leadership(
                change.topic, change.partition, change.leader_epoch, change.leader
            )
        self._synced.set()
        await self._controller_duties(view)

    async def _report_offline(self) -> set[tuple[str, int]]:
        """The local replicas on offline log directories; new ones are published for the
        controller, which moves their leadership and ISR membership to other replicas (Kafka's
        LogDirFailureChannel: the broker keeps serving its other directories)."""
        offline = await native_call(self._replicas.offline_partitions)
        if self._registered and not offline <= self._reported_offline:
            offline |= self._reported_offline
            log.error(
                "log directory offline node_id=%d partitions=%s", self.node_id, sorted(offline)
            )
            await self._store.report_offline_replicas(self.node_id, offline)
            self._reported_offline = offline
        return offline

    async def _controller_duties(self, view: ClusterView) -> None:
        if self.active is not None and (self.active.fenced or view.controller_id != self.node_id):
            log.info("no longer controller node_id=%d", self.node_id)
            self.active = None
        if self.active is None and view.controller_id == self.node_id and self._registered:
            await self._release_stale_controller()
            return
        if self.active is None and view.controller_id == -1 and self._registered:
            epoch = await self._store.try_become_controller(self.node_id)
            if epoch is not None:
                log.info("became controller node_id=%d epoch=%d", self.node_id, epoch)
                self.active = ActiveController(
                    self._store, self._config, self.node_id, epoch, self.stats
                )
                self._dirty.set()  # read the view that names us, then reconcile
            return
        if self.active is not None and await self.active.reconcile(view):
            self._dirty.set()

    async def _release_stale_controller(self) -> None:
        """`/controller` names this broker, but no controller runs here: a pass was fenced
        (this session still holds the node), or a previous process of this broker died
        holding it. Left alone, no broker acts as controller until that session ends."""
        if await self._store.resign_controller(self.node_id, any_session=self._replace_stale):
            log.warning("released a stale /controller node_id=%d", self.node_id)
            self._dirty.set()

    async def controlled_shutdown(self, timeout_s: float) -> None:
        """Asks the controller to move this broker's leaderships to other in-sync replicas and
        waits (at most `timeout_s`) until it leads nothing another replica could lead.

        The controller never elects a broker that is itself shutting down, so replicas of
        brokers stopping at the same time do not count: when the whole cluster stops, nobody
        waits for a move that cannot happen."""
        await self._store.request_controlled_shutdown(self.node_id)
        self._dirty.set()
        started = time.monotonic()

        def moved() -> bool:
            view = self.view
            return not any(
                s.leader == self.node_id
                and any(
                    b in view.brokers and b not in view.shutting_down
                    for b in s.isr
                    if b != self.node_id
                )
                for _, _, _, s in view.partitions()
            )

        if await self._controller.wait_for_view(moved, timeout_s):
            log.info(
                "controlled shutdown: leaderships moved node_id=%d in %.1fs",
                self.node_id,
                time.monotonic() - started,
            )
        else:
            log.warning("controlled shutdown timed out node_id=%d", self.node_id)

    async def stop(self) -> None:
        await self._isr.stop()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self.active is not None:
            self.active = None
            with contextlib.suppress(Exception):
                await self._store.resign_controller(self.node_id)
