"""Metadata names a partition's leader only if that broker is among the live brokers the
answer lists, on the client's listener, as Kafka's metadata cache does; otherwise no leader
and LEADER_NOT_AVAILABLE (LISTENER_NOT_FOUND from v6 when the leader lacks the listener).

A broker learns that another one died (its registration gone) before the controller has moved
that broker's partitions: kafka-python 3's producer, told of a leader it had no endpoint for,
looped on it until its sends timed out. The window is short in a cluster, so this test builds
that view directly rather than racing for it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from ferrolog.controller.store.base import BrokerRegistration, Endpoint, PartitionState, TopicRecord
from ferrolog.handlers.metadata import _describe

LEADER_NOT_AVAILABLE, LISTENER_NOT_FOUND = 5, 72


def _view(live: dict[int, BrokerRegistration], leader: int, version: int) -> Any:
    controller = SimpleNamespace(
        brokers=lambda: live,
        partition_states=lambda name: {0: PartitionState(leader, 7, [1, 2, 3])},
        offline_replicas=lambda tp: (),
    )
    ctx: Any = SimpleNamespace(
        broker=SimpleNamespace(controller=controller),
        listener_name="PLAINTEXT",
        api_version=version,
    )
    record = TopicRecord("t", bytes(16), {0: [3, 1, 2]})
    return _describe(ctx, record)["partitions"][0]


def _broker(node_id: int, *listeners: str) -> BrokerRegistration:
    endpoints = tuple(Endpoint(name, "127.0.0.1", 9000 + node_id, name) for name in listeners)
    return BrokerRegistration(node_id, "127.0.0.1", 9000 + node_id, endpoints=endpoints)


def test_a_live_leader_is_named() -> None:
    live = {n: _broker(n, "PLAINTEXT") for n in (1, 2, 3)}
    partition = _view(live, leader=3, version=12)
    assert (partition["leader_id"], partition["error_code"]) == (3, 0)


@pytest.mark.parametrize("version", [1, 12])
def test_a_leader_that_is_not_live_is_no_leader(version: int) -> None:
    live = {n: _broker(n, "PLAINTEXT") for n in (1, 2)}
    partition = _view(live, leader=3, version=version)
    assert (partition["leader_id"], partition["error_code"]) == (-1, LEADER_NOT_AVAILABLE)
    assert partition["leader_epoch"] == 7
    assert partition["offline_replicas"] == [3]


@pytest.mark.parametrize(("version", "code"), [(5, LEADER_NOT_AVAILABLE), (6, LISTENER_NOT_FOUND)])
def test_a_leader_without_the_clients_listener_is_no_leader(version: int, code: int) -> None:
    live = {1: _broker(1, "PLAINTEXT"), 2: _broker(2, "PLAINTEXT"), 3: _broker(3, "SSL")}
    partition = _view(live, leader=3, version=version)
    assert (partition["leader_id"], partition["error_code"]) == (-1, code)
