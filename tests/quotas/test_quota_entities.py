"""Client quota entities as Kafka names and stores them (`/config/clients/<id>`,
`/config/users/<user>/clients/<id>`, `<default>`), and AlterClientQuotas' operations on a
stored entity's quotas, validated as Kafka validates them."""

from __future__ import annotations

import pytest
from ferrolog.controller.quota.entity import (
    ClientQuotaEntity,
    apply_ops,
    entity_of_stored,
    quota_config,
    quotas_of_config,
    stored_entity,
)
from ferrolog.controller.store.entities import EntityType, entity_path
from ferrolog.errors import InvalidRequestError


def test_entities_are_stored_at_kafkas_paths() -> None:
    cases = {
        ClientQuotaEntity.of(client_id="c/1"): "clients/c%2F1",
        ClientQuotaEntity.of(client_id=None): "clients/<default>",
        ClientQuotaEntity.of(user="alice"): "users/alice",
        ClientQuotaEntity.of(user=None): "users/<default>",
        ClientQuotaEntity.of(user="alice", client_id=None): "users/alice/clients/<default>",
        ClientQuotaEntity.of(user=None, client_id="c"): "users/<default>/clients/c",
        ClientQuotaEntity.of(user="<default>", client_id=None): (
            "users/%3Cdefault%3E/clients/<default>"
        ),
    }
    for entity, path in cases.items():
        assert entity_path(*stored_entity(entity)) == path
        assert entity_of_stored(*stored_entity(entity)) == entity
    assert entity_of_stored(EntityType.USERS, "alice/other/x") is None
    quotas = {"producer_byte_rate": 1048576.0, "request_percentage": 12.5}
    assert quotas_of_config(quota_config(quotas)) == quotas


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
