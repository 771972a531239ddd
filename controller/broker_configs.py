"""Kafka's dynamic broker configs on the control plane: the per-broker and cluster-default
levels of the properties the config table marks `dynamic`, kept in the metadata store
(`/config/brokers/<id>` and `/config/brokers/<default>` in a cluster) and applied without a
restart.

Writes go to the store first (in a cluster, ZooKeeper, whose change notification tells every
other broker), then to this broker's `BrokerConfig`; a broker in a cluster takes the entities a
notification names (`update`). Whoever applies a change at runtime (the replica manager, for
the topic defaults) subscribes to the properties whose value in effect changed.

What AlterConfigs may change is checked as Kafka 4.1 checks it (`DynamicBrokerConfig
.validateConfigs`), and refused as Kafka 4.1 refuses it: INVALID_REQUEST for a static property
("Cannot update these configs dynamically: Set(...)") and for a bad value (KAFKA-13609).
Names the table does not have are kept and listed, as Kafka keeps custom configs.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from ferrolog.config.table import BROKER_CONFIGS
from ferrolog.config.values import validate_value
from ferrolog.errors import InvalidConfigError, InvalidRequestError

from .entity_manager import EntityConfigManager
from .store.base import MetadataStore
from .store.entities import DEFAULT_ENTITY, EntityType

if TYPE_CHECKING:
    from ferrolog.config import BrokerConfig

log = logging.getLogger(__name__)

# Called with the properties whose value in effect changed.
ChangeListener = Callable[[set[str]], Awaitable[None]]
# Maps an entity's current dynamic configs to the new ones (raising KafkaError to refuse).
BrokerConfigChange = Callable[[dict[str, str]], Mapping[str, str]]
# Stored and reported, but without effect yet.
NOT_ENFORCED = frozenset(
    {
        "leader.replication.throttled.rate",
        "follower.replication.throttled.rate",
    }
)


def validate_broker_configs(configs: Mapping[str, str]) -> dict[str, str]:
    """An entity's new dynamic configs, normalized, or Kafka's INVALID_REQUEST."""
    static = sorted(
        name for name in configs if name in BROKER_CONFIGS and not BROKER_CONFIGS[name].dynamic
    )
    if static:
        raise InvalidRequestError(
            f"Cannot update these configs dynamically: Set({', '.join(static)})"
        )
    result = {}
    for name, value in configs.items():
        definition = BROKER_CONFIGS.get(name)
        try:
            result[name] = value if definition is None else validate_value(definition, value)
        except InvalidConfigError as exc:
            raise InvalidRequestError(exc.message) from None
        refusal = definition.refusal(result[name]) if definition is not None else None
        if refusal is not None:
            raise InvalidRequestError(refusal)
    return result


def entity_name(broker: int | None) -> str:
    return "cluster default" if broker is None else f"broker {broker}"


class DynamicBrokerConfigManager(EntityConfigManager[str, dict[str, str]]):
    """The cluster default's and this broker's dynamic configs, as stored, by entity name
    (`<default>`, the broker id)."""

    entity_types = (EntityType.BROKERS,)

    def __init__(self, store: MetadataStore, config: BrokerConfig) -> None:
        super().__init__(store)
        self._config = config
        self._node_id = config.node_id
        self._listeners: list[ChangeListener] = []

    def key(self, entity_type: EntityType, name: str) -> str | None:
        return name

    def entity(self, key: str) -> tuple[EntityType, str]:
        return EntityType.BROKERS, key

    def decode(self, config: Mapping[str, str]) -> dict[str, str]:
        return dict(config)

    def encode(self, value: dict[str, str]) -> dict[str, str]:
        return dict(value)

    def names(self, entity_type: EntityType) -> list[str]:
        return [DEFAULT_ENTITY, str(self._node_id)]

    def subscribe(self, listener: ChangeListener) -> None:
        self._listeners.append(listener)

    def current(self, broker: int | None) -> dict[str, str]:
        """The dynamic configs of `broker` (None: the cluster default) as stored."""
        return dict(self._table.get(_name(broker), {}))

    async def alter(
        self, broker: int | None, change: BrokerConfigChange, validate_only: bool
    ) -> None:
        """Applies `change` to the dynamic configs of `broker` (None: the cluster default);
        raises what Kafka answers for a refused change."""
        async with self._lock:
            current = self.current(broker)
            updated = validate_broker_configs(change(current))
            if validate_only or updated == current:
                return
            log.info("altered dynamic configs of %s: %s", entity_name(broker), updated or "none")
            await self.write({_name(broker): updated})

    async def published(self) -> None:
        changed = self._config.set_dynamic(
            self._table.get(DEFAULT_ENTITY, {}), self._table.get(str(self._node_id), {})
        )
        if not changed:
            return
        for name in sorted(changed):
            value = self._config.get(name)
            if name in NOT_ENFORCED:
                log.info(
                    "broker config %s=%s stored; ferrolog does not throttle replication yet",
                    name,
                    value,
                )
            else:
                log.info("broker config %s=%s in effect", name, value)
        for listener in self._listeners:
            await listener(changed)


def _name(broker: int | None) -> str:
    """The stored entity name of a broker (None: the cluster default)."""
    return DEFAULT_ENTITY if broker is None else str(broker)
