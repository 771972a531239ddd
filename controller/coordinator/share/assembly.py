"""Putting the share coordinator together for a broker: the coordinator of the
`__share_group_state` partitions this broker leads, and the persister through which the
group coordinator (and, later, share-partition leaders) reach the share coordinator of any
share-partition, here or on another broker."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ferrolog.client.channel import BrokerChannel
from ferrolog.config.inter_broker import inter_broker_client
from ferrolog.controller.cluster.topics import SHARE_GROUP_STATE
from ferrolog.controller.coordinator.share.coordinator import ShareCoordinator
from ferrolog.controller.coordinator.share.persister import ShareStatePersister, leader_lookup
from ferrolog.controller.coordinator.share.shard import PartitionExists

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.config import BrokerConfig
    from ferrolog.controller.api import ControllerApi
    from ferrolog.controller.native_waits import NativeWaits


def build(
    native: ferrolog_native.Server,
    waits: NativeWaits,
    config: BrokerConfig,
    cluster: Callable[[], ControllerApi],
) -> tuple[ShareCoordinator, ShareStatePersister]:
    """`cluster()` is called only once requests flow."""

    def exists() -> PartitionExists:
        view = cluster()

        def check(topic_id: bytes, partition: int) -> bool:
            record = view.topic_by_id(topic_id)
            return record is not None and partition in record.assignment

        return check

    def leader(partition: int) -> int | None:
        state = cluster().partition_states(SHARE_GROUP_STATE).get(partition)
        return state.leader if state is not None and state.leader >= 0 else None

    async def ensure_topic() -> object:
        return await cluster().ensure_internal_topic(SHARE_GROUP_STATE)

    listener = config.inter_broker_listener_name

    def address_of(node: int) -> tuple[str, int] | None:
        broker = cluster().brokers().get(node)
        return None if broker is None else broker.address_on(listener)

    coordinator = ShareCoordinator(native, waits, config, exists)
    channel = BrokerChannel(config.node_id, address_of, lambda: inter_broker_client(config))
    persister = ShareStatePersister(
        config.node_id, coordinator, leader_lookup(ensure_topic, leader), channel
    )
    return coordinator, persister
