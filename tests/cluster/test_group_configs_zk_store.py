"""Group configs (resource type GROUP) in ZooKeeper, laid out as the other config entities:
`/config/groups/<sanitized group>` holds `{"version":1,"config":{...}}`, each write leaves a
`/config/changes` notification naming `groups/<group>`, and a broker reading the changes since
its last read gets only the groups named (an empty config: the group has none left)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from ferrolog.controller.store import zk_configs
from ferrolog.controller.store import zk_paths as paths
from ferrolog.controller.store.entities import EntityType, sanitize
from kazoo.client import KazooClient

from tests.cluster.harness import ZooKeeper

pytestmark = pytest.mark.slow

GROUPS = EntityType.GROUPS


@pytest.fixture
def zk(zookeeper: ZooKeeper) -> Iterator[KazooClient]:
    chroot = f"/groups-{uuid.uuid4().hex[:8]}"
    root = zookeeper.client()
    root.ensure_path(chroot)
    root.stop()
    root.close()
    client = zookeeper.client(chroot)
    for path in paths.PERSISTENT_ROOTS:
        client.ensure_path(path)
    yield client
    client.stop()
    client.close()


def test_group_configs_are_config_entities_with_notifications(zk: KazooClient) -> None:
    latest, _ = zk_configs.read_changes(zk, None, None, ())
    zk_configs.alter_entities(
        zk, GROUPS, {sanitize("orders/eu"): {"consumer.session.timeout.ms": "50000"}}
    )
    zk_configs.alter_entities(zk, GROUPS, {"plain": {"consumer.heartbeat.interval.ms": "6000"}})
    data, _ = zk.get("/config/groups/orders%2Feu")
    assert json.loads(data) == {"version": 1, "config": {"consumer.session.timeout.ms": "50000"}}
    notes = sorted(zk.get_children("/config/changes"))
    assert [json.loads(zk.get(f"/config/changes/{n}")[0]) for n in notes[-2:]] == [
        {"version": 2, "entity_path": "groups/orders%2Feu"},
        {"version": 2, "entity_path": "groups/plain"},
    ]
    both = {
        "orders%2Feu": {"consumer.session.timeout.ms": "50000"},
        "plain": {"consumer.heartbeat.interval.ms": "6000"},
    }
    assert zk_configs.read_entities(zk, GROUPS) == both
    latest, changes = zk_configs.read_changes(zk, None, latest, ())
    assert changes is not None
    assert not changes.full
    assert changes.entities == {GROUPS: both}
    # Removing a group's last config removes its znode; the next read names only that group.
    zk_configs.alter_entities(zk, GROUPS, {"plain": {"consumer.heartbeat.interval.ms": None}})
    assert zk.exists("/config/groups/plain") is None
    _, changes = zk_configs.read_changes(zk, None, latest, ())
    assert changes is not None
    assert changes.entities == {GROUPS: {"plain": {}}}
    _, everything = zk_configs.read_changes(zk, None, False, ())
    assert everything is not None
    assert everything.full
    assert everything.entities[GROUPS] == {"orders%2Feu": {"consumer.session.timeout.ms": "50000"}}
