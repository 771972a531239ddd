"""The user config znode in ZooKeeper, shared by client quotas and SCRAM credentials as in
Kafka's ZooKeeper mode: a write of some keys keeps the others, the notifications a broker reads
name the entities written, and the znode goes once nothing is left in it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from ferrolog.controller.quota.entity import quotas_of_config
from ferrolog.controller.scram.model import MECHANISMS, ScramCredential, credentials_of_config
from ferrolog.controller.store import zk_configs
from ferrolog.controller.store import zk_paths as paths
from ferrolog.controller.store.entities import EntityType
from kazoo.client import KazooClient

from tests.cluster.harness import ZooKeeper

pytestmark = pytest.mark.slow

SHA256, SHA512 = MECHANISMS[1], MECHANISMS[2]


@pytest.fixture
def zk(zookeeper: ZooKeeper) -> Iterator[KazooClient]:
    chroot = f"/scram-{uuid.uuid4().hex[:8]}"
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


def credential(mechanism: int, iterations: int = 4096) -> ScramCredential:
    return ScramCredential.from_salted_password(
        MECHANISMS[mechanism], b"salt" * 4, bytes(range(32)), iterations
    )


def stored(zk: KazooClient, znode: str) -> dict[str, str]:
    return dict(json.loads(zk.get(f"/config/users/{znode}")[0])["config"])


def test_writes_of_one_users_keys_keep_the_others(zk: KazooClient) -> None:
    users = EntityType.USERS
    quota = {"producer_byte_rate": "1024"}
    latest, _ = zk_configs.read_changes(zk, None, None, ())
    zk_configs.alter_entities(zk, users, {"alice": quota})
    zk_configs.alter_entities(zk, users, {"alice": {SHA256.name: credential(1, 8192).to_config()}})
    zk_configs.alter_entities(zk, users, {"alice": {SHA512.name: credential(2).to_config()}})
    zk_configs.alter_entities(zk, users, {"alice/clients/app": quota})
    assert stored(zk, "alice") == {
        "producer_byte_rate": "1024",
        SHA256.name: credential(1, 8192).to_config(),
        SHA512.name: credential(2).to_config(),
    }
    # A quota write changes the quota keys only.
    zk_configs.alter_entities(
        zk, users, {"alice": {"producer_byte_rate": None, "consumer_byte_rate": "2048"}}
    )
    assert set(stored(zk, "alice")) == {"consumer_byte_rate", SHA256.name, SHA512.name}
    # What a broker reads: every entity of a type (a user's clients too), or some by name,
    # or what the notifications since its last read name.
    everything = zk_configs.read_entities(zk, users)
    assert list(everything) == ["alice", "alice/clients/app"]
    assert credentials_of_config(everything["alice"]) == {
        SHA256.name: credential(1, 8192),
        SHA512.name: credential(2),
    }
    assert quotas_of_config(everything["alice"]) == {"consumer_byte_rate": 2048.0}
    assert zk_configs.read_entities(zk, users, ["alice", "nobody"]) == {
        "alice": everything["alice"],
        "nobody": {},
    }
    _, changes = zk_configs.read_changes(zk, None, latest, ())
    assert changes is not None
    assert not changes.full
    assert changes.entities == {users: everything}
    # Removing the credentials keeps the quota.
    zk_configs.alter_entities(zk, users, {"alice": {SHA256.name: None, SHA512.name: None}})
    assert stored(zk, "alice") == {"consumer_byte_rate": "2048"}
    # Nothing left: the znode stays only while it holds a client's, empty, as in Kafka.
    zk_configs.alter_entities(zk, users, {"alice": {"consumer_byte_rate": None}})
    assert stored(zk, "alice") == {}
    zk_configs.alter_entities(zk, users, {"alice/clients/app": {"producer_byte_rate": None}})
    assert zk.exists("/config/users/alice/clients/app") is None


def test_a_malformed_credential_loses_itself_only(zk: KazooClient) -> None:
    zk.create(
        "/config/users/bob",
        zk_configs.encode_entity_config(
            {
                "producer_byte_rate": "10",
                SHA256.name: "salt=notbase64!,stored_key=,server_key=,iterations=1",
                SHA512.name: credential(2).to_config(),
            }
        ),
    )
    (config,) = zk_configs.read_entities(zk, EntityType.USERS).values()
    assert quotas_of_config(config) == {"producer_byte_rate": 10.0}
    assert credentials_of_config(config) == {SHA512.name: credential(2)}


def test_credential_string_is_kafkas() -> None:
    made = credential(1, 8192)
    text = made.to_config()
    assert text.startswith("salt=c2FsdHNhbHRzYWx0c2FsdA==,stored_key=")
    assert text.endswith(",iterations=8192")
    assert ScramCredential.from_config(text) == made
    # Neither key is ever in a log line.
    assert repr(made) == "ScramCredential(iterations=8192)"
    with pytest.raises(ValueError, match="not valid"):
        ScramCredential.from_config("salt=AA==,iterations=1")
