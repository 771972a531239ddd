"""Putting the share coordinator together for a broker: the coordinator of the
`__share_group_state` partitions this broker leads, the persister through which the group
coordinator (and, later, share-partition leaders) reach the share coordinator of any
share-partition, here or on another broker, and the high watermarks a share group's lag is
measured to, over the same inter-broker channel."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ferrolog import errors
from ferrolog.client.channel import BrokerChannel
from ferrolog.config.inter_broker import inter_broker_client
from ferrolog.controller.cluster.topics import SHARE_GROUP_STATE
from ferrolog.controller.coordinator.share.coordinator import ShareCoordinator
from ferrolog.controller.coordinator.share.persister import ShareStatePersister, leader_lookup
from ferrolog.controller.coordinator.share.shard import PartitionExists
from ferrolog.protocol.messages import Apis, ListOffsetsRequest

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
) -> tuple[
    ShareCoordinator, ShareStatePersister, Callable[[list[Key]], Awaitable[dict[Key, EndOffset]]]
]:
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

    async def end_offsets(partitions: list[Key]) -> dict[Key, EndOffset]:
        return await high_watermarks(native, config.node_id, cluster(), channel, partitions)

    return coordinator, persister, end_offsets


Key = tuple[str, int]
EndOffset = int | tuple[int, str | None]
LIST_OFFSETS_VERSION = 5
LATEST = -1


async def high_watermarks(
    native: ferrolog_native.Server,
    node_id: int,
    view: ControllerApi,
    channel: BrokerChannel,
    partitions: list[Key],
) -> dict[Key, EndOffset]:
    """Each partition's high watermark (what a share group's lag is measured to): from the
    native core for those this broker leads, else one ListOffsets (latest,
    read_uncommitted) per leader; or the error a partition's leader answered."""
    out: dict[Key, EndOffset] = {}
    by_leader: dict[int, list[Key]] = {}
    for topic, p in partitions:
        state = view.partition_states(topic).get(p)
        if state is None or state.leader < 0:
            out[(topic, p)] = (errors.LeaderNotAvailableError.code, None)
        elif state.leader == node_id:
            local = native.partition_state(topic, p)
            if local is not None and local.is_leader:
                out[(topic, p)] = local.high_watermark
            else:
                out[(topic, p)] = (errors.NotLeaderOrFollowerError.code, None)
        else:
            by_leader.setdefault(state.leader, []).append((topic, p))
    for leader, keys in by_leader.items():
        wanted: dict[str, list[int]] = {}
        for topic, p in keys:
            wanted.setdefault(topic, []).append(p)
        body: ListOffsetsRequest = {
            "replica_id": -1,
            "isolation_level": 0,
            "topics": [
                {
                    "name": topic,
                    "partitions": [
                        {"partition_index": p, "current_leader_epoch": -1, "timestamp": LATEST}
                        for p in ps
                    ],
                }
                for topic, ps in wanted.items()
            ],
        }
        try:
            response = await channel.request(leader, Apis.LIST_OFFSETS, LIST_OFFSETS_VERSION, body)
        except ConnectionError:
            out.update((k, (errors.CoordinatorNotAvailableError.code, None)) for k in keys)
            continue
        for answered in response["topics"]:
            for a in answered["partitions"]:
                key = (answered["name"], a["partition_index"])
                out[key] = a["offset"] if not a["error_code"] else (a["error_code"], None)
    return out
