"""The controller: topic-name rules, replica assignment and elections as pure functions
(table-driven), and the Controller over a LocalStore with a recording stand-in for the native
core."""

from __future__ import annotations

import asyncio
import random
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from admin_broker import FakeNative
from ferrolog.config import BrokerConfig
from ferrolog.controller.cluster import election
from ferrolog.controller.cluster.assignment import assign_replicas, validate_assignment
from ferrolog.controller.cluster.controller import Controller
from ferrolog.controller.cluster.replica_manager import ReplicaManager
from ferrolog.controller.cluster.topics import check_collision, validate_topic_name
from ferrolog.controller.store.base import BrokerRegistration, PartitionState
from ferrolog.controller.store.local import LocalStore
from ferrolog.errors import (
    InvalidConfigError,
    InvalidPartitionsError,
    InvalidReplicaAssignmentError,
    InvalidReplicationFactorError,
    InvalidRequestError,
    InvalidTopicError,
    KafkaError,
    TopicAlreadyExistsError,
    TopicDeletionDisabledError,
    UnknownTopicOrPartitionError,
)


@pytest.mark.parametrize(
    "name", ["a", "orders", "my.topic", "my_topic", "A-b.c_9", "x" * 249, "__consumer_offsets"]
)
def test_legal_topic_names(name: str) -> None:
    validate_topic_name(name)


@pytest.mark.parametrize("name", ["", ".", "..", "x" * 250, "a b", "a/b", "é", "a:b", "a*"])
def test_illegal_topic_names(name: str) -> None:
    with pytest.raises(InvalidTopicError):
        validate_topic_name(name)


@pytest.mark.parametrize(
    ("name", "existing", "collides"),
    [
        ("a.b", ["a_b"], True),
        ("a_b", ["a.b"], True),
        ("a.b", ["a.b"], False),  # the same topic: an existence error, not a collision
        ("a.b", ["a-b", "ab"], False),
    ],
)
def test_collisions(name: str, existing: list[str], collides: bool) -> None:
    if collides:
        with pytest.raises(InvalidTopicError):
            check_collision(name, existing)
    else:
        check_collision(name, existing)


@pytest.mark.parametrize(
    ("brokers", "partitions", "factor", "start", "shift", "expected"),
    [
        ([0], 3, 1, 0, 0, {0: [0], 1: [0], 2: [0]}),
        ([1, 2, 3], 3, 1, 0, 0, {0: [1], 1: [2], 2: [3]}),
        ([1, 2, 3], 3, 1, 1, 0, {0: [2], 1: [3], 2: [1]}),
        ([3, 1, 2], 3, 2, 0, 0, {0: [1, 2], 1: [2, 3], 2: [3, 1]}),
        # After a full round the follower shift grows, so replica sets vary.
        ([1, 2, 3], 6, 2, 0, 0, {0: [1, 2], 1: [2, 3], 2: [3, 1], 3: [1, 3], 4: [2, 1], 5: [3, 2]}),
        ([1, 2, 3], 3, 3, 0, 0, {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}),
    ],
)
def test_assignment_table(
    brokers: list[int],
    partitions: int,
    factor: int,
    start: int,
    shift: int,
    expected: dict[int, list[int]],
) -> None:
    got = assign_replicas(brokers, partitions, factor, start_index=start, replica_shift=shift)
    assert got == expected


def test_assignment_spreads_leaders_evenly() -> None:
    got = assign_replicas(list(range(5)), 50, 3, rng=random.Random(7))
    leaders = Counter(replicas[0] for replicas in got.values())
    assert set(leaders.values()) == {10}
    assert all(len(set(r)) == 3 for r in got.values())


def test_assignment_continues_from_start_partition() -> None:
    got = assign_replicas([0, 1], 2, 1, start_partition=3, start_index=0, replica_shift=0)
    assert got == {3: [1], 4: [0]}


@pytest.mark.parametrize(
    ("brokers", "partitions", "factor", "error"),
    [
        ([0], 0, 1, InvalidPartitionsError),
        ([0], 1, 0, InvalidReplicationFactorError),
        ([0], 1, 2, InvalidReplicationFactorError),
    ],
)
def test_assignment_errors(
    brokers: list[int], partitions: int, factor: int, error: type[KafkaError]
) -> None:
    with pytest.raises(error):
        assign_replicas(brokers, partitions, factor)


@pytest.mark.parametrize(
    "assignment",
    [
        {},
        {0: [0], 2: [0]},  # gap
        {0: [0, 0]},  # duplicate replica
        {0: [5]},  # unknown broker
        {0: [0], 1: [0, 1]},  # uneven replication
        {0: []},
    ],
)
def test_invalid_assignments(assignment: dict[int, list[int]]) -> None:
    with pytest.raises(InvalidReplicaAssignmentError):
        validate_assignment(assignment, [0, 1])


