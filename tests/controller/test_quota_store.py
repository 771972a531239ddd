"""Config entity names as stored (Kafka's ZooKeeper names) and their encoding, and client
quotas in the single-node store: through the quota manager, beside a user's SCRAM credentials
in the same config entity, and from files written before config entities. How quota entities
map to config entities is in tests/quotas."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from ferrolog.controller.quota.entity import (
    ClientQuotaEntity,
    quota_config,
)
from ferrolog.controller.quota.manager import ClientQuotaControlManager
from ferrolog.controller.scram.manager import ScramControlManager
from ferrolog.controller.scram.model import MECHANISMS, Deletion, Upsertion
from ferrolog.controller.store import zk_configs
from ferrolog.controller.store.entities import EntityType, desanitize, sanitize
from ferrolog.controller.store.local import LocalStore


def test_zookeeper_names_follow_kafka() -> None:
    # Kafka's Sanitizer: URL encoding, `*` and `~` encoded as well.
    assert sanitize("app-1_x.y") == "app-1_x.y"
    assert sanitize("a b*~/<default>") == "a%20b%2A%7E%2F%3Cdefault%3E"
    assert desanitize(sanitize("a b*~/ü")) == "a b*~/ü"
    # Not znode names ZooKeeper takes (found by `ferrolog fuzz`): encoded, and back.
    assert [sanitize(n) for n in (".", "..", "...")] == ["%2E", "%2E%2E", "..."]
    assert [desanitize(sanitize(n)) for n in (".", "..")] == [".", ".."]
    assert zk_configs.encode_entity_config(quota_config({"producer_byte_rate": 1024.0})) == (
        b'{"config":{"producer_byte_rate":"1024"},"version":1}'
    )


def test_local_store_keeps_quotas_and_credentials_of_one_user_apart(tmp_path: Path) -> None:
    sha256 = MECHANISMS[1]

    async def scenario() -> None:
        store = LocalStore(tmp_path)
        await store.start()
        quotas, scram = ClientQuotaControlManager(store), ScramControlManager(store)
        user = [("user", "alice")]
        app_entry = [("client-id", "app")]
        rate = [("producer_byte_rate", 10.0)]
        assert await quotas.alter([(user, rate), (app_entry, rate)], False) == [None, None]
        upsert = Upsertion("alice", 1, 4096, b"salt", bytes(32))
        assert await scram.alter([], [upsert]) == [("alice", None)]
        # Each manager wrote only its keys of alice's entity.
        stored = await store.entity_configs(EntityType.USERS)
        assert set(stored["alice"]) == {"producer_byte_rate", sha256.name}
        assert await quotas.alter([(app_entry, [("producer_byte_rate", None)])], False) == [None]
        assert await quotas.alter([(user, [("producer_byte_rate", None)])], False) == [None]
        assert set((await store.entity_configs(EntityType.USERS))["alice"]) == {sha256.name}
        await store.close()

        reopened = LocalStore(tmp_path)
        await reopened.start()
        quotas, scram = ClientQuotaControlManager(reopened), ScramControlManager(reopened)
        await quotas.load()
        await scram.load()
        assert quotas.quotas == {}
        assert list(scram.credentials) == ["alice"]
        assert await scram.alter([Deletion("alice", 1)], []) == [("alice", None)]
        assert await reopened.entity_configs(EntityType.USERS) == {}
        await reopened.close()

    asyncio.run(scenario())


def test_a_file_from_before_config_entities_is_read_as_its_entities(tmp_path: Path) -> None:
    credential = "salt=c2FsdA==,stored_key=AA==,server_key=AA==,iterations=4096"
    old = {
        "format": 1,
        "cluster_id": "AAAAAAAAAAAAAAAAAAAAAA",
        "next_producer_id": 0,
        "topics": {},
        "client_quotas": [
            {"entity": {"user": "a b", "client-id": None}, "quotas": {"producer_byte_rate": 5.0}}
        ],
        "scram_credentials": {"a b": {"SCRAM-SHA-256": credential}},
        "broker_configs": {"<default>": {"log.retention.ms": "5"}},
        "group_configs": {"orders/eu": {"consumer.session.timeout.ms": "50000"}},
    }
    (tmp_path / "ferrolog-metadata.json").write_text(json.dumps(old))

    async def scenario() -> None:
        store = LocalStore(tmp_path)
        await store.start()
        assert await store.entity_configs(EntityType.USERS) == {
            "a%20b/clients/<default>": {"producer_byte_rate": "5"},
            "a%20b": {"SCRAM-SHA-256": credential},
        }
        assert await store.entity_configs(EntityType.BROKERS, ["<default>"]) == {
            "<default>": {"log.retention.ms": "5"}
        }
        assert await store.entity_configs(EntityType.GROUPS) == {
            "orders%2Feu": {"consumer.session.timeout.ms": "50000"}
        }
        quotas = ClientQuotaControlManager(store)
        await quotas.load()
        entity = ClientQuotaEntity.of(user="a b", client_id=None)
        assert quotas.quotas == {entity: {"producer_byte_rate": 5.0}}
        await store.close()

    asyncio.run(scenario())
