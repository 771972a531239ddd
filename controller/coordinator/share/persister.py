"""How a broker reaches the share coordinator of a share-partition (Kafka's
`DefaultStatePersister`): the share coordinator of this broker when it leads the key's
`__share_group_state` partition, else the broker that does, over the inter-broker channel (one
request per broker for the partitions it coordinates). The group coordinator initializes,
deletes and describes share-partitions through it.

`__share_group_state` is created on first use, as a FindCoordinator for a share key creates it
in Kafka. A share-partition whose coordinator cannot be reached answers
COORDINATOR_NOT_AVAILABLE."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ferrolog import errors
from ferrolog.client.channel import BrokerChannel
from ferrolog.controller.cluster.topics import SHARE_GROUP_STATE
from ferrolog.controller.coordinator.group.share import InitializeState, Summary
from ferrolog.controller.coordinator.share.coordinator import ShareCoordinator
from ferrolog.protocol.messages import Api, Apis

log = logging.getLogger(__name__)

INITIALIZE_VERSION = DELETE_VERSION = 0
SUMMARY_VERSION = 1
UNAVAILABLE = errors.CoordinatorNotAvailableError.code
# A __share_group_state partition -> the broker leading it (None: no leader now).
LeaderOf = Callable[[int], Awaitable[int | None]]
# What one share-partition is asked locally: partition -> its answer (error_code included).
Local = Callable[[int], Awaitable[dict[str, Any]]]


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

    async def initialize(self, state: InitializeState) -> dict[int, int]:
        """Creates the share-partitions' state; returns the error code of each partition it
        could not."""

        async def local(p: int) -> dict[str, Any]:
            key = (state.group_id, state.topic_id, p)
            outcome = await self._coordinator.initialize(key, state.state_epoch, state.start_offset)
            return {"error_code": outcome.code}

        def entry(p: int) -> dict[str, Any]:
            return {
                "partition": p,
                "state_epoch": state.state_epoch,
                "start_offset": state.start_offset,
            }

        answers = await self.route(
            state.group_id, state.topic_id, state.partitions, local, entry,
            Apis.INITIALIZE_SHARE_GROUP_STATE, INITIALIZE_VERSION,
        )  # fmt: skip
        return {p: a["error_code"] for p, a in answers.items() if a["error_code"]}

    async def delete(
        self, group_id: str, topic_id: bytes, partitions: Sequence[int]
    ) -> dict[int, int]:
        """Deletes the share-partitions' state; returns the error code of each partition it
        could not."""

        async def local(p: int) -> dict[str, Any]:
            return {"error_code": (await self._coordinator.delete((group_id, topic_id, p))).code}

        answers = await self.route(
            group_id, topic_id, partitions, local, lambda p: {"partition": p},
            Apis.DELETE_SHARE_GROUP_STATE, DELETE_VERSION,
        )  # fmt: skip
        return {p: a["error_code"] for p, a in answers.items() if a["error_code"]}

    async def summary(
        self, group_id: str, topic_id: bytes, partitions: Sequence[int]
    ) -> dict[int, Summary]:
        """Each share-partition's start offset, leader epoch and count of records done with
        (-1, 0, -1 for one never initialized), or its error."""

        async def local(p: int) -> dict[str, Any]:
            outcome, state = await self._coordinator.summary((group_id, topic_id, p))
            if state is None:
                return {"error_code": outcome.code}
            return {
                "error_code": outcome.code,
                "start_offset": state.start_offset,
                "leader_epoch": state.leader_epoch,
                "delivery_complete_count": state.delivery_complete_count,
            }

        answers = await self.route(
            group_id, topic_id, partitions, local, lambda p: {"partition": p, "leader_epoch": 0},
            Apis.READ_SHARE_GROUP_STATE_SUMMARY, SUMMARY_VERSION,
        )  # fmt: skip
        return {
            p: Summary(
                error_code=a["error_code"],
                start_offset=a.get("start_offset", -1),
                leader_epoch=a.get("leader_epoch", 0),
                delivery_complete_count=a.get("delivery_complete_count", -1),
            )
            for p, a in answers.items()
        }

    async def route(
        self,
        group_id: str,
        topic_id: bytes,
        partitions: Sequence[int],
        local: Local,
        entry: Callable[[int], dict[str, Any]],
        api: Api[Any, Any],
        version: int,
    ) -> dict[int, dict[str, Any]]:
        """Each partition's answer (`error_code` and the API's fields), asked of the share
        coordinator that has it: here (`local`), or one request per other broker (each
        partition as `entry` gives it). The native core's reads and writes of share-partition
        state come this way too."""
        answers: dict[int, dict[str, Any]] = {}
        by_leader: dict[int, list[int]] = {}
        leaders: dict[int, int | None] = {}  # by __share_group_state partition
        for p in partitions:
            at = self._coordinator.partition_of((group_id, topic_id, p))
            if at not in leaders:
                leaders[at] = await self._leader_of(at)
            leader = leaders[at]
            if leader is None:
                answers[p] = {"error_code": UNAVAILABLE}
            else:
                by_leader.setdefault(leader, []).append(p)
        for leader, ps in by_leader.items():
            if leader == self._node_id:
                # All at once: the runtime joins their writes into few appends.
                done = await asyncio.gather(*(local(p) for p in ps))
                answers.update(zip(ps, done, strict=True))
                continue
            body = {
                "group_id": group_id,
                "topics": [{"topic_id": topic_id, "partitions": [entry(p) for p in ps]}],
            }
            try:
                response = await self._channel.request(leader, api, version, body)
            except ConnectionError as exc:
                log.info("share state at broker %d: %s", leader, exc)
                answers.update((p, {"error_code": UNAVAILABLE}) for p in ps)
                continue
            for result in response["results"]:
                for answer in result["partitions"]:
                    answers[answer["partition"]] = dict(answer)
            for p in ps:
                answers.setdefault(p, {"error_code": UNAVAILABLE})
        return answers


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
