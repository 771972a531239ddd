"""Group configs (KIP-848, DescribeConfigs and IncrementalAlterConfigs of resource type GROUP)
on the control plane: each group's `consumer.session.timeout.ms` and
`consumer.heartbeat.interval.ms`, kept in the metadata store (`/config/groups/<group>` in a
cluster, whose change notification tells every broker) and handed to the group coordinator,
which applies them to the group's members from their next heartbeat, without a restart.

Checked as Kafka 4.1 checks them (`ControllerConfigurationValidator` and
`GroupConfig.validate`): names it does not know, values it cannot parse, and values outside the
broker's bounds (`group.consumer.min.session.timeout.ms`, ...) are refused with INVALID_CONFIG
and Kafka's messages; the bounds apply to the group's configs over the broker's defaults.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ferrolog.config.table import GROUP_CONFIGS
from ferrolog.config.values import validate_value
from ferrolog.errors import InvalidConfigError

from .entity_manager import EntityConfigManager
from .store.base import MetadataStore
from .store.entities import EntityType, desanitize, sanitize

if TYPE_CHECKING:
    from ferrolog.config import BrokerConfig

log = logging.getLogger(__name__)

_TIMEOUTS = ("session.timeout.ms", "heartbeat.interval.ms")
AUTO_RESET = "share.auto.offset.reset"
# A non-negative ISO 8601 duration as Java's Duration.parse reads it (days to seconds).
_DURATION = re.compile(
    r"P(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:[.,](\d{1,9}))?S)?)?",
    re.IGNORECASE,
)

# Called with every group's configs after a change.
# Group configs (KIP-848's resource type GROUP) by group id.
GroupConfigs = dict[str, dict[str, str]]
GroupConfigListener = Callable[[GroupConfigs], None]
# Maps a group's current configs to the new ones (raising KafkaError to refuse).
GroupConfigChange = Callable[[dict[str, str]], Mapping[str, str]]

# Each group config that the broker bounds -> the broker properties that bound it.
_BOUND = {
    name: (f"group.{kind}.min.{base}", f"group.{kind}.max.{base}")
    for kind, bases in (
        ("consumer", ("heartbeat.interval.ms", "session.timeout.ms")),
        (
            "share",
            (
                "heartbeat.interval.ms",
                "session.timeout.ms",
                "assignment.interval.ms",
                "record.lock.duration.ms",
                "delivery.count.limit",
                "partition.max.record.locks",
            ),
        ),
        ("streams", ("heartbeat.interval.ms", "session.timeout.ms", "assignment.interval.ms")),
    )
    for base in bases
    for name in (f"{kind}.{base}",)
}


def validate_group_configs(configs: Mapping[str, str], broker: BrokerConfig) -> dict[str, str]:
    """A group's new configs, normalized, or Kafka's INVALID_CONFIG (Kafka 4.4's checks and
    messages: each value within the broker's bounds, then the session longer than the
    heartbeat interval, either one at the broker's default when the group does not set it)."""
    unknown = [name for name in configs if name not in GROUP_CONFIGS]
    if unknown:
        raise InvalidConfigError(f"Unknown group config name: {unknown[0]}")
    result = {name: validate_value(GROUP_CONFIGS[name], value) for name, value in configs.items()}
    if AUTO_RESET in result:
        auto_reset_code(result[AUTO_RESET])
    bound = broker.get_int
    for name in (n for n in _BOUND if n in result):
        low, high = (bound(b) for b in _BOUND[name])
        if not low <= int(result[name]) <= high:
            raise InvalidConfigError(f"{name} must be in the range {low} to {high} inclusive.")
    standbys, most = "streams.num.standby.replicas", bound("group.streams.max.standby.replicas")
    if standbys in result and int(result[standbys]) > most:
        raise InvalidConfigError(f"{standbys} must be less than or equal to {most}")
    kinds = ("consumer", "share", "streams")
    timeouts = [f"{kind}.{base}" for kind in kinds for base in _TIMEOUTS]
    merged = group_defaults(broker) | result
    effective = {name: int(merged[name]) for name in timeouts}
    for kind in kinds:
        session, heartbeat = (f"{kind}.{base}" for base in _TIMEOUTS)
        if (session in result or heartbeat in result) and effective[session] <= effective[
            heartbeat
        ]:
            raise InvalidConfigError(f"{session} must be greater than {heartbeat}")
    return result


def group_defaults(broker: BrokerConfig) -> dict[str, str]:
    """Each group config's value for a group without its own: the broker's `group.<name>`, or
    Kafka's default for one no broker property stands for (`share.auto.offset.reset`)."""
    defaults = {}
    for name, definition in GROUP_CONFIGS.items():
        if not definition.synonyms:
            assert definition.default is not None
            defaults[name] = definition.default
            continue
        value = broker.get(definition.synonyms[0].name)
        assert value is not None  # the table gives each a default
        defaults[name] = value
    return defaults


class GroupConfigManager(EntityConfigManager[str, dict[str, str]]):
    """The configs of every group that has any, by group id."""

    entity_types = (EntityType.GROUPS,)

    def __init__(self, store: MetadataStore, config: BrokerConfig) -> None:
        super().__init__(store)
        self._config = config
        self._listeners: list[GroupConfigListener] = []

    def key(self, entity_type: EntityType, name: str) -> str | None:
        return desanitize(name)

    def entity(self, key: str) -> tuple[EntityType, str]:
        return EntityType.GROUPS, sanitize(key)

    def decode(self, config: Mapping[str, str]) -> dict[str, str]:
        return dict(config)

    def encode(self, value: dict[str, str]) -> dict[str, str]:
        return dict(value)

    def subscribe(self, listener: GroupConfigListener) -> None:
        """`listener(configs)` now and after each change, with every group's configs."""
        self._listeners.append(listener)
        listener(self.all())

    def all(self) -> GroupConfigs:
        return {group: dict(configs) for group, configs in self._table.items()}

    def defaults(self) -> dict[str, str]:
        """Each group config's value for a group without its own (`group_defaults`)."""
        return group_defaults(self._config)

    def current(self, group: str) -> dict[str, str]:
        """The configs `group` has of its own, as stored."""
        return dict(self._table.get(group, {}))

    async def alter(self, group: str, change: GroupConfigChange, validate_only: bool) -> None:
        """Applies `change` to the configs of `group`; raises what Kafka answers for a refused
        change."""
        async with self._lock:
            current = self.current(group)
            updated = validate_group_configs(change(current), self._config)
            if validate_only or updated == current:
                return
            log.info("altered configs of group %s: %s", group, updated or "none")
            await self.write({group: updated})

    async def published(self) -> None:
        for listener in self._listeners:
            listener(self.all())


def auto_reset_code(value: str) -> int:
    """share.auto.offset.reset as the native core takes it: -2 earliest, -1 latest, else the
    by_duration's milliseconds; Kafka's INVALID_CONFIG for anything else."""
    lowered = value.strip().lower()
    if lowered == "earliest":
        return -2
    if lowered == "latest":
        return -1
    if lowered.startswith("by_duration:"):
        found = _DURATION.fullmatch(lowered[len("by_duration:") :].strip())
        if found and any(found.groups()):
            days, hours, minutes, seconds, fraction = (g or "0" for g in found.groups())
            return (
                int(days) * 86_400_000
                + int(hours) * 3_600_000
                + int(minutes) * 60_000
                + int(seconds) * 1000
                + int(fraction.ljust(3, "0")[:3])
            )
    raise InvalidConfigError(
        f"Invalid value {value} for configuration {AUTO_RESET}: The value must be either "
        "'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'."
    )
