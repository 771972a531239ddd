"""A broker's services for testing request handlers: the real `Controller` over a real
`LocalStore` in a temporary directory, on an event loop of its own (as a broker has), with a
stand-in for the native core.

The stand-in does what the handlers and the replica manager ask of the native core with
partitions held in memory: it records the partition commands (`calls`) and serves partition
states and DeleteRecords from `partitions`, which a test may also set directly."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import ferrolog_native
from ferrolog.config import BrokerConfig
from ferrolog.controller.cluster.controller import Controller
from ferrolog.controller.cluster.replica_manager import ReplicaManager
from ferrolog.controller.store.base import BrokerRegistration, TopicRecord
from ferrolog.controller.store.local import LocalStore
from ferrolog.handlers.context import BrokerServices, RequestContext
from ferrolog.protocol import decode_response, encode_response

T = TypeVar("T")


@dataclass
class FakePartition:
    topic: str
    partition: int
    log_dir: str
    is_leader: bool = True
    topic_id: bytes = bytes(16)
    leader_epoch: int = 0
    log_start_offset: int = 0
    log_end_offset: int = 10
    high_watermark: int = 10
    size_bytes: int = 1000


class FakeLogDirs:
    """No replica moves between directories here: they are tested on real brokers
    (tests/broker/test_alter_replica_log_dirs.py)."""

    def futures(self) -> list[tuple[str, int, str, int, int]]:
        return []

    def set_rate(self, bytes_per_second: int | None) -> None:
        pass


@dataclass
class FakeNative:
    log_dirs: FakeLogDirs = field(default_factory=FakeLogDirs)
    log_dir: str = ""
    partitions: list[FakePartition] = field(default_factory=list)
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    deleted: list[tuple[str, int, int]] = field(default_factory=list)

    def _find(self, topic: str, partition: int) -> FakePartition | None:
        return next(
            (p for p in self.partitions if (p.topic, p.partition) == (topic, partition)), None
        )

    def record_controller_mutation(
        self,
        client_id: str | None,
        permits: float,
        strict: bool,
        principal: str = "User:ANONYMOUS",
    ) -> tuple[bool, int]:
        return True, 0  # no controller mutation quota configured

    def open_partition(self, topic: str, partition: int, topic_id: bytes, config: Any) -> None:
        self.calls.append(("open", topic, partition, topic_id, dict(config)))
        if self._find(topic, partition) is None:
            self.partitions.append(
                FakePartition(topic, partition, self.log_dir, is_leader=False, topic_id=topic_id)
            )

    def open_partitions(
        self, configs: dict[str, dict[str, str]], partitions: list[tuple[Any, ...]]
    ) -> list[Exception | None]:
        """The bulk command, as the single calls it stands for."""
        for topic, partition, topic_id, role, epoch, _, _, _, isr, replicas in partitions:
            self.open_partition(topic, partition, topic_id, configs[topic])
            if role == "leader":
                self.become_leader(topic, partition, epoch, isr, replicas)
        return [None] * len(partitions)

    def delete_partition(self, topic: str, partition: int) -> None:
        self.calls.append(("delete", topic, partition))
        self.partitions = [
            p for p in self.partitions if (p.topic, p.partition) != (topic, partition)
        ]

    def become_leader(
        self, topic: str, partition: int, epoch: int, isr: list[int], replicas: list[int]
    ) -> None:
        self.calls.append(("leader", topic, partition, epoch, isr, replicas))
        state = self._find(topic, partition)
        if state is not None:
            state.is_leader, state.leader_epoch = True, epoch

    def update_topic_config(self, topic: str, config: dict[str, str]) -> None:
        self.calls.append(("config", topic, dict(config)))

    def partition_states(self) -> list[FakePartition]:
        return list(self.partitions)

    def offline_log_dirs(self) -> list[str]:
        return []  # the disk faults are tested on real brokers (tests/*/test_disk_full.py)

    def partition_state(self, topic: str, partition: int) -> FakePartition | None:
        return self._find(topic, partition)

    def delete_records(self, topic: str, partition: int, offset: int) -> int:
        self.deleted.append((topic, partition, offset))
        state = self._find(topic, partition)
        assert state is not None
        target = state.high_watermark if offset == -1 else offset
        if target > state.high_watermark:
            raise ferrolog_native.KafkaNativeError(1, "offset beyond the high watermark")
        state.log_start_offset = max(state.log_start_offset, target)
        return state.log_start_offset


@dataclass
class Broker:
    loop: asyncio.AbstractEventLoop
    store: LocalStore
    controller: Controller
    native: FakeNative
    config: BrokerConfig
    services: BrokerServices

    def ctx(self, api_key: int, api_version: int) -> RequestContext:
        return RequestContext(api_key, api_version, 1, "test", "127.0.0.1:5000", self.services)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Runs `coro` on the broker's event loop."""
        return self.loop.run_until_complete(coro)

    def stored(self) -> dict[str, TopicRecord]:
        """The topics as the metadata store holds them."""
        return self.run(self.store.topics())

    def create(self, name: str, partitions: int = 1, configs: dict[str, str] | None = None) -> None:
        self.run(self.controller.create_topic(name, partitions, 1, None, configs or {}))
        self.run(self.controller.loaded())  # the replicas open in the background

    def close(self) -> None:
        self.run(self.store.close())
        self.run(self.loop.shutdown_default_executor())
        self.loop.close()


def call(broker: Broker, module: Any, version: int, request: dict[str, Any]) -> dict[str, Any]:
    """Runs the handler `module` on the broker, then encodes and decodes its answer at the
    request's version: the codec refuses fields of the wrong shape or a null where the version
    allows none."""
    response: dict[str, Any] = broker.run(
        module.handle(broker.ctx(module.API_KEY, version), request)
    )
    _, decoded = decode_response(
        module.API_KEY, version, encode_response(module.API_KEY, version, 1, response)
    )
    assert isinstance(decoded, dict)
    return response


def make_broker(
    log_dir: str,
    *,
    start: bool = True,
    others: tuple[BrokerRegistration, ...] = (),
    **settings: str,
) -> Broker:
    """Broker 0 with data in `log_dir` (its first entry holds the metadata); `others` are
    registered in the store as well; `start=False` leaves the controller unstarted (the
    broker has not registered yet). Close it with `close()`."""
    config = BrokerConfig({"log.dirs": log_dir, **settings})
    for directory in config.log_dirs:
        os.makedirs(directory, exist_ok=True)
    loop = asyncio.new_event_loop()
    store = LocalStore(config.data_dir)
    loop.run_until_complete(store.start())
    native = FakeNative(log_dir=str(Path(config.log_dirs[0])))
    controller = Controller(store, config, ReplicaManager(native, config, config.node_id))  # type: ignore[arg-type]
    for registration in others:
        loop.run_until_complete(store.register_broker(registration))
    if start:
        registration = BrokerRegistration(config.node_id, "localhost", 9092)
        loop.run_until_complete(controller.start(registration))
    services = BrokerServices(
        node_id=config.node_id,
        cluster_id=loop.run_until_complete(store.cluster_id()),
        advertised_host="localhost",
        advertised_port=9092,
        config=config,
        controller=controller,
        native=native,  # type: ignore[arg-type]
    )
    return Broker(loop, store, controller, native, config, services)