@pytest.mark.parametrize(
    ("replicas", "isr", "live", "unclean", "leader"),
    [
        ([1, 2, 3], [1, 2, 3], {1, 2, 3}, False, 1),
        ([1, 2, 3], [2, 3], {1, 2, 3}, False, 2),
        ([1, 2, 3], [1, 2, 3], {3}, False, 3),
        ([1, 2, 3], [1], {2, 3}, False, -1),
        ([1, 2, 3], [1], {2, 3}, True, 2),
        ([1, 2, 3], [], set(), True, -1),
    ],
)
def test_elect_leader(
    replicas: list[int], isr: list[int], live: set[int], unclean: bool, leader: int
) -> None:
    assert election.elect_leader(replicas, isr, live, unclean) == leader


def test_initial_state_leads_with_first_live_replica() -> None:
    assert election.initial_state([2, 1], {1, 2}) == PartitionState(2, 0, [2, 1])
    assert election.initial_state([2, 1], {1}).leader == 1
    assert election.initial_state([2], set()).leader == -1


@pytest.mark.parametrize(
    ("state", "node", "expected"),
    [
        (PartitionState(1, 4, [1]), 1, PartitionState(1, 5, [1])),
        (PartitionState(2, 4, [1, 2]), 1, None),
        (PartitionState(-1, 4, [1]), 1, PartitionState(1, 5, [1])),
        (PartitionState(-1, 4, [2]), 1, None),
    ],
)
def test_restart_term(state: PartitionState, node: int, expected: PartitionState | None) -> None:
    assert election.restart_term(state, node, [1, 2]) == expected


def test_unclean_leader_resets_isr() -> None:
    state = PartitionState(-1, 3, [1])
    assert election.with_leader(state, 2, [1, 2]) == PartitionState(2, 4, [2])


async def make_controller(path: Path, native: FakeNative, **settings: str) -> Controller:
    config = BrokerConfig({"log.dirs": str(path), **settings})
    store = LocalStore(config.data_dir)
    await store.start()
    controller = Controller(store, config, ReplicaManager(native, config, config.node_id))
    await controller.start(BrokerRegistration(config.node_id, "127.0.0.1", 9092))
    return controller


def test_create_topic_persists_and_opens_leaders(tmp_path: Path) -> None:
    native = FakeNative()

    async def run() -> None:
        controller = await make_controller(tmp_path, native, **{"num.partitions": "3"})
        topic = await controller.create_topic("orders", -1, -1, None, {"retention.ms": "5"})
        assert sorted(topic.assignment) == [0, 1, 2]
        assert len(topic.topic_id) == 16
        states = controller.partition_states("orders")
        assert all(s.leader == 0 and s.leader_epoch == 0 and s.isr == [0] for s in states.values())
        await controller.loaded()  # the replicas open in the background

    asyncio.run(run())
    opens = [c for c in native.calls if c[0] == "open"]
    leaders = [c for c in native.calls if c[0] == "leader"]
    assert sorted(c[2] for c in opens) == [0, 1, 2]
    assert opens[0][4]["retention.ms"] == "5"
    assert opens[0][4]["segment.bytes"] == "1073741824"
    assert ("leader", "orders", 0, 0, [0], [0]) in leaders


def test_restart_bumps_leader_epoch(tmp_path: Path) -> None:
    async def run() -> list[int]:
        first = await make_controller(tmp_path, FakeNative())
        await first.create_topic("orders", 2, 1, None, {})
        native = FakeNative()
        await make_controller(tmp_path, native)
        third = await make_controller(tmp_path, FakeNative())
        assert [c[3] for c in native.calls if c[0] == "leader"] == [1, 1]
        return [s.leader_epoch for s in third.partition_states("orders").values()]

    assert asyncio.run(run()) == [2, 2]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("bad name", 1, 1, None, {}), InvalidTopicError),
        (("t", 0, 1, None, {}), InvalidPartitionsError),
        (("t", 1, 2, None, {}), InvalidReplicationFactorError),
        (("t", 1, 0, None, {}), InvalidReplicationFactorError),
        (("t", 1, 1, {0: [0]}, {}), InvalidRequestError),
        (("t", -1, -1, {0: [7]}, {}), InvalidReplicaAssignmentError),
        (("t", 1, 1, None, {"no.such.config": "1"}), InvalidConfigError),
        (("t", 1, 1, None, {"retention.ms": "soon"}), InvalidConfigError),
        (("t", 1, 1, None, {"cleanup.policy": "shred"}), InvalidConfigError),
    ],
)
def test_create_topic_errors(tmp_path: Path, args: tuple[Any, ...], error: type[Exception]) -> None:
    async def run() -> None:
        controller = await make_controller(tmp_path, FakeNative())
        with pytest.raises(error):
            await controller.create_topic(*args)
        assert controller.topics() == {}

    asyncio.run(run())


def test_existing_and_colliding_topics(tmp_path: Path) -> None:
    async def run() -> None:
        controller = await make_controller(tmp_path, FakeNative())
        await controller.create_topic("a.b", 1, 1, None, {})
        with pytest.raises(TopicAlreadyExistsError):
            await controller.create_topic("a.b", 1, 1, None, {})
        with pytest.raises(InvalidTopicError):
            await controller.create_topic("a_b", 1, 1, None, {})

    asyncio.run(run())


