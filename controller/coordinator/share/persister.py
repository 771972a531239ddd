"""How a broker reaches the share coordinator of a share-partition (Kafka's
`DefaultStatePersister`): the share coordinator of this broker when it leads the key's
`__share_group_state` partition, else the broker that does, over the inter-broker channel.
The group coordinator initializes share-partitions through it.

`__share_group_state` is created on first use, as a FindCoordinator for a share key creates it
in Kafka."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from ferrolog import errors
from ferrolog.client.channel import BrokerChannel
from ferrolog.controller.cluster.topics import SHARE_GROUP_STATE
from ferrolog.controller.coordinator.group.share import InitializeState
from ferrolog.controller.coordinator.share.coordinator import ShareCoordinator
from ferrolog.protocol.messages import (
    Apis,
    DeleteShareGroupStateRequest,
    InitializeShareGroupStateRequest,
)

log = logging.getLogger(__name__)

INITIALIZE_VERSION = DELETE_VERSION = 0
# A __share_group_state partition -> the broker leading it (None: no leader now).
LeaderOf = Callable[[int], Awaitable[int | None]]


class ShareStatePersister:
    def __init__(
        self,
        node_id: int,
        coordinator: ShareCoordinator,
        leader_of: LeaderOf,
        channel: BrokerChannel,
    ) -> None:
        self._node_id = node_id
        self._coordinator = coordinator
        self._leader_of = leader_of
        self._channel = channel

    async def initialize(self, state: InitializeState) -> set[int]:
        """Creates the share-partitions' state; returns the partitions it could not."""
        by_leader: dict[int, list[int]] = {}
        failed: set[int] = set()
        for p in state.partitions:
            key = (state.group_id, state.topic_id, p)
            leader = await self._leader_of(self._coordinator.partition_of(key))
            if leader is None:
                failed.add(p)
            else:
                by_leader.setdefault(leader, []).append(p)
        for leader, partitions in by_leader.items():
            if leader == self._node_id:
                for p in partitions:
                    key = (state.group_id, state.topic_id, p)
                    outcome = await self._coordinator.initialize(
                        key, state.state_epoch, state.start_offset
                    )
                    if outcome.code:
                        failed.add(p)
            else:
                failed |= await self._initialize_remote(leader, state, partitions)
        return failed

    async def delete(self, group_id: str, topic_id: bytes, partitions: Sequence[int]) -> set[int]:
        """Deletes the share-partitions' state; returns the partitions it could not."""
        by_leader: dict[int, list[int]] = {}
        failed: set[int] = set()
        for p in partitions:
            leader = await self._leader_of(self._coordinator.partition_of((group_id, topic_id, p)))
            if leader is None:
                failed.add(p)
            else:
                by_leader.setdefault(leader, []).append(p)
        for leader, ps in by_leader.items():
            if leader == self._node_id:
                for p in ps:
                    if (await self._coordinator.delete((group_id, topic_id, p))).code:
                        failed.add(p)
                continue
            body: DeleteShareGroupStateRequest = {
                "group_id": group_id,
                "topics": [{"topic_id": topic_id, "partitions": [{"partition": p} for p in ps]}],
            }
            try:
                response = await self._channel.request(
                    leader, Apis.DELETE_SHARE_GROUP_STATE, DELETE_VERSION, body
                )
            except ConnectionError as exc:
                log.info("deleting share state at broker %d failed: %s", leader, exc)
                failed.update(ps)
                continue
            failed.update(
                p["partition"]
                for result in response["results"]
                for p in result["partitions"]
                if p["error_code"]
            )
        return failed

    async def _initialize_remote(
        self, leader: int, state: InitializeState, partitions: list[int]
    ) -> set[int]:
        body: InitializeShareGroupStateRequest = {
            "group_id": state.group_id,
            "topics": [
                {
                    "topic_id": state.topic_id,
                    "partitions": [
                        {
                            "partition": p,
                            "state_epoch": state.state_epoch,
                            "start_offset": state.start_offset,
                        }
                        for p in partitions
                    ],
                }
            ],
        }
        try:
            response = await self._channel.request(
                leader, Apis.INITIALIZE_SHARE_GROUP_STATE, INITIALIZE_VERSION, body
            )
        except ConnectionError as exc:
            log.info("initializing share state at broker %d failed: %s", leader, exc)
            return set(partitions)
        done = {
            p["partition"]
            for result in response["results"]
            for p in result["partitions"]
            if not p["error_code"]
        }
        return set(partitions) - done


def leader_lookup(
    ensure_topic: Callable[[], Awaitable[object]],
    leader: Callable[[int], int | None],
) -> LeaderOf:
    """`leader_of` for a persister: creates `__share_group_state` when it does not exist yet,
    then reads the partition's leader from the cluster's view."""

    async def leader_of(partition: int) -> int | None:
        try:
            await ensure_topic()
        except errors.KafkaError as exc:
            log.info("cannot create %s: %s", SHARE_GROUP_STATE, exc)
            return None
        return leader(partition)

    return leader_of
