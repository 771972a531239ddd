"""`ZkStore` against a real ZooKeeper: topics and states in Kafka's layout, compare-and-set,
controller election with epoch fencing, ephemeral registration, producer id blocks."""

from __future__ import annotations

import asyncio
import json
import socket
import uuid
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from ferrolog.controller.store.base import (
    BadVersionError,
    BrokerRegistration,
    PartitionState,
    TopicExistsError,
    TopicRecord,
)
from ferrolog.controller.store.entities import EntityType
from ferrolog.controller.store.zk_brokers import BrokerIdInUseError
from ferrolog.controller.store.zk_fenced import ControllerFencedError
from ferrolog.controller.store.zookeeper import ZkStore

from tests.cluster.harness import ZooKeeper

T = TypeVar("T")


def run(make: Callable[[str], Awaitable[T]], zookeeper: ZooKeeper) -> T:
    chroot = f"/store-{uuid.uuid4().hex[:8]}"
    client = zookeeper.client()
    client.ensure_path(chroot)
    client.stop()
    client.close()
    return asyncio.run(make(zookeeper.connect + chroot))


async def started(connect: str) -> ZkStore:
    store = ZkStore(connect, session_timeout_ms=4000)
    await store.start()
    return store


TOPIC = TopicRecord("orders", b"\x01" * 16, {0: [1, 2, 3], 1: [2, 3, 1]}, {"retention.ms": "1000"})
STATES = {0: PartitionState(1, 0, [1, 2, 3]), 1: PartitionState(2, 0, [2, 3, 1])}


def test_topics_and_states_round_trip(zookeeper: ZooKeeper) -> None:
    async def scenario(connect: str) -> None:
        store = await started(connect)
        try:
            await store.create_topic(TOPIC, STATES)
            with pytest.raises(TopicExistsError):
                await store.create_topic(TOPIC, STATES)
            assert (await store.topics())["orders"] == TOPIC
            states = await store.partition_states("orders")
            assert states[0].leader == 1
            assert states[0].isr == [1, 2, 3]
            raw = json.loads(store.client.get("/brokers/topics/orders/partitions/0/state")[0])
            assert raw["leader_epoch"] == 0
            assert raw["isr"] == [1, 2, 3]
            assert json.loads(store.client.get("/brokers/topics/orders")[0])["partitions"] == {
                "0": [1, 2, 3],
                "1": [2, 3, 1],
            }
            await store.add_partitions("orders", {2: [3, 1, 2]}, {2: PartitionState(3, 0, [3])})
            assert (await store.topics())["orders"].assignment[2] == [3, 1, 2]
            await store.alter_entity_configs(
                EntityType.TOPICS, {"orders": {"cleanup.policy": "compact", "retention.ms": None}}
            )
            assert (await store.topics())["orders"].configs == {"cleanup.policy": "compact"}
            # A topic left with no overrides keeps its config znode, as Kafka's.
            await store.alter_entity_configs(
                EntityType.TOPICS, {"orders": {"cleanup.policy": None}}
            )
            assert (await store.topics())["orders"].configs == {}
            assert json.loads(store.client.get("/config/topics/orders")[0])["config"] == {}
            await store.delete_topic("orders")
            assert await store.topics() == {}
        finally:
            await store.close()

    run(scenario, zookeeper)


def test_a_topic_is_created_with_its_configs_and_over_a_stale_config(
    zookeeper: ZooKeeper,
) -> None:
    """A topic's configs are written in the transaction that creates it (no broker sees the
    topic without them), over a config znode a half-finished deletion left behind."""

    async def scenario(connect: str) -> None:
        store = await started(connect)
        try:
            store.client.create("/config/topics/orders", b'{"version":1,"config":{"x":"1"}}')
            await store.create_topic(TOPIC, STATES)
            assert (await store.topics())["orders"].configs == {"retention.ms": "1000"}
            await store.delete_topic("orders")
            await store.create_topic(TOPIC, STATES)
            with pytest.raises(TopicExistsError):
                await store.create_topic(TOPIC, STATES)
            assert (await store.topics())["orders"] == TOPIC
        finally:
            await store.close()

    run(scenario, zookeeper)


