"""Kafka's client quota entities and keys, as AlterClientQuotas and DescribeClientQuotas name
them, validated as Kafka 4.1's controller (`ClientQuotaControlManager`) validates them.

An entity maps entity types (`user`, `client-id`) to names, None naming the default entity
(`<default>` in ZooKeeper). Which entity applies to a request is decided on the data path
(`native/src/quota/entity.rs`, Kafka's eight levels of precedence); here they are only
stored, validated and listed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ferrolog.errors import InvalidRequestError, KafkaError, UnsupportedVersionError

from ..store.entities import EntityType, entity_name, name_of_entity

USER = "user"
CLIENT_ID = "client-id"
IP = "ip"

# The quota keys of user and client-id entities and whether each is integral (Kafka's LONG) or
# not (DOUBLE). The data path enforces the byte rates.
QUOTA_KEYS: dict[str, bool] = {
    "producer_byte_rate": True,
    "consumer_byte_rate": True,
    "request_percentage": False,
    "controller_mutation_rate": False,
}
LONG_MAX = 2**63 - 1

# DescribeClientQuotas match types.
MATCH_EXACT, MATCH_DEFAULT, MATCH_SPECIFIED = 0, 1, 2


@dataclass(frozen=True)
class ClientQuotaEntity:
    """Kafka's `ClientQuotaEntity`: (entity type, name or None for the default) pairs, sorted
    by type so that equal entities compare equal."""

    entries: tuple[tuple[str, str | None], ...]

    @classmethod
    def of(
        cls, user: str | bool | None = False, client_id: str | bool | None = False
    ) -> ClientQuotaEntity:
        """`False` leaves a part out; None is the default entity."""
        parts: list[tuple[str, str | None]] = []
        if user is not False:
            parts.append((USER, None if user is True else user))
        if client_id is not False:
            parts.append((CLIENT_ID, None if client_id is True else client_id))
        return cls(tuple(sorted(parts)))

    def as_dict(self) -> dict[str, str | None]:
        return dict(self.entries)

    def sort_key(self) -> tuple[tuple[str, bool, str], ...]:
        """Orders entities for listing: by type, defaults before names."""
        return tuple((t, n is not None, n or "") for t, n in self.entries)

    def __str__(self) -> str:
        return ", ".join(f"{t}={'<default>' if n is None else n}" for t, n in self.entries)


def validate_entity(pairs: Iterable[tuple[str, str | None]]) -> ClientQuotaEntity:
    """The entity of an AlterClientQuotas entry, or INVALID_REQUEST as Kafka answers it."""
    seen: dict[str, str | None] = {}
    for entity_type, name in pairs:
        if entity_type in seen:
            raise InvalidRequestError(
                f"Invalid client quota entity, duplicate entity entry {entity_type}"
            )
        if entity_type not in (USER, CLIENT_ID, IP):
            raise InvalidRequestError(f"Unhandled client quota entity type: {entity_type}")
        if name is not None and not name:
            raise InvalidRequestError(f"Empty {entity_type} not supported")
        seen[entity_type] = name
    if not seen:
        raise InvalidRequestError("Invalid empty client quota entity")
    if IP in seen:
        if len(seen) > 1:
            raise InvalidRequestError(
                "Invalid quota entity combination, IP entity should not be combined with User "
                "or ClientId"
            )
        # Connection-rate quotas per IP (KIP-612) are not implemented.
        raise InvalidRequestError("ip quotas are not supported by this broker")
    return ClientQuotaEntity(tuple(sorted(seen.items())))


def validate_value(key: str, value: float) -> None:
    """A quota value as Kafka's controller checks it (INVALID_REQUEST otherwise)."""
    integral = QUOTA_KEYS.get(key)
    if integral is None:
        raise InvalidRequestError(f"Invalid configuration key {key}")
    if not value > 0.0:
        raise InvalidRequestError(f"Quota {key} must be greater than 0")
    if integral:
        if value > LONG_MAX:
            raise InvalidRequestError(f"Proposed value for {key} is too large for a LONG.")
        if abs(value % 1.0) > 1e-6:
            raise InvalidRequestError(f"{key} cannot be a fractional value.")


def apply_ops(
    current: Mapping[str, float], ops: Iterable[tuple[str, float | None]]
) -> dict[str, float]:
    """The entity's quotas after the ops (None removes a key), validated; raises
    InvalidRequestError for a key given twice or an invalid value."""
    changes: dict[str, float | None] = {}
    for key, value in ops:
        if key in changes:
            raise InvalidRequestError(
                f"Duplicate quota key {key} not updating quota for this entity"
            )
        changes[key] = value
    result = dict(current)
    for key, value in changes.items():
        if value is None:
            result.pop(key, None)
        else:
            validate_value(key, value)
            result[key] = float(value)
    return result


