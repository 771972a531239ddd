"""DescribeConfigs rows as the broker builds them (`BrokerConfig.describe_*`): a config's value
in effect, where it came from and its synonyms, with sensitive values withheld."""

from __future__ import annotations

from dataclasses import dataclass, field

from ferrolog.config.table import ConfigDef, ConfigSource, ConfigType


@dataclass(frozen=True)
class ConfigSynonym:
    name: str
    value: str | None
    source: ConfigSource


@dataclass(frozen=True)
class ConfigEntry:
    """One row of a DescribeConfigs answer."""

    name: str
    value: str | None  # None for sensitive values
    source: ConfigSource
    type: ConfigType
    read_only: bool
    sensitive: bool
    doc: str
    synonyms: list[ConfigSynonym] = field(default_factory=list)


def entry(
    definition: ConfigDef,
    value: str | None,
    source: ConfigSource,
    read_only: bool,
    synonyms: list[ConfigSynonym],
) -> ConfigEntry:
    if definition.sensitive:  # a password's value never leaves the broker
        value = None
        synonyms = [ConfigSynonym(s.name, None, s.source) for s in synonyms]
    return ConfigEntry(
        name=definition.name,
        value=value,
        source=source,
        type=definition.type,
        read_only=read_only,
        sensitive=definition.sensitive,
        doc=definition.doc,
        synonyms=synonyms,
    )


def custom(name: str) -> ConfigDef:
    """A config name the table does not have, as Kafka describes such a dynamic config: of
    unknown type, hence sensitive."""
    return ConfigDef(name, ConfigType.PASSWORD, None, "")
