"""The broker assembly: config -> native `Server` -> metadata store -> controller ->
dispatcher, with a controlled start and stop.

`run_broker` runs one broker under uvloop until SIGTERM or SIGINT, then shuts it down cleanly
(the native core flushes and checkpoints every log)."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ferrolog.config import BrokerConfig, parse_listeners
from ferrolog.config.inter_broker import sasl_login
from ferrolog.controller.api import TopicSpec
from ferrolog.controller.cluster.cache import live_broker_rows
from ferrolog.controller.cluster.controller import Controller
from ferrolog.controller.cluster.member import ClusterMember
from ferrolog.controller.cluster.replica_manager import ReplicaManager
from ferrolog.controller.cluster.topics import (
    CONSUMER_OFFSETS,
    SHARE_GROUP_STATE,
    TRANSACTION_STATE,
)
from ferrolog.controller.cluster.zk_controller import ZkController
from ferrolog.controller.coordinator.group.consumer_state import topics_of
from ferrolog.controller.coordinator.group.coordinator import GroupCoordinator
from ferrolog.controller.coordinator.share import assembly as share_assembly
from ferrolog.controller.coordinator.share.coordinator import ShareCoordinator
from ferrolog.controller.coordinator.share.persister import ShareStatePersister
from ferrolog.controller.coordinator.txn import assembly
from ferrolog.controller.coordinator.txn.coordinator import TransactionCoordinator
from ferrolog.controller.native_waits import NativeWaits
from ferrolog.controller.security.sasl import SaslAuthenticator
from ferrolog.controller.share_settings import ShareSettings
from ferrolog.controller.store.base import BrokerRegistration, Endpoint, MetadataStore
from ferrolog.controller.store.local import LocalStore
from ferrolog.controller.store.zookeeper import ZkStore
from ferrolog.dispatcher import Dispatcher
from ferrolog.handlers.context import BrokerServices
from ferrolog.metrics.http import MetricsServer
from ferrolog.native_calls import native_call

if TYPE_CHECKING:
    import ferrolog_native

log = logging.getLogger(__name__)


class Broker:
    def __init__(self, config: BrokerConfig) -> None:
        self.config = config
        self.native: ferrolog_native.Server | None = None
        self._native_stopped = False
        self.store: MetadataStore | None = None
        self.controller: Controller | None = None
        self.group_coordinator: GroupCoordinator | None = None
        self._waits: NativeWaits | None = None
        self._token_sweeps: asyncio.Task[None] | None = None
        self.txn_coordinator: TransactionCoordinator | None = None
        self.share_coordinator: ShareCoordinator | None = None
        # How the native core's share-partitions reach their share coordinators.
        self.share_persister: ShareStatePersister | None = None
        self.services: BrokerServices | None = None
        self._dispatcher: Dispatcher | None = None
        self.member: ClusterMember | None = None
        self.metrics: MetricsServer | None = None
        # Ready (`/readyz`) from "broker started" until the shutdown begins.
        self.ready = False
        self._host = ""
        self._port = 0
        # The advertised listeners, the inter-broker one first (`_advertised`).
        self.endpoints: list[Endpoint] = []

    @property
    def node_id(self) -> int:
        return self.config.node_id

    @property
    def host(self) -> str:
        return self._host

    @property
    def port(self) -> int:
        return self._port

    @property
    def bootstrap(self) -> str:
        """`host:port` for clients' `bootstrap.servers`."""
        if self.native is None:
            raise RuntimeError("broker is not started")
        return f"{self._host}:{self._port}"

    async def start(self) -> None:
        import ferrolog_native

        from ferrolog.api_versions import advertised
        from ferrolog.handlers import HANDLERS

        config = self.config
        for directory in config.log_dirs:
            await asyncio.to_thread(_mkdir, directory)
        clean = await native_call(ferrolog_native.shut_down_cleanly, config.log_dirs)
        login = sasl_login(config)  # over a SASL inter-broker listener
        native = ferrolog_native.Server(
            config.native_server_config(),
            inter_broker_sasl=None if login is None else login.as_tuple(),
        )
        await native_call(native.start)
        self.native = native
        try:
            # Listening from the start: /healthz answers while the broker registers and opens
            # thousands of replicas, and /readyz says it is not ready yet.
            listener = config.metrics_listener
            if listener is not None:
                self.metrics = MetricsServer(self, self._is_ready)
                self.metrics.start(listener.host, listener.port)
            self.endpoints = self._advertised(dict(native.ports))
            inter_broker = self.endpoints[0]
            self._host, self._port = inter_broker.host, inter_broker.port
            registration = BrokerRegistration(
                node_id=config.node_id,
                host=self._host,
                port=self._port,
                rack=config.get("broker.rack"),
                endpoints=tuple(self.endpoints),
                unclean_shutdown=not clean,
            )
            replicas = ReplicaManager(native, config, config.node_id)
            self._waits = NativeWaits(native, self._on_offsets_marker)
            self.group_coordinator = GroupCoordinator(native, config, self._waits)
            self.group_coordinator.topics = topics_of(self._cluster)
            self.group_coordinator.streams.create_topics = self._create_topics
            self.txn_coordinator = assembly.build(
                native, self._waits, config, self._cluster, self._on_marker
            )
            self.share_coordinator, persister, end_offsets = share_assembly.build(
                native, self._waits, config, self._cluster
            )
            self.group_coordinator.shares.share_state = persister
            self.share_persister = persister
            self.group_coordinator.shares.end_offsets = end_offsets
            store: MetadataStore
            if config.zookeeper_connect:
                store, controller = await self._start_cluster(native, replicas, registration)
            else:
                store = LocalStore(config.data_dir)
                await store.start()
                self.store = store
                controller = Controller(
                    store,
                    config,
                    replicas,
                    quota_sink=native.set_client_quotas,
                    acl_sink=native.set_acls,
                )
                self.controller = controller
                self._listen(controller)
                await controller.start(registration)
            self.controller = controller
            self.services = BrokerServices(
                node_id=config.node_id,
                cluster_id=await store.cluster_id(),
                advertised_host=self._host,
                advertised_port=self._port,
                config=config,
                controller=controller,
                native=native,
                group_coordinator=self.group_coordinator,
                txn_coordinator=self.txn_coordinator,
                share_coordinator=self.share_coordinator,
                share_persister=self.share_persister,
                sasl=SaslAuthenticator(
                    config,
                    controller.scram_credentials.credential,
                    controller.delegation_tokens.credential,
                ),
            )
            self._dispatcher = Dispatcher(native, self.services, HANDLERS, advertised())
            self._dispatcher.start()
            self._token_sweeps = asyncio.ensure_future(
                controller.delegation_tokens.sweep_forever(
                    lambda: controller.controller_id == config.node_id
                )
            )
            # Served while they load; "started" means every local replica is open.
            await (self.member.loaded() if self.member is not None else controller.loaded())
            self.ready = True
        except BaseException:
            await self.stop()
            raise
        log.info(
            "broker started node_id=%d bootstrap=%s cluster_id=%s",
            config.node_id,
            self.bootstrap,
            self.services.cluster_id,
        )

    async def _start_cluster(
        self,
        native: ferrolog_native.Server,
        replicas: ReplicaManager,
        registration: BrokerRegistration,
    ) -> tuple[MetadataStore, Controller]:
        """Cluster mode: the ZooKeeper store, and the controller cache kept by the cluster
        member (which applies roles to the local replicas itself)."""
        config = self.config
        assert config.zookeeper_connect is not None
        store = ZkStore(
            config.zookeeper_connect,
            config.get_int("zookeeper.session.timeout.ms"),
            config.get_int("zookeeper.connection.timeout.ms")
            if config.is_set("zookeeper.connection.timeout.ms")
            else None,
        )
        await store.start()
        self.store = store
        controller = ZkController(
            store, config, quota_sink=native.set_client_quotas, acl_sink=native.set_acls
        )
        self.controller = controller
        self._listen(controller)
        # Listening on the advertised port ourselves proves that no other live process on this
        # machine advertises it.
        listening = registration.port in dict(native.ports).values()
        member = ClusterMember(
            store, config, controller, replicas, native, registration, replace_stale=listening
        )
        self.member = member
        await member.start()
        return store, controller

    def _listen(self, controller: Controller) -> None:
        """The coordinators hear which partitions of their internal topics this broker
        leads, and the native core which brokers are live, from the controller's first
        change on."""
        assert self.group_coordinator is not None
        assert self.txn_coordinator is not None
        assert self.share_coordinator is not None
        native = self.native
        assert native is not None
        controller.subscribe_brokers(lambda live: native.set_live_brokers(live_broker_rows(live)))
        controller.add_leadership_listener(CONSUMER_OFFSETS, self.group_coordinator.runtime)
        controller.add_leadership_listener(TRANSACTION_STATE, self.txn_coordinator.runtime)
        controller.add_leadership_listener(SHARE_GROUP_STATE, self.share_coordinator.runtime)
        controller.group_configs.subscribe(self.group_coordinator.set_group_configs)
        share_settings = ShareSettings(native.share_groups, self.config)
        controller.subscribe_features(share_settings.features_changed)
        controller.group_configs.subscribe(share_settings.group_configs_changed)
        self.group_coordinator.start()
        self.txn_coordinator.start()
        self.share_coordinator.start()

    def _is_ready(self) -> bool:
        """`/readyz`: every local replica opened and the shutdown not begun, and in a cluster
        the broker registered in ZooKeeper (it is out of the cluster while its session is
        lost)."""
        if not self.ready:
            return False
        return self.member is None or self.member.registered

    def active_controller(self) -> tuple[int, int] | None:
        """(controller epoch, partitions without a leader) on the active controller, else
        None. A single-node broker is its own controller and never holds an election: epoch
        0."""
        controller = self.controller
        if controller is None or controller.controller_id != self.node_id:
            return None
        epoch = 0
        if self.member is not None:
            if self.member.active is None:
                return None
            epoch = self.member.active.epoch
        offline = sum(
            1
            for name in controller.topics()
            for state in controller.partition_states(name).values()
            if state.leader < 0
        )
        return epoch, offline

    async def _create_topics(self, specs: Sequence[TopicSpec]) -> Sequence[object]:
        """Creates topics for the coordinators (a streams group's internal topics)."""
        return await self._cluster().create_topics(specs)

    def _cluster(self) -> Controller:
        if self.controller is None:
            raise RuntimeError("the broker's controller is not started")
        return self.controller

    def _on_marker(self, topic: str, partition: int, producer_id: int, commit: bool) -> None:
        """A marker this broker's coordinator wrote here ends the producer's pending offset
        commits, when it lands in a partition of `__consumer_offsets`."""
        if topic == CONSUMER_OFFSETS:
            self._on_offsets_marker(partition, producer_id, commit)

    def _on_offsets_marker(self, partition: int, producer_id: int, commit: bool) -> None:
        """A marker committed in `__consumer_offsets` (by this broker's coordinator, or by
        WriteTxnMarkers, which the native core serves) ends the producer's pending offset
        commits in that partition."""
        if self.group_coordinator is not None:
            self.group_coordinator.on_transaction_completed(partition, producer_id, commit)

    def _advertised(self, bound: dict[str, int]) -> list[Endpoint]:
        """The advertised listeners, the inter-broker one first (so it is the first PLAINTEXT
        endpoint, which Kafka's ZooKeeper layout gives as the broker's host and port), each with
        port 0 (pick a free one), or a port not advertised, replaced by the bound port."""
        config = self.config
        advertised = (
            {lst.name for lst in parse_listeners(config.get("advertised.listeners") or "")}
            if config.is_set("advertised.listeners")
            else set()
        )
        endpoints = []
        for listener in config.advertised_listeners:
            port = listener.port
            if port == 0 or listener.name not in advertised:
                port = bound[listener.name]
            protocol = config.security_protocol(listener.name)
            endpoints.append(Endpoint(listener.name, listener.host, port, protocol))
        inter = config.inter_broker_listener_name
        endpoints.sort(key=lambda e: e.listener_name != inter)
        return endpoints

    def bootstrap_for(self, listener_name: str) -> str:
        """`host:port` of this broker's listener `listener_name`, for `bootstrap.servers`."""
        for endpoint in self.endpoints:
            if endpoint.listener_name == listener_name.upper():
                return f"{endpoint.host}:{endpoint.port}"
        raise KeyError(listener_name)

    async def stop(self, graceful: bool = False) -> None:
        """Controlled shutdown: stop taking requests, let handlers in flight finish, then the
        native core closes connections, flushes and checkpoints. Idempotent.

        In cluster mode the broker first asks the controller to move its leaderships away
        (bounded by `controlled.shutdown.timeout.ms`), so producers switch to other replicas
        before this one goes."""
        self.ready = False
        if self._token_sweeps is not None:
            self._token_sweeps.cancel()
            await asyncio.gather(self._token_sweeps, return_exceptions=True)
            self._token_sweeps = None
        if self.member is not None:
            member, self.member = self.member, None
            if graceful and self.config.get_bool("controlled.shutdown.enable"):
                timeout = self.config.get_int("controlled.shutdown.timeout.ms") / 1000
                try:
                    await member.controlled_shutdown(timeout)
                except Exception as exc:
                    log.warning("controlled shutdown failed: %r", exc)
            await member.stop()
        if self.txn_coordinator is not None:
            await self.txn_coordinator.stop()
            self.txn_coordinator = None
        if self.share_coordinator is not None:
            await self.share_coordinator.stop()
            self.share_coordinator = None
        if self.group_coordinator is not None:
            # Members waiting on a rebalance are answered (NOT_COORDINATOR) rather than left
            # to the dispatcher's grace period; the timers stop.
            await self.group_coordinator.stop()
            self.group_coordinator = None
        if self._dispatcher is not None:
            await self._dispatcher.stop()
            self._dispatcher = None
        if self.store is not None:
            await self.store.close()
            self.store = None
        if self.metrics is not None:
            await self.metrics.stop()
            self.metrics = None
        if self._waits is not None:
            # The native runtime stops with the native core: what still waits would never end.
            self._waits.stop()
            self._waits = None
        if self.native is not None and not self._native_stopped:
            await native_call(self.native.shutdown)
            self._native_stopped = True  # `native` stays readable; its shutdown runs once
            log.info("broker stopped node_id=%d", self.config.node_id)


def _mkdir(directory: str) -> None:
    Path(directory).mkdir(parents=True, exist_ok=True)


async def serve(
    config: BrokerConfig,
    on_ready: Callable[[Broker], None] | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    """Starts a broker, calls `on_ready`, and runs until `stop` is set or SIGTERM/SIGINT."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
        except (ValueError, RuntimeError, NotImplementedError):
            pass  # not the main thread (an in-process embedded broker): no signals there
    broker = Broker(config)
    try:
        await broker.start()
        if on_ready is not None:
            on_ready(broker)
        await stop.wait()
        log.info("shutting down")
        await broker.stop(graceful=True)
    finally:
        await broker.stop()
        for sig in installed:
            loop.remove_signal_handler(sig)


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A uvloop event loop (the control plane's loop of choice), or asyncio's if unavailable."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def run_broker(config: BrokerConfig, on_ready: Callable[[Broker], None] | None = None) -> None:
    """Runs a broker on a fresh uvloop loop in this thread until SIGTERM/SIGINT."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        runner.run(serve(config, on_ready))
