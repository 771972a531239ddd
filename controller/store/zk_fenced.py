"""The controller's fenced writes to ZooKeeper: multi-ops that also check the version of
`/controller_epoch` as it was when this broker won the election (Kafka's ZooKeeper-mode
controller did the same), so a controller that was paused while another one was elected fails
every write. Blocking kazoo calls, run on the store's threads."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from kazoo.client import KazooClient
from kazoo.exceptions import BadVersionError as ZkBadVersionError
from kazoo.exceptions import NoNodeError, RolledBackError

from . import zk_paths as paths
from .base import BadVersionError, PartitionState


class ControllerFencedError(Exception):
    """A controller write failed because another controller was elected since."""


def write(client: KazooClient, epoch_version: int | None, op: Callable[[Any], object]) -> Any:
    """Runs the one write `op` adds to a transaction that also checks the controller epoch at
    `epoch_version`; returns the write's result (a `ZnodeStat` for a set)."""
    if epoch_version is None:
        raise ControllerFencedError("this broker is not the controller")
    tx = client.transaction()
    tx.check(paths.CONTROLLER_EPOCH, epoch_version)
    op(tx)
    results = tx.commit()
    if epoch_check_failed(results):
        raise ControllerFencedError("another controller was elected")
    if isinstance(results[1], ZkBadVersionError):
        raise BadVersionError("state changed since it was read")
    raise_first(results)
    return results[1]


def write_states(
    client: KazooClient,
    epoch_version: int | None,
    writes: Sequence[tuple[str, int, PartitionState, int]],
) -> list[PartitionState | None]:
    """Many partition state writes, each its own fenced compare-and-set, all sent before any
    answer is awaited (pipelined, as Kafka's ZooKeeper controller sends its state updates).
    Returns, per write, the state with its new version, or None when the state changed since
    it was read. Raises ControllerFencedError once another controller was elected."""
    if epoch_version is None:
        raise ControllerFencedError("this broker is not the controller")
    pending = []
    for name, partition, state, expected in writes:
        tx = client.transaction()
        tx.check(paths.CONTROLLER_EPOCH, epoch_version)
        tx.set_data(paths.state_path(name, partition), paths.encode_state(state), expected)
        pending.append(tx.commit_async())
    out: list[PartitionState | None] = []
    fenced = False
    for (_, _, state, _), result in zip(writes, pending, strict=True):
        results = result.get()
        if epoch_check_failed(results):
            fenced = True
            out.append(None)
        elif isinstance(results[1], ZkBadVersionError):
            out.append(None)
        else:
            raise_first(results)
            out.append(with_version(state, results[1].version))
    if fenced:
        raise ControllerFencedError("another controller was elected")
    return out


def with_version(state: PartitionState, version: int) -> PartitionState:
    return replace(state, version=version)


def epoch_check_failed(results: list[Any]) -> bool:
    """Whether a fenced transaction failed on its `/controller_epoch` check (another
    controller was elected). A multi that fails on a later operation answers RolledBackError
    for the check, which passed: that is a stale state, not a deposed controller."""
    return isinstance(results[0], (ZkBadVersionError, NoNodeError))


def raise_first(results: list[Any]) -> None:
    """Raises the error that failed a multi: ZooKeeper answers RolledBackError for the other
    operations, which is not the cause (the cause is what the caller acts on, as a create
    that finds the node there)."""
    failed = [r for r in results if isinstance(r, Exception)]
    for result in failed:
        if not isinstance(result, RolledBackError):
            raise result
    if failed:
        raise failed[0]