@dataclass(frozen=True)
class QuotaFilter:
    """A DescribeClientQuotas filter: exact names (None: the default) and types that must be
    present with any name."""

    exact: Mapping[str, str | None]
    specified: frozenset[str]
    strict: bool

    def matches(self, entity: ClientQuotaEntity) -> bool:
        parts = entity.as_dict()
        if self.strict and len(parts) != len(self.exact) + len(self.specified):
            return False
        for entity_type, name in self.exact.items():
            if entity_type not in parts or parts[entity_type] != name:
                return False
        return all(t in parts for t in self.specified)


def quota_filter(components: Iterable[tuple[str, int, str | None]], strict: bool) -> QuotaFilter:
    """The filter of a DescribeClientQuotas request, refused as Kafka refuses it
    (INVALID_REQUEST, or UNSUPPORTED_VERSION for an unknown entity type or match type)."""
    exact: dict[str, str | None] = {}
    specified: set[str] = set()
    for entity_type, match_type, match in components:
        if not entity_type:
            raise InvalidRequestError("Invalid empty entity type.")
        if entity_type in exact or entity_type in specified:
            raise InvalidRequestError(
                f"Entity type {entity_type} cannot appear more than once in the filter."
            )
        if entity_type not in (USER, CLIENT_ID, IP):
            raise UnsupportedVersionError(f"Unsupported entity type {entity_type}")
        if match_type == MATCH_EXACT:
            if match is None:
                raise InvalidRequestError(
                    "Request specified MATCH_TYPE_EXACT, but set match string to null."
                )
            exact[entity_type] = match
        elif match_type == MATCH_DEFAULT:
            if match is not None:
                raise InvalidRequestError(
                    "Request specified MATCH_TYPE_DEFAULT, but also specified a match string."
                )
            exact[entity_type] = None
        elif match_type == MATCH_SPECIFIED:
            if match is not None:
                raise InvalidRequestError(
                    "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string."
                )
            specified.add(entity_type)
        else:
            raise UnsupportedVersionError(f"Unknown match type {match_type}")
    if (IP in exact or IP in specified) and (exact.keys() - {IP} or specified - {IP}):
        raise InvalidRequestError(
            "Invalid entity filter component combination. IP filter component should not "
            "be used with user or clientId filter component."
        )
    return QuotaFilter(exact, frozenset(specified), strict)


QuotaTable = dict[ClientQuotaEntity, dict[str, float]]
# Per AlterClientQuotas entry: None for success, else its error.
AlterResults = list[KafkaError | None]


def stored_entity(entity: ClientQuotaEntity) -> tuple[EntityType, str]:
    """The config entity a quota entity is stored as: `users/<user>/clients/<client-id>`,
    `users/<user>` or `clients/<client-id>` in ZooKeeper."""
    parts = entity.as_dict()
    if USER in parts:
        name = entity_name(parts[USER])
        if CLIENT_ID in parts:
            name += f"/clients/{entity_name(parts[CLIENT_ID])}"
        return EntityType.USERS, name
    return EntityType.CLIENTS, entity_name(parts[CLIENT_ID])


def entity_of_stored(entity_type: EntityType, name: str) -> ClientQuotaEntity | None:
    """The quota entity a stored config entity is (None: not a user or client entity)."""
    parts = name.split("/")
    if entity_type is EntityType.CLIENTS and len(parts) == 1:
        return ClientQuotaEntity.of(client_id=name_of_entity(name))
    if entity_type is EntityType.USERS and len(parts) == 1:
        return ClientQuotaEntity.of(user=name_of_entity(name))
    if entity_type is EntityType.USERS and len(parts) == 3 and parts[1] == "clients":
        return ClientQuotaEntity.of(
            user=name_of_entity(parts[0]), client_id=name_of_entity(parts[2])
        )
    return None


def quota_config(quotas: Mapping[str, float]) -> dict[str, str]:
    """The config values of quotas, as Kafka writes them (integral rates without a point)."""
    return {k: str(int(v)) if v.is_integer() else repr(v) for k, v in sorted(quotas.items())}


def quotas_of_config(config: Mapping[str, str]) -> dict[str, float]:
    """The quotas of an entity's config; a user's SCRAM credentials (not numbers) are not."""
    quotas = {}
    for key, value in config.items():
        with contextlib.suppress(ValueError):
            quotas[key] = float(value)
    return quotas
