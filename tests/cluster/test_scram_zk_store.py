"""The user config znode in ZooKeeper, shared by client quotas and SCRAM credentials as in
Kafka's ZooKeeper mode: each kind of write keeps the other's keys, the notifications a broker
reads yield both, and the znode goes once neither is left."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from ferrolog.controller.quota.entity import ClientQuotaEntity
from ferrolog.controller.scram import MECHANISMS, ScramCredential
from ferrolog.controller.store import zk_configs
from ferrolog.controller.store import zk_paths as paths
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


def test_quotas_and_credentials_keep_each_other(zk: KazooClient) -> None:
    alice = ClientQuotaEntity.of(user="alice")
    latest, _ = zk_configs.read_changes(zk, None, None, ())
    zk_configs.write_quotas(zk, {alice: {"producer_byte_rate": 1024.0}})
    zk_configs.write_scram(zk, {"alice": {SHA256.name: credential(1, 8192)}})
    zk_configs.write_scram(zk, {"alice": {SHA512.name: credential(2)}})
    assert stored(zk, "alice") == {
        "producer_byte_rate": "1024",
        SHA256.name: credential(1, 8192).to_config(),
        SHA512.name: credential(2).to_config(),
    }
    # A quota write replaces the quotas only.
    zk_configs.write_quotas(zk, {alice: {"consumer_byte_rate": 2048.0}})
    assert set(stored(zk, "alice")) == {"consumer_byte_rate", SHA256.name, SHA512.name}
    # What a broker reads: everything at once, or what the notifications name.
    quotas, scram = zk_configs.read_entities(zk)
    assert quotas == {alice: {"consumer_byte_rate": 2048.0}}
    assert scram == {"alice": {SHA256.name: credential(1, 8192), SHA512.name: credential(2)}}
    # What an alteration reads to check its deletions: the users it names, fresh.
    assert zk_configs.read_scram(zk, ["alice", "nobody"]) == scram
    _, changes = zk_configs.read_changes(zk, None, latest, ())
    assert changes is not None
    assert not changes.full
    assert changes.quotas == quotas
    assert changes.scram == scram
    # A SCRAM write removes one mechanism and keeps the quota.
    zk_configs.write_scram(zk, {"alice": {SHA256.name: None, SHA512.name: None}})
    assert stored(zk, "alice") == {"consumer_byte_rate": "2048"}
    assert zk_configs.read_entities(zk)[1] == {}
    # Nothing left: no znode, as Kafka leaves none.
    zk_configs.write_quotas(zk, {alice: {}})
    assert zk.exists("/config/users/alice") is None


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
    quotas, scram = zk_configs.read_entities(zk)
    assert quotas == {ClientQuotaEntity.of(user="bob"): {"producer_byte_rate": 10.0}}
    assert scram == {"bob": {SHA512.name: credential(2)}}


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
