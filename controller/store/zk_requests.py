"""The request znodes of Kafka's ZooKeeper mode that brokers and admin requests write and the
controller settles: `/admin/reassign_partitions`, preferred and unclean elections, controlled
shutdown, offline replicas with their `/log_dir_event_notification`; and the producer id
blocks of `/latest_producer_id_block`. Blocking kazoo calls, run
on the store's threads.

Reassignments and elections are written by request handlers on any broker and settled by the
controller, possibly at the same moment: every change is a compare-and-set on the znode's
version, and the controller removes only what it finished, so a request written during its
pass survives."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection

from kazoo.client import KazooClient
from kazoo.exceptions import BadVersionError as ZkBadVersionError
from kazoo.exceptions import NodeExistsError, NoNodeError

from . import zk_paths as paths
from .view import TopicPartition

Reassignments = dict[TopicPartition, list[int]]


def update_reassignments(
    client: KazooClient, change: Callable[[Reassignments], Reassignments]
) -> Reassignments:
    """Applies `change` to the pending reassignments; returns what is pending after it."""

    def apply(data: bytes) -> bytes | None:
        pending = change(paths.decode_reassignments(data) if data else {})
        return paths.encode_reassignments(pending) if pending else None

    written = update(client, paths.REASSIGN, apply)
    return paths.decode_reassignments(written) if written else {}


def update_elections(
    client: KazooClient,
    unclean: bool,
    change: Callable[[set[TopicPartition]], set[TopicPartition]],
) -> None:
    """Applies `change` to the pending preferred-leader (or unclean) elections."""
    path = paths.UNCLEAN_ELECTION if unclean else paths.PREFERRED_ELECTION

    def apply(data: bytes) -> bytes | None:
        pending = change(paths.decode_preferred(data) if data else set())
        return paths.encode_preferred(pending) if pending else None

    update(client, path, apply)


def update(client: KazooClient, path: str, change: Callable[[bytes], bytes | None]) -> bytes | None:
    """Read-modify-write of `path`, compare-and-set on its version and retried on a race;
    `change` maps the current bytes (b"" when absent) to the new ones, None deleting the
    znode. Returns what was written."""
    while True:
        try:
            data, stat = client.get(path)
            version: int | None = stat.version
        except NoNodeError:
            data, version = b"", None
        encoded = change(data)
        try:
            if encoded is None:
                if version is not None:
                    client.delete(path, version)
            elif version is None:
                client.create(path, encoded, makepath=True)
            else:
                client.set(path, encoded, version)
            return encoded
        except (NodeExistsError, NoNodeError, ZkBadVersionError):
            continue


def request_controlled_shutdown(client: KazooClient, node_id: int) -> None:
    with contextlib.suppress(NodeExistsError):
        client.create(paths.shutdown_path(node_id), b"", ephemeral=True)


def report_offline_replicas(
    client: KazooClient, session: int, node_id: int, partitions: set[TopicPartition]
) -> None:
    """Publishes the replicas of `node_id` in offline log directories and notifies the
    controller, as Kafka's brokers do."""
    path = paths.offline_replicas_path(node_id)
    data = paths.encode_offline_replicas(partitions)
    try:
        client.create(path, data, ephemeral=True)
    except NodeExistsError:
        _, stat = client.get(path)
        if stat.ephemeralOwner == session:
            client.set(path, data, stat.version)
        else:  # a previous process's, whose session has not expired yet
            client.delete(path, stat.version)
            client.create(path, data, ephemeral=True)
    client.create(
        f"{paths.LOG_DIR_EVENT_NOTIFICATION}/{paths.LOG_DIR_EVENT_PREFIX}",
        paths.encode_log_dir_event(node_id),
        sequence=True,
    )


def complete_log_dir_events(client: KazooClient, names: Collection[str]) -> None:
    """The controller handled these notifications (Kafka's controller deletes them)."""
    for name in names:
        with contextlib.suppress(NoNodeError):
            client.delete(f"{paths.LOG_DIR_EVENT_NOTIFICATION}/{name}")


def allocate_producer_ids(client: KazooClient, count: int) -> int:
    """Reserves the next `count` producer ids in `/latest_producer_id_block`
    (compare-and-set: brokers allocate concurrently); returns the first."""
    client.ensure_path(paths.PRODUCER_ID_BLOCK)
    while True:
        data, stat = client.get(paths.PRODUCER_ID_BLOCK)
        first = paths.decode_producer_id_block_end(data) + 1
        block = paths.encode_producer_id_block(0, first, first + count - 1)
        try:
            client.set(paths.PRODUCER_ID_BLOCK, block, stat.version)
            return first
        except ZkBadVersionError:
            continue
