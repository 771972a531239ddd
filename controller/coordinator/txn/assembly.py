"""Putting the transaction coordinator together for a broker: its marker sender (local
writes, and WriteTxnMarkers to other brokers over a `BrokerChannel`) and the view of the
cluster it needs (partition leaders, live brokers, producer ids), which the broker's
controller provides once it exists."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ferrolog.client.channel import BrokerChannel
from ferrolog.config.inter_broker import inter_broker_client
from ferrolog.controller.coordinator.txn.coordinator import TransactionCoordinator
from ferrolog.controller.coordinator.txn.forward import CoordinatorForwarder
from ferrolog.controller.coordinator.txn.local_markers import LocalMarkerWriter, OnWritten
from ferrolog.controller.coordinator.txn.markers import GONE, MarkerSender

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.config import BrokerConfig
    from ferrolog.controller.native_waits import NativeWaits


class Cluster(Protocol):
    """What the coordinator reads of the cluster (the controller's `ControllerApi` has it)."""

    def topic(self, name: str) -> Any | None: ...

    def partition_states(self, name: str) -> Mapping[int, Any]: ...

    def brokers(self) -> Mapping[int, Any]: ...

    async def allocate_producer_id(self) -> int: ...


def build(
    native: ferrolog_native.Server,
    waits: NativeWaits,
    config: BrokerConfig,
    cluster: Callable[[], Cluster],
    on_written: OnWritten,
) -> TransactionCoordinator:
    """The coordinator, whose markers for this broker's own partitions go straight to its
    native core (`on_written` hears of each). `cluster()` is called only once requests
    flow."""

    def leader_of(topic: str, partition: int) -> int | None:
        view = cluster()
        record = view.topic(topic)
        if record is None or partition not in record.assignment:
            gone: int = GONE
            return gone
        state = view.partition_states(topic).get(partition)
        if state is None or state.leader < 0:
            return None
        return int(state.leader)

    listener = config.inter_broker_listener_name

    def address_of(node: int) -> tuple[str, int] | None:
        broker = cluster().brokers().get(node)
        return None if broker is None else broker.address_on(listener)

    async def allocate() -> int:
        return await cluster().allocate_producer_id()

    local = LocalMarkerWriter(waits, on_written)
    channel = BrokerChannel(config.node_id, address_of, lambda: inter_broker_client(config))
    sender = MarkerSender(config.node_id, leader_of, local.write, channel)
    forward = CoordinatorForwarder(channel, leader_of)
    return TransactionCoordinator(native, waits, config, allocate, sender, forward)