def test_state_compare_and_set(zookeeper: ZooKeeper) -> None:
    async def scenario(connect: str) -> None:
        store = await started(connect)
        try:
            await store.create_topic(TOPIC, STATES)
            current = (await store.partition_states("orders"))[0]
            shrunk = PartitionState(1, 0, [1, 2])
            written = await store.update_partition_state("orders", 0, shrunk, current.version)
            assert written.version == current.version + 1
            with pytest.raises(BadVersionError):
                await store.update_partition_state("orders", 0, shrunk, current.version)
        finally:
            await store.close()

    run(scenario, zookeeper)


def test_isr_changes_written_together_are_each_compare_and_set(zookeeper: ZooKeeper) -> None:
    """A leader's ISR changes of one check go out at once; a partition whose state changed
    meanwhile (here: the controller moved it) is refused alone, the others are written."""

    async def scenario(connect: str) -> None:
        store = await started(connect)
        try:
            await store.create_topic(TOPIC, STATES)
            before = await store.partition_states("orders")
            await store.update_partition_state("orders", 1, PartitionState(3, 1, [3]), 0)
            written = await store.update_partition_states(
                [
                    ("orders", 0, PartitionState(1, 0, [1, 2]), before[0].version),
                    ("orders", 1, PartitionState(2, 0, [2]), before[1].version),
                ]
            )
            assert written[1] is None
            assert written[0] is not None
            assert written[0].version == before[0].version + 1
            after = await store.partition_states("orders")
            assert after[0].isr == [1, 2]
            assert after[0].version == written[0].version
            assert (after[1].leader, after[1].isr) == (3, [3])
        finally:
            await store.close()

    run(scenario, zookeeper)


def _received(zookeeper: ZooKeeper) -> int:
    """Requests the ZooKeeper server has received so far (its `srvr` command)."""
    with socket.create_connection(("127.0.0.1", zookeeper.port), timeout=10) as sock:
        sock.sendall(b"srvr")
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    [line] = [x for x in answer.decode().splitlines() if x.startswith("Received:")]
    return int(line.split()[1])


def test_a_watched_reread_reads_again_only_the_states_that_changed(zookeeper: ZooKeeper) -> None:
    """After a few ISR changes among hundreds of partitions, the next watched read asks
    ZooKeeper for those states (and the few small znodes), not for every state again; what
    it returns is as fresh as a full read, and the changed states stay watched."""
    count = 300
    big = TopicRecord("big", b"\x02" * 16, {p: [1, 2, 3] for p in range(count)}, {})

    async def scenario(connect: str) -> None:
        reader, writer = await started(connect), await started(connect)
        changed = asyncio.Event()
        reader.set_callbacks(changed.set, lambda state: None)
        try:
            await writer.create_topic(
                big, {p: PartitionState(1, 0, [1, 2, 3]) for p in big.assignment}
            )
            first = (await reader.read_view()).states["big"]
            assert len(first) == count
            for isr in ([1, 2], [1]):
                changed.clear()
                old = (await writer.partition_states("big"))[7]
                written = await writer.update_partition_state(
                    "big", 7, PartitionState(1, 0, isr), old.version
                )
                await asyncio.wait_for(changed.wait(), 10)
                before = _received(zookeeper)
                view = (await reader.read_view()).states["big"]
                assert _received(zookeeper) - before < count // 3
                assert (view[7].isr, view[7].version) == (isr, written.version)
                assert view[8] == first[8]
                assert len(view) == count
            assert (await reader.read_view(watch=False)).states["big"] == view
        finally:
            await reader.close()
            await writer.close()

    run(scenario, zookeeper)


def test_a_deposed_controller_is_fenced(zookeeper: ZooKeeper) -> None:
    async def scenario(connect: str) -> None:
        old, new = await started(connect), await started(connect)
        try:
            await old.create_topic(TOPIC, STATES)
            assert await old.try_become_controller(1) == 1
            assert await new.try_become_controller(2) is None  # /controller is taken
            state = (await old.partition_states("orders"))[0]
            moved = PartitionState(2, 1, [2, 3], controller_epoch=1)
            state = await old.update_partition_state_fenced("orders", 0, moved, state.version)
            # The old controller's session ends (as after a long pause); another is elected.
            await old.close()
            old = await started(connect)
            old.controller_epoch_zk_version = 1  # what it held when it was controller
            assert await new.try_become_controller(2) == 2
            stale = PartitionState(3, 2, [3], controller_epoch=1)
            with pytest.raises(ControllerFencedError):
                await old.update_partition_state_fenced("orders", 0, stale, state.version)
            assert (await new.partition_states("orders"))[0].leader == 2
            fresh = PartitionState(3, 2, [3], controller_epoch=2)
            assert (
                await new.update_partition_state_fenced("orders", 0, fresh, state.version)
            ).leader == 3
        finally:
            await old.close()
            await new.close()

    run(scenario, zookeeper)