def test_validate_only_writes_nothing(tmp_path: Path) -> None:
    native = FakeNative()

    async def run() -> None:
        controller = await make_controller(tmp_path, native)
        await controller.create_topic("t", 4, 1, None, {}, validate_only=True)
        assert controller.topics() == {}
        assert await controller.store.topics() == {}

    asyncio.run(run())
    assert native.calls == []


def test_delete_topic(tmp_path: Path) -> None:
    native = FakeNative()

    async def run() -> None:
        controller = await make_controller(tmp_path, native)
        await controller.create_topic("t", 2, 1, None, {})
        await controller.delete_topic("t")
        assert controller.topic("t") is None
        with pytest.raises(UnknownTopicOrPartitionError):
            await controller.delete_topic("t")
        await controller.create_topic("__consumer_offsets", 1, 1, None, {})
        with pytest.raises(InvalidTopicError):
            await controller.delete_topic("__consumer_offsets")

    asyncio.run(run())
    assert [c for c in native.calls if c[0] == "delete"] == [("delete", "t", 0), ("delete", "t", 1)]


def test_delete_disabled(tmp_path: Path) -> None:
    async def run() -> None:
        controller = await make_controller(
            tmp_path, FakeNative(), **{"delete.topic.enable": "false"}
        )
        await controller.create_topic("t", 1, 1, None, {})
        with pytest.raises(TopicDeletionDisabledError):
            await controller.delete_topic("t")

    asyncio.run(run())


def test_create_partitions(tmp_path: Path) -> None:
    async def run() -> None:
        controller = await make_controller(tmp_path, FakeNative())
        await controller.create_topic("t", 2, 1, None, {})
        with pytest.raises(InvalidPartitionsError):
            await controller.create_partitions("t", 2, None)
        with pytest.raises(InvalidPartitionsError):
            await controller.create_partitions("t", 1, None)
        with pytest.raises(InvalidReplicaAssignmentError):
            await controller.create_partitions("t", 4, [[0]])
        with pytest.raises(UnknownTopicOrPartitionError):
            await controller.create_partitions("nope", 4, None)
        await controller.create_partitions("t", 4, [[0], [0]])
        assert sorted(controller.topic("t").assignment) == [0, 1, 2, 3]  # type: ignore[union-attr]
        assert set(controller.partition_states("t")) == {0, 1, 2, 3}
        await controller.create_partitions("t", 5, None)
        reread = await controller.store.topics()
        assert sorted(reread["t"].assignment) == [0, 1, 2, 3, 4]

    asyncio.run(run())


def test_alter_topic_configs(tmp_path: Path) -> None:
    native = FakeNative()

    async def run() -> None:
        controller = await make_controller(tmp_path, native)
        await controller.create_topic("t", 1, 1, None, {"retention.ms": "5"})
        with pytest.raises(InvalidConfigError):
            await controller.alter_topic_configs("t", lambda _: {"retention.ms": "x"})
        await controller.alter_topic_configs("t", lambda _: {"segment.bytes": "1048576"})
        assert (await controller.store.topics())["t"].configs == {"segment.bytes": "1048576"}

    asyncio.run(run())
    pushed = [c for c in native.calls if c[0] == "config"]
    assert pushed[-1][2]["segment.bytes"] == "1048576"
    assert pushed[-1][2]["retention.ms"] == "604800000"


class SlowNative(FakeNative):
    """Opens partitions only when the test lets it."""

    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()

    def open_partitions(
        self, configs: dict[str, dict[str, str]], partitions: list[tuple[Any, ...]]
    ) -> list[Exception | None]:
        assert self.go.wait(30)
        return super().open_partitions(configs, partitions)


def test_created_topics_are_answered_before_their_logs_open_and_kept_in_order(
    tmp_path: Path,
) -> None:
    """As a Kafka broker after its controller commits: CreateTopics is answered once the
    metadata is written, the logs open in the background, and what comes after (a delete)
    waits for them, so a deleted topic's replicas are never opened after the delete."""
    native = SlowNative()

    async def run() -> None:
        controller = await make_controller(tmp_path, native)
        native.go.set()
        await controller.loaded()
        native.go.clear()
        await asyncio.wait_for(controller.create_topic("t", 2, 1, None, {}), 10)
        assert [c for c in native.calls if c[0] == "open"] == []
        assert controller.partition_states("t")[0].leader == 0
        deleting = asyncio.ensure_future(controller.delete_topic("t"))
        await asyncio.sleep(0.2)  # time for the delete to run as far as it can
        assert not deleting.done()
        native.go.set()
        await asyncio.wait_for(deleting, 10)
        kinds = [c[0] for c in native.calls if c[0] in ("open", "delete")]
        assert kinds == ["open", "open", "delete", "delete"]

    asyncio.run(run())
