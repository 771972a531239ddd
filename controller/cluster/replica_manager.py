"""The broker side of partition decisions: applies the controller's layout and leadership to
the local native core (`open_partition`, `become_leader`, ...).

Native partition commands can be slow (opening a log runs recovery) and release the GIL, so
they run on worker threads: the event loop keeps serving other connections meanwhile."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ferrolog.controller.store.base import PartitionState, TopicRecord

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.config import BrokerConfig

log = logging.getLogger(__name__)


class ReplicaManager:
    def __init__(self, native: ferrolog_native.Server, config: BrokerConfig, node_id: int) -> None:
        self._native = native
        self._config = config
        self._node_id = node_id

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
