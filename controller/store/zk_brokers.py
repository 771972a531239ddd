"""Brokers and the controller in ZooKeeper, as Kafka's ZooKeeper mode keeps them: each broker's
ephemeral registration at `/brokers/ids/<id>`, the ephemeral `/controller` and the
`/controller_epoch` whose version fences a deposed controller. Blocking kazoo calls, run on the
store's threads."""

from __future__ import annotations

import contextlib
import logging

from kazoo.client import KazooClient
from kazoo.exceptions import BadVersionError as ZkBadVersionError
from kazoo.exceptions import NodeExistsError, NoNodeError

from . import zk_paths as paths
from .base import BrokerRegistration

log = logging.getLogger(__name__)


class BrokerIdInUseError(Exception):
    """`/brokers/ids/<id>` belongs to another session (often: this broker's previous process,
    until its session times out)."""


def register(
    client: KazooClient, session: int, registration: BrokerRegistration, replace_stale: bool
) -> None:
    """Creates the ephemeral registration of `session`; see `ZkStore.register_broker`."""
    path = paths.broker_path(registration.node_id)
    data = paths.encode_broker(registration)
    try:
        client.create(path, data, ephemeral=True)
        return
    except NodeExistsError:
        pass
    try:
        held, stat = client.get(path)
    except NoNodeError:
        raise BrokerIdInUseError(f"{path} vanished; retry") from None
    if stat.ephemeralOwner == session:
        return
    old = paths.decode_broker(registration.node_id, held)
    ours = (old.host, old.port) == (registration.host, registration.port)
    if not (replace_stale and ours):
        raise BrokerIdInUseError(f"{path} is held by another ZooKeeper session")
    try:
        client.delete(path, stat.version)
        client.create(path, data, ephemeral=True)
    except (NoNodeError, NodeExistsError, ZkBadVersionError):
        raise BrokerIdInUseError(f"{path} changed while replacing it; retry") from None
    log.warning(
        "replaced the registration of a previous process of this broker node_id=%d session=0x%x",
        registration.node_id,
        stat.ephemeralOwner,
    )


def elect(client: KazooClient, node_id: int) -> tuple[int, int] | None:
    """Creates the ephemeral `/controller` node and bumps `/controller_epoch`: the new
    controller epoch and the version of `/controller_epoch` that fences this controller's
    writes, or None if another broker is the controller."""
    try:
        client.create(paths.CONTROLLER, paths.encode_controller(node_id), ephemeral=True)
    except NodeExistsError:
        return None
    with contextlib.suppress(NodeExistsError):
        client.create(paths.CONTROLLER_EPOCH, paths.encode_controller_epoch(0))
    data, stat = client.get(paths.CONTROLLER_EPOCH)
    epoch = paths.decode_controller_epoch(data) + 1
    try:
        written = client.set(
            paths.CONTROLLER_EPOCH, paths.encode_controller_epoch(epoch), stat.version
        )
    except ZkBadVersionError:
        client.delete(paths.CONTROLLER)
        return None
    return epoch, written.version


def resign(client: KazooClient, session: int, node_id: int, any_session: bool) -> bool:
    """Deletes `/controller` if it names `node_id` (and, unless `any_session`, if `session`
    holds it); True if it was deleted."""
    try:
        data, stat = client.get(paths.CONTROLLER)
        if paths.decode_controller(data) != node_id:
            return False
        if not any_session and stat.ephemeralOwner != session:
            return False
        client.delete(paths.CONTROLLER, stat.version)
        return True
    except (NoNodeError, ZkBadVersionError):
        return False
