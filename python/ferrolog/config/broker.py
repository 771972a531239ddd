"""A broker's configuration: its settings over the table's defaults, the resolution of topic
configs through their broker synonyms, the maps the native core reads, and DescribeConfigs
rows."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ferrolog.config.table import (
    BROKER_CONFIGS,
    NATIVE_SERVER_KEYS,
    NATIVE_TOPIC_KEYS,
    TOPIC_CONFIGS,
    ConfigDef,
    ConfigSource,
    ConfigType,
    TopicConfigDef,
)
from ferrolog.config.values import (
    Listener,
    env_name,
    parse_listeners,
    parse_properties,
    validate_topic_configs,
    validate_value,
)
from ferrolog.errors import InvalidConfigError

log = logging.getLogger(__name__)


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

    @property
    def is_default(self) -> bool:
        return self.source == ConfigSource.DEFAULT_CONFIG


class BrokerConfig:
    """A broker's static configuration: the explicitly given settings (validated), with the
    table's defaults and synonym rules for everything else."""

    def __init__(self, settings: Mapping[str, str] | None = None) -> None:
        self._settings: dict[str, str] = {}
        for name, value in (settings or {}).items():
            definition = BROKER_CONFIGS.get(name)
            if definition is None:
                # Kafka's habit: a server.properties from a Kafka install keeps working.
                log.warning("ignoring unknown broker config name=%s", name)
                continue
            self._settings[name] = validate_value(definition, value)
        node, broker = self._settings.get("node.id"), self._settings.get("broker.id")
        if node is not None and broker is not None and node != broker:
            raise InvalidConfigError(f"node.id {node} and broker.id {broker} disagree")
        if not self.listeners:
            raise InvalidConfigError("listeners: at least one listener is required")
        if self.is_set("advertised.listeners"):
            parse_listeners(self.get("advertised.listeners") or "")
        self.metrics_listener  # noqa: B018 - validates it
        # The settings never change after this, so neither do the topic defaults: resolved
        # once, not for every partition a broker opens. A topic config without a broker
        # synonym (internal.segment.bytes) has no default: it is unset unless overridden.
        self._topic_defaults = {
            name: self._topic_default(definition)[0]
            for name, definition in TOPIC_CONFIGS.items()
            if definition.synonyms
        }

    @classmethod
    def load(
        cls,
        properties_file: str | os.PathLike[str] | None = None,
        overrides: Mapping[str, str] | Iterable[str] = (),
        environ: Mapping[str, str] | None = None,
    ) -> BrokerConfig:
        """Builds the config from a properties file, the environment (`os.environ` unless
        given) and overrides (a mapping or `key=value` strings)."""
        settings: dict[str, str] = {}
        if properties_file is not None:
            settings.update(parse_properties(Path(properties_file).read_text(encoding="utf-8")))
        env = os.environ if environ is None else environ
        for name in BROKER_CONFIGS:
            if env_name(name) in env:
                settings[name] = env[env_name(name)]
        if isinstance(overrides, Mapping):
            settings.update(overrides)
        else:
            for item in overrides:
                key, sep, value = item.partition("=")
                if not sep or not key.strip():
                    raise InvalidConfigError(f"override {item!r} is not key=value")
                settings[key.strip()] = value.strip()
        return cls(settings)

    def is_set(self, name: str) -> bool:
        return name in self._settings

    def get(self, name: str) -> str | None:
        """The effective value: given, else the table default."""
        if name in self._settings:
            return self._settings[name]
        definition = BROKER_CONFIGS.get(name)
        if definition is None:
            raise KeyError(name)
        return definition.default

    def get_int(self, name: str) -> int:
        value = self.get(name)
        if value is None:
            raise KeyError(f"{name} has no value")
        return int(value)

    def get_bool(self, name: str) -> bool:
        return self.get(name) == "true"

    # The settings the broker assembly needs, with Kafka's fallbacks applied.

    @property
    def node_id(self) -> int:
        if not self.is_set("node.id") and self.is_set("broker.id"):
            return self.get_int("broker.id")
        return self.get_int("node.id")

    @property
    def listeners(self) -> list[Listener]:
        return parse_listeners(self.get("listeners") or "")

    @property
    def metrics_listener(self) -> Listener | None:
        """`metrics.listener` (`http://host:port`), None when empty (no HTTP listener)."""
        value = self.get("metrics.listener") or ""
        listeners = parse_listeners(value)
        if not value.strip():
            return None
        if len(listeners) != 1 or listeners[0].name != "HTTP":
            raise InvalidConfigError(f"metrics.listener {value!r} is not http://host:port")
        return listeners[0]

    @property
    def advertised_listeners(self) -> list[Listener]:
        """As configured, else the listeners; a wildcard host advertises this machine's name
        (clients cannot connect to 0.0.0.0)."""
        configured = self.get("advertised.listeners")
        listeners = parse_listeners(configured) if configured else self.listeners
        return [
            Listener(lst.name, socket.getfqdn(), lst.port)
            if lst.host in ("", "0.0.0.0", "::")
            else lst
            for lst in listeners
        ]

    @property
    def log_dirs(self) -> list[str]:
        value = self.get("log.dirs") or self.get("log.dir") or ""
        return [item.strip() for item in value.split(",") if item.strip()]

    @property
    def data_dir(self) -> Path:
        """The first log directory: where the local metadata store lives."""
        return Path(self.log_dirs[0])

    @property
    def zookeeper_connect(self) -> str | None:
        return self.get("zookeeper.connect")

    def native_server_config(self) -> dict[str, str]:
        """The dict for `ferrolog_native.Server(config)`: every broker property the native core
        reads (`native` in the table), resolved, and nothing else."""
        result = {}
        for name in NATIVE_SERVER_KEYS:
            if name == "node.id":
                value: str | None = str(self.node_id)
            elif name == "log.dirs":
                value = ",".join(self.log_dirs)
            else:
                value = self.get(name)
            if value is None:
                raise InvalidConfigError(f"{name} has no value")
            result[name] = value
        return result

    # Topic configs

    def _topic_default(self, definition: TopicConfigDef) -> tuple[str, ConfigSynonym]:
        """The broker-level value of a topic config and the synonym it came from: the first
        explicitly set synonym, else the first synonym with a default."""
        candidates = [s for s in definition.synonyms if self.is_set(s.name)] or [
            s for s in definition.synonyms if BROKER_CONFIGS[s.name].default is not None
        ]
        synonym = candidates[0]
        raw = self.get(synonym.name)
        assert raw is not None
        value = raw
        if synonym.scale != 1:
            number = int(raw)
            value = "-1" if number < 0 else str(number * synonym.scale)
        source = (
            ConfigSource.STATIC_BROKER_CONFIG
            if self.is_set(synonym.name)
            else ConfigSource.DEFAULT_CONFIG
        )
        return value, ConfigSynonym(synonym.name, raw, source)

    def topic_config(self, overrides: Mapping[str, str]) -> dict[str, str]:
        """Every topic config's effective value: the topic's overrides (validated) over the
        broker defaults."""
        return {**self._topic_defaults, **validate_topic_configs(overrides)}

    def resolve_topic_config(self, overrides: Mapping[str, str]) -> dict[str, str]:
        """The resolved config `ferrolog_native.Server.open_partition` takes: every topic
        property the native core reads (`native` in the table) that has a value, and nothing
        else."""
        effective = self.topic_config(overrides)
        return {name: effective[name] for name in NATIVE_TOPIC_KEYS if name in effective}

    def describe_topic(self, overrides: Mapping[str, str]) -> list[ConfigEntry]:
        """DescribeConfigs rows for a topic, with synonyms in precedence order."""
        entries = []
        for name, definition in TOPIC_CONFIGS.items():
            synonyms = []
            if name in overrides:
                synonyms.append(ConfigSynonym(name, overrides[name], ConfigSource.TOPIC_CONFIG))
            if not definition.synonyms:  # no default: listed only when set, as Kafka does
                if synonyms:
                    source = ConfigSource.TOPIC_CONFIG
                    entries.append(_entry(definition, overrides[name], source, False, synonyms))
                continue
            for synonym in definition.synonyms:
                if self.is_set(synonym.name):
                    synonyms.append(
                        ConfigSynonym(
                            synonym.name,
                            self.get(synonym.name),
                            ConfigSource.STATIC_BROKER_CONFIG,
                        )
                    )
            # Like Kafka, the table default is listed last even when a setting overrides it.
            fallback = next(
                s.name for s in definition.synonyms if BROKER_CONFIGS[s.name].default is not None
            )
            synonyms.append(
                ConfigSynonym(
                    fallback, BROKER_CONFIGS[fallback].default, ConfigSource.DEFAULT_CONFIG
                )
            )
            default_value, default_synonym = self._topic_default(definition)
            if name in overrides:
                value, source = overrides[name], ConfigSource.TOPIC_CONFIG
            else:
                value, source = default_value, default_synonym.source
            entries.append(_entry(definition, value, source, False, synonyms))
        return entries

    def describe_broker(self) -> list[ConfigEntry]:
        """DescribeConfigs rows for this broker. All are read-only: ferrolog has no dynamic
        broker configs, so AlterConfigs on a broker cannot change them."""
        entries = []
        for name, definition in BROKER_CONFIGS.items():
            value = self.get(name)
            source = (
                ConfigSource.STATIC_BROKER_CONFIG
                if self.is_set(name)
                else ConfigSource.DEFAULT_CONFIG
            )
            synonyms = [ConfigSynonym(name, value, source)] if value is not None else []
            entries.append(_entry(definition, value, source, True, synonyms))
        return entries


def _entry(
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
