"""Client quota entities, their ZooKeeper names and encodings, their validation, and their
storage in the single-node store."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ferrolog.controller.quota.entity import ClientQuotaEntity, apply_ops
from ferrolog.controller.store import zk_configs
from ferrolog.controller.store.local import LocalStore
from ferrolog.errors import InvalidRequestError


def test_zookeeper_names_follow_kafka() -> None:
    # Kafka's Sanitizer: URL encoding, `*` and `~` encoded as well.
    assert zk_configs.sanitize("app-1_x.y") == "app-1_x.y"
    assert zk_configs.sanitize("a b*~/<default>") == "a%20b%2A%7E%2F%3Cdefault%3E"
    assert zk_configs.desanitize(zk_configs.sanitize("a b*~/ü")) == "a b*~/ü"
    # Not znode names ZooKeeper takes (found by `ferrolog fuzz`): encoded, and back.
    assert [zk_configs.sanitize(n) for n in (".", "..", "...")] == ["%2E", "%2E%2E", "..."]
    assert [zk_configs.desanitize(zk_configs.sanitize(n)) for n in (".", "..")] == [".", ".."]
    cases = {
        ClientQuotaEntity.of(client_id="c/1"): "clients/c%2F1",
        ClientQuotaEntity.of(client_id=None): "clients/<default>",
        ClientQuotaEntity.of(user="alice"): "users/alice",
        ClientQuotaEntity.of(user=None): "users/<default>",
        ClientQuotaEntity.of(user="alice", client_id=None): "users/alice/clients/<default>",
        ClientQuotaEntity.of(user=None, client_id="c"): "users/<default>/clients/c",
    }
    for entity, path in cases.items():
        assert zk_configs.quota_entity_path(entity) == path
    assert zk_configs.quota_entity("%3Cdefault%3E", "<default>") == ClientQuotaEntity.of(
        user="<default>", client_id=None
    )
    quotas = {"producer_byte_rate": 1048576.0, "request_percentage": 12.5}
    assert zk_configs.decode_quota_config(zk_configs.encode_quota_config(quotas)) == quotas
    assert zk_configs.encode_quota_config({"producer_byte_rate": 1024.0}) == (
        b'{"config":{"producer_byte_rate":"1024"},"version":1}'
    )


def test_ops_apply_as_kafka_validates_them() -> None:
    assert apply_ops({"producer_byte_rate": 1.0}, [("consumer_byte_rate", 2.0)]) == {
        "producer_byte_rate": 1.0,
        "consumer_byte_rate": 2.0,
    }
    assert apply_ops({"producer_byte_rate": 1.0}, [("producer_byte_rate", None)]) == {}
    with pytest.raises(InvalidRequestError, match="Duplicate quota key"):
        apply_ops({}, [("producer_byte_rate", 1.0), ("producer_byte_rate", None)])
    with pytest.raises(InvalidRequestError, match="cannot be a fractional value"):
        apply_ops({}, [("consumer_byte_rate", 1.5)])
    assert apply_ops({}, [("controller_mutation_rate", 1.5)]) == {"controller_mutation_rate": 1.5}


def test_local_store_keeps_quotas(tmp_path: Path) -> None:
    alice = ClientQuotaEntity.of(user="alice", client_id=None)
    app = ClientQuotaEntity.of(client_id="app")

    async def scenario() -> None:
        store = LocalStore(tmp_path)
        await store.start()
        await store.alter_client_quotas({alice: {"producer_byte_rate": 10.0}, app: {"x": 1.0}})
        await store.alter_client_quotas({app: {}})
        await store.close()
        reopened = LocalStore(tmp_path)
        await reopened.start()
        assert await reopened.client_quotas() == {alice: {"producer_byte_rate": 10.0}}
        await reopened.close()

    asyncio.run(scenario())