def test_a_controller_losing_a_compare_and_set_is_not_fenced(zookeeper: ZooKeeper) -> None:
    """A fenced write whose state changed under it (a leader wrote an ISR change) fails as
    stale, and the controller stays controller: ZooKeeper answers RolledBackError for the
    epoch check, which passed. Taken for fencing, it left /controller held by a broker that
    no longer acted as controller."""

    async def scenario(connect: str) -> None:
        store = await started(connect)
        try:
            await store.create_topic(TOPIC, STATES)
            assert await store.try_become_controller(1) == 1
            state = (await store.partition_states("orders"))[0]
            shrunk = PartitionState(1, 0, [1, 2])  # a leader's ISR change
            await store.update_partition_state("orders", 0, shrunk, state.version)
            moved = PartitionState(2, 1, [2, 3], controller_epoch=1)
            fresh = (await store.partition_states("orders"))[1]
            written = await store.update_partition_states_fenced(
                [("orders", 0, moved, state.version), ("orders", 1, moved, fresh.version)]
            )
            assert written[0] is None
            assert written[1] is not None
            assert written[1].leader == 2
            with pytest.raises(BadVersionError):
                await store.update_partition_state_fenced("orders", 0, moved, state.version)
            assert await store.resign_controller(1, any_session=False)
            assert await store.try_become_controller(1) == 2
        finally:
            await store.close()

    run(scenario, zookeeper)


def test_registration_is_ephemeral_and_exclusive(zookeeper: ZooKeeper) -> None:
    async def scenario(connect: str) -> None:
        a, b = await started(connect), await started(connect)
        try:
            await a.register_broker(BrokerRegistration(1, "127.0.0.1", 9092))
            await a.register_broker(BrokerRegistration(1, "127.0.0.1", 9092))  # idempotent
            with pytest.raises(BrokerIdInUseError):
                await b.register_broker(BrokerRegistration(1, "127.0.0.1", 9093))
            assert (await b.brokers())[1].port == 9092
            await a.close()
            assert await b.brokers() == {}  # closed session: the ephemeral node is gone
            await b.register_broker(BrokerRegistration(1, "127.0.0.1", 9093))
        finally:
            await a.close()
            await b.close()

    run(scenario, zookeeper)


def test_producer_id_blocks_never_overlap(zookeeper: ZooKeeper) -> None:
    async def scenario(connect: str) -> list[int]:
        a, b = await started(connect), await started(connect)
        try:
            firsts = await asyncio.gather(*(s.allocate_producer_ids(10) for s in (a, b, a, b)))
        finally:
            await a.close()
            await b.close()
        return sorted(firsts)

    assert run(scenario, zookeeper) == [0, 10, 20, 30]


def test_admin_requests_written_during_a_controller_pass_survive(zookeeper: ZooKeeper) -> None:
    """The controller settles only what it handled: a preferred election or reassignment
    requested while it worked stays pending for its next pass."""

    async def scenario(connect: str) -> None:
        handler, controller = await started(connect), await started(connect)
        try:
            await handler.request_elections({("a", 0)})
            seen = (await controller.read_view()).preferred_elections
            await handler.request_elections({("b", 0)})  # during the pass
            await controller.complete_elections(set(seen))
            assert (await controller.read_view()).preferred_elections == {("b", 0)}
            await controller.complete_elections({("b", 0)})
            assert not controller.client.exists("/admin/preferred_replica_election")

            await handler.merge_reassignments({("a", 0): [1, 2], ("a", 1): [2, 3]})
            seen_targets = (await controller.read_view()).reassignments
            await handler.merge_reassignments({("a", 1): [3, 1], ("a", 2): [1, 3]})
            await controller.complete_reassignments(seen_targets)
            # a-0 finished; a-1 got a new target meanwhile; a-2 is new.
            assert (await controller.read_view()).reassignments == {
                ("a", 1): [3, 1],
                ("a", 2): [1, 3],
            }
            await controller.complete_reassignments({("a", 1): [3, 1], ("a", 2): [1, 3]})
            assert not controller.client.exists("/admin/reassign_partitions")
        finally:
            await handler.close()
            await controller.close()

    run(scenario, zookeeper)
