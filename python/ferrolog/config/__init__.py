"""Broker and topic configuration, with Kafka's property names.

`table` is the one table of every property: name, type, default, bounds, documentation, the
broker properties a topic config falls back to, and which properties the native core reads.
The native core's Rust table (`native/src/properties/table.rs`) is generated from it by
`python -m ferrolog.config.rust`; `help` prints it for `ferrolog broker --help-config`.

Precedence of broker settings, lowest first: table defaults, `server.properties`, environment
variables (`FERROLOG_` + the name upper-cased with dots as underscores, e.g.
`FERROLOG_LOG_DIRS`), then `--override key=value`. Only names in the table are read from the
environment, so unrelated `FERROLOG_*` variables are left alone.
"""

from ferrolog.config.broker import BrokerConfig
from ferrolog.config.rows import ConfigEntry, ConfigSynonym
from ferrolog.config.table import BROKER_CONFIGS, TOPIC_CONFIGS, ConfigSource, ConfigType
from ferrolog.config.values import (
    Listener,
    env_name,
    parse_listeners,
    parse_properties,
    validate_topic_configs,
)

__all__ = [
    "BROKER_CONFIGS",
    "TOPIC_CONFIGS",
    "BrokerConfig",
    "ConfigEntry",
    "ConfigSource",
    "ConfigSynonym",
    "ConfigType",
    "Listener",
    "env_name",
    "parse_listeners",
    "parse_properties",
    "validate_topic_configs",
]
