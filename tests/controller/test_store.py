"""LocalStore: persistence across instances, compare-and-set, producer-id blocks, cluster id."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path

import pytest
from ferrolog.controller.store.base import (
    BadVersionError,
    BrokerRegistration,
    PartitionState,
    TopicExistsError,
    TopicRecord,
)
from ferrolog.controller.store.entities import EntityType
from ferrolog.controller.store.local import LocalStore

TOPIC = TopicRecord("orders", b"\x01" * 16, {0: [1], 1: [1]}, {"retention.ms": "1000"})
STATES = {0: PartitionState(1, 0, [1]), 1: PartitionState(1, 0, [1])}


async def started(path: Path) -> LocalStore:
    store = LocalStore(path)
    await store.start()
    return store


def test_cluster_id_is_created_once_and_persists(tmp_path: Path) -> None:
    async def run() -> tuple[str, str, str]:
        first = await (await started(tmp_path)).cluster_id()
        again = await (await started(tmp_path)).cluster_id()
        other = await (await started(tmp_path / "other")).cluster_id()
        return first, again, other

    first, again, other = asyncio.run(run())
    assert first == again
    assert first != other
    assert len(first) == 22


def test_topics_and_states_survive_restart(tmp_path: Path) -> None:
    async def run() -> LocalStore:
        store = await started(tmp_path)
        await store.create_topic(TOPIC, STATES)
        await store.add_partitions("orders", {2: [1]}, {2: PartitionState(1, 0, [1])})
        await store.alter_entity_configs(
            EntityType.TOPICS, {"orders": {"cleanup.policy": "compact", "retention.ms": None}}
        )
        await store.close()
        return await started(tmp_path)

    store = asyncio.run(run())
    topics = asyncio.run(store.topics())
    assert topics["orders"].topic_id == TOPIC.topic_id
    assert topics["orders"].assignment == {0: [1], 1: [1], 2: [1]}
    assert topics["orders"].configs == {"cleanup.policy": "compact"}
    assert set(asyncio.run(store.partition_states("orders"))) == {0, 1, 2}


def test_create_existing_topic_raises(tmp_path: Path) -> None:
    async def run() -> None:
        store = await started(tmp_path)
        await store.create_topic(TOPIC, STATES)
        with pytest.raises(TopicExistsError):
            await store.create_topic(TOPIC, STATES)

    asyncio.run(run())


def test_delete_topic_is_persisted(tmp_path: Path) -> None:
    async def run() -> dict[str, TopicRecord]:
        store = await started(tmp_path)
        await store.create_topic(TOPIC, STATES)
        await store.delete_topic("orders")
        return await (await started(tmp_path)).topics()

    assert asyncio.run(run()) == {}


def test_compare_and_set_bumps_version_and_rejects_stale_writers(tmp_path: Path) -> None:
    async def run() -> None:
        store = await started(tmp_path)
        await store.create_topic(TOPIC, STATES)
        new = PartitionState(leader=1, leader_epoch=1, isr=[1])
        written = await store.update_partition_state("orders", 0, new, expected_version=0)
        assert written.version == 1
        assert written.leader_epoch == 1
        with pytest.raises(BadVersionError):
            await store.update_partition_state("orders", 0, new, expected_version=0)
        reopened = await started(tmp_path)
        assert (await reopened.partition_states("orders"))[0] == written

    asyncio.run(run())


def test_producer_id_blocks_never_repeat_across_restarts(tmp_path: Path) -> None:
    async def run() -> list[range]:
        blocks = []
        for _ in range(3):
            store = await started(tmp_path)
            first = await store.allocate_producer_ids(1000)
            blocks.append(range(first, first + 1000))
            second = await store.allocate_producer_ids(10)
            blocks.append(range(second, second + 10))
        return blocks

    blocks = asyncio.run(run())
    seen: set[int] = set()
    for block in blocks:
        assert seen.isdisjoint(block)
        seen.update(block)


def test_concurrent_allocations_are_disjoint(tmp_path: Path) -> None:
    async def run() -> list[int]:
        store = await started(tmp_path)
        return list(await asyncio.gather(*(store.allocate_producer_ids(5) for _ in range(20))))

    firsts = sorted(asyncio.run(run()))
    assert all(b - a >= 5 for a, b in itertools.pairwise(firsts))


def test_file_is_replaced_atomically_and_is_valid_json(tmp_path: Path) -> None:
    async def run() -> LocalStore:
        store = await started(tmp_path)
        await store.create_topic(TOPIC, STATES)
        return store

    store = asyncio.run(run())
    assert json.loads(store.path.read_text())["topics"]["orders"]
    assert not list(tmp_path.glob("*.tmp"))


def test_brokers_are_ephemeral(tmp_path: Path) -> None:
    async def run() -> tuple[dict[int, BrokerRegistration], dict[int, BrokerRegistration]]:
        store = await started(tmp_path)
        await store.register_broker(BrokerRegistration(1, "127.0.0.1", 9092))
        live = await store.brokers()
        return live, await (await started(tmp_path)).brokers()

    live, after_restart = asyncio.run(run())
    assert live[1].port == 9092
    assert after_restart == {}


def test_concurrent_updates_are_all_persisted(tmp_path: Path) -> None:
    many = TopicRecord("big", b"\x02" * 16, {p: [1] for p in range(100)})

    async def run() -> dict[int, PartitionState]:
        store = await started(tmp_path)
        await store.create_topic(many, {p: PartitionState(1, 0, [1]) for p in range(100)})
        bumped = PartitionState(1, 1, [1])
        await asyncio.gather(
            *(store.update_partition_state("big", p, bumped, 0) for p in range(100))
        )
        return await (await started(tmp_path)).partition_states("big")

    states = asyncio.run(run())
    assert {s.leader_epoch for s in states.values()} == {1}
    assert {s.version for s in states.values()} == {1}


def test_failed_write_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    async def run() -> None:
        store = await started(tmp_path)
        await store.create_topic(TOPIC, STATES)
        real_replace = os.replace

        def broken(src: str, dst: str) -> None:
            raise OSError("disk full")

        monkeypatch.setattr(os, "replace", broken)
        with pytest.raises(OSError, match="disk full"):
            await store.update_partition_state("orders", 0, PartitionState(1, 1, [1]), 0)
        with pytest.raises(OSError, match="disk full"):
            await store.allocate_producer_ids(10)
        monkeypatch.setattr(os, "replace", real_replace)
        assert (await store.partition_states("orders"))[0].version == 0
        # The lost update did not happen: version 0 is still the one to compare against.
        written = await store.update_partition_state("orders", 0, PartitionState(1, 1, [1]), 0)
        assert written.version == 1
        assert await store.allocate_producer_ids(10) == 0
        reopened = await started(tmp_path)
        assert (await reopened.partition_states("orders"))[0].version == 1

    asyncio.run(run())
