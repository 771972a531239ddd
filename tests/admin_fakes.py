"""Small stand-ins for the metadata store, the controller and the native core, so the admin
handlers can be tested before (and independently of) the real services. They keep state the
way the real ones promise to (TopicRecord per topic, configs validated by the config table),
and record calls so tests can check what a handler asked for."""

from __future__ import annotations

import asyncio
import os
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

import ferrolog_native
from ferrolog import errors
from ferrolog.config import BrokerConfig, validate_topic_configs
from ferrolog.controller.store.base import BrokerRegistration, PartitionState, TopicRecord
from ferrolog.handlers.context import BrokerServices, RequestContext


class FakeStore:
    def __init__(self) -> None:
        self.records: dict[str, TopicRecord] = {}
        self.registered: dict[int, BrokerRegistration] = {}
        self.next_producer_id = 0
        self.allocations: list[int] = []

    async def topics(self) -> dict[str, TopicRecord]:
        await asyncio.sleep(0)  # a real store does I/O: let other requests interleave
        return dict(self.records)

    async def brokers(self) -> dict[int, BrokerRegistration]:
        return dict(self.registered)

    async def allocate_producer_ids(self, count: int) -> int:
        first = self.next_producer_id
        self.next_producer_id += count
        self.allocations.append(count)
        return first


class FakeController:
    """Validates like the real controller promises (through the config table) and writes to
    the fake store."""

    def __init__(self, store: FakeStore, config: BrokerConfig) -> None:
        self.store = store
        self.config = config
        self.calls: list[tuple[Any, ...]] = []

    async def create_topic(
        self,
        name: str,
        num_partitions: int,
        replication_factor: int,
        assignment: dict[int, list[int]] | None,
        configs: dict[str, str],
        validate_only: bool = False,
    ) -> TopicRecord:
        self.calls.append(("create", name, num_partitions, replication_factor, assignment))
        if name in self.store.records:
            raise errors.TopicAlreadyExistsError(f"topic {name} already exists")
        if assignment is None:
            count = (
                self.config.get_int("num.partitions") if num_partitions == -1 else num_partitions
            )
            factor = (
                self.config.get_int("default.replication.factor")
                if replication_factor == -1
                else replication_factor
            )
            if count < 1:
                raise errors.InvalidPartitionsError("at least one partition")
            if factor != 1:
                raise errors.InvalidReplicationFactorError("only one broker")
            assignment = {p: [0] for p in range(count)}
        record = TopicRecord(name, uuid.uuid4().bytes, assignment, validate_topic_configs(configs))
        if not validate_only:
            self.store.records[name] = record
        return record

    async def create_topics(
        self, specs: list[Any], validate_only: bool = False
    ) -> list[TopicRecord | errors.KafkaError]:
        outcomes: list[TopicRecord | errors.KafkaError] = []
        for spec in specs:
            try:
                outcomes.append(
                    await self.create_topic(
                        spec.name,
                        spec.num_partitions,
                        spec.replication_factor,
                        spec.assignment,
                        spec.configs,
                        validate_only,
                    )
                )
            except errors.KafkaError as exc:
                outcomes.append(exc)
        return outcomes

    async def delete_topic(self, name: str) -> None:
        self.calls.append(("delete", name))
        if self.store.records.pop(name, None) is None:
            raise errors.UnknownTopicOrPartitionError(f"topic {name} does not exist")

    async def create_partitions(
        self,
        name: str,
        total_count: int,
        assignment: list[list[int]] | None,
        validate_only: bool = False,
    ) -> None:
        self.calls.append(("partitions", name, total_count, assignment, validate_only))
        record = self.store.records.get(name)
        if record is None:
            raise errors.UnknownTopicOrPartitionError(f"topic {name} does not exist")
        if total_count <= len(record.assignment):
            raise errors.InvalidPartitionsError("can only grow")
        if not validate_only:
            grown = {
                **record.assignment,
                **{p: [0] for p in range(len(record.assignment), total_count)},
            }
            self.store.records[name] = replace(record, assignment=grown)

    async def alter_topic_configs(
        self, name: str, configs: dict[str, str], validate_only: bool = False
    ) -> None:
        self.calls.append(("configs", name, dict(configs), validate_only))
        await asyncio.sleep(0)
        checked = validate_topic_configs(configs)
        if not validate_only:
            self.store.records[name] = replace(self.store.records[name], configs=checked)


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


@dataclass
class FakeNative:
    partitions: list[FakePartition] = field(default_factory=list)
    deleted: list[tuple[str, int, int]] = field(default_factory=list)

    def partition_states(self) -> list[FakePartition]:
        return list(self.partitions)

    def delete_records(self, topic: str, partition: int, offset: int) -> int:
        self.deleted.append((topic, partition, offset))
        state = next(p for p in self.partitions if (p.topic, p.partition) == (topic, partition))
        target = state.high_watermark if offset == -1 else offset
        if target > state.high_watermark:
            raise ferrolog_native.KafkaNativeError(1, "offset beyond the high watermark")
        state.log_start_offset = max(state.log_start_offset, target)
        return state.log_start_offset


@dataclass
class Broker:
    store: FakeStore
    controller: FakeController
    native: FakeNative
    config: BrokerConfig
    services: BrokerServices

    def ctx(self, api_key: int, api_version: int) -> RequestContext:
        return RequestContext(api_key, api_version, 1, "test", "127.0.0.1:5000", self.services)


def make_broker(log_dir: str, **settings: str) -> Broker:
    config = BrokerConfig({"log.dirs": log_dir, **settings})
    store = FakeStore()
    store.registered[0] = BrokerRegistration(0, "localhost", 9092)
    controller = FakeController(store, config)
    native = FakeNative()
    services = BrokerServices(
        node_id=0,
        cluster_id="abcdefghijklmnopqrstuv",
        advertised_host="localhost",
        advertised_port=9092,
        config=config,
        store=store,  # type: ignore[arg-type]
        controller=controller,  # type: ignore[arg-type]
        native=native,  # type: ignore[arg-type]
    )
    for directory in log_dir.split(","):
        os.makedirs(directory, exist_ok=True)
    return Broker(store, controller, native, config, services)


def partition_state(record: TopicRecord, partition: int) -> PartitionState:
    return PartitionState(leader=record.assignment[partition][0], leader_epoch=0, isr=[0])
