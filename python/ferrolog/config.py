"""Broker and topic configuration: parsing, validation and resolution over the one table in
`ferrolog.config_table`.

Precedence of broker settings, lowest first: table defaults, `server.properties`, environment
variables (`FERROLOG_` + the name upper-cased with dots as underscores, e.g.
`FERROLOG_LOG_DIRS`), then `--override key=value`. Only names in the table are read from the
environment, so unrelated `FERROLOG_*` variables are left alone.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ferrolog.config_table import (
    BROKER_CONFIGS,
    NATIVE_SERVER_KEYS,
    NATIVE_TOPIC_KEYS,
    TOPIC_CONFIGS,
    ConfigDef,
    ConfigSource,
    ConfigType,
    TopicConfigDef,
)
from ferrolog.errors import InvalidConfigError

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

log = logging.getLogger(__name__)

ENV_PREFIX = "FERROLOG_"

_INT_RANGES = {
    ConfigType.SHORT: (-(2**15), 2**15 - 1),
    ConfigType.INT: (-(2**31), 2**31 - 1),
    ConfigType.LONG: (-(2**63), 2**63 - 1),
}


@dataclass(frozen=True)
class Listener:
    name: str  # security protocol / listener name, e.g. PLAINTEXT
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.name}://{self.host}:{self.port}"


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


def env_name(name: str) -> str:
    return ENV_PREFIX + name.upper().replace(".", "_")


def parse_properties(text: str) -> dict[str, str]:
    """Java `.properties` syntax: `#`/`!` comments, `=`, `:` or whitespace separators, trailing
    backslash continuations and backslash escapes."""
    result: dict[str, str] = {}
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.lstrip() if pending else raw.strip()
        if not pending and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:  # an odd count of backslashes continues the line
            pending += line[:-1]
            continue
        logical.append(pending + line.rstrip())
        pending = ""
    if pending:
        logical.append(pending)
    for line in logical:
        key, value = _split_property(line)
        result[key] = value
    return result


def _split_property(line: str) -> tuple[str, str]:
    key: list[str] = []
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            key.append(_unescape(line[i + 1]))
            i += 2
            continue
        if ch in "=: \t":
            break
        key.append(ch)
        i += 1
    rest = line[i:].lstrip(" \t")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t")
    value: list[str] = []
    j = 0
    while j < len(rest):
        if rest[j] == "\\" and j + 1 < len(rest):
            if rest[j + 1] == "u" and j + 6 <= len(rest):
                value.append(chr(int(rest[j + 2 : j + 6], 16)))
                j += 6
                continue
            value.append(_unescape(rest[j + 1]))
            j += 2
            continue
        value.append(rest[j])
        j += 1
    return "".join(key), "".join(value)


def _unescape(ch: str) -> str:
    return {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(ch, ch)


def parse_listeners(value: str) -> list[Listener]:
    listeners = []
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        name, sep, address = item.partition("://")
        host, colon, port = address.rpartition(":")
        if not sep or not colon or not port.isdigit():
            raise InvalidConfigError(f"listener {item!r} is not NAME://host:port")
        listeners.append(Listener(name.upper(), host.strip("[]"), int(port)))
    return listeners


def validate_value(definition: ConfigDef, value: str) -> str:
    """Checks `value` against its definition; returns it normalized (booleans lower-case,
    lists without spaces). Raises InvalidConfigError."""
    name = definition.name
    text = value.strip()
    kind = definition.type
    if kind == ConfigType.BOOLEAN:
        if text.lower() not in ("true", "false"):
            raise InvalidConfigError(f"{name}: {value!r} is not true or false")
        return text.lower()
    if kind in _INT_RANGES:
        try:
            number = int(text)
        except ValueError:
            raise InvalidConfigError(f"{name}: {value!r} is not an integer") from None
        low, high = _INT_RANGES[kind]
        if not low <= number <= high:
            raise InvalidConfigError(f"{name}: {value!r} is out of range")
        _check_bounds(definition, number)
        return str(number)
    if kind == ConfigType.DOUBLE:
        try:
            real = float(text)
        except ValueError:
            raise InvalidConfigError(f"{name}: {value!r} is not a number") from None
        _check_bounds(definition, real)
        return text
    if kind == ConfigType.LIST:
        items = [item.strip() for item in text.split(",") if item.strip()]
        for item in items:
            _check_choice(definition, item)
        return ",".join(items)
    _check_choice(definition, text)
    return text


def _check_bounds(definition: ConfigDef, number: float) -> None:
    if definition.minimum is not None and number < definition.minimum:
        raise InvalidConfigError(f"{definition.name}: {number} is below {definition.minimum}")
    if definition.maximum is not None and number > definition.maximum:
        raise InvalidConfigError(f"{definition.name}: {number} is above {definition.maximum}")


def _check_choice(definition: ConfigDef, value: str) -> None:
    if definition.choices and value not in definition.choices:
        allowed = ", ".join(definition.choices)
        raise InvalidConfigError(f"{definition.name}: {value!r} is not one of {allowed}")


def validate_topic_configs(configs: Mapping[str, str | None]) -> dict[str, str]:
    """Validates topic-level overrides; returns them normalized. Unknown names and bad values
    raise InvalidConfigError. A None value (a null in CreateTopics) is dropped."""
    result = {}
    for name, value in configs.items():
        definition = TOPIC_CONFIGS.get(name)
        if definition is None:
            raise InvalidConfigError(f"unknown topic config {name!r}")
        if value is None:
            continue
        result[name] = validate_value(definition, value)
    return result


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
        return [item for item in value.split(",") if item]

    @property
    def data_dir(self) -> Path:
        """The first log directory: where the local metadata store lives."""
        return Path(self.log_dirs[0])

    @property
    def zookeeper_connect(self) -> str | None:
        return self.get("zookeeper.connect")

    def native_server_config(self) -> dict[str, str]:
        """The dict for `ferrolog_native.Server(config)`."""
        result = {}
        for name in NATIVE_SERVER_KEYS:
            if name == "node.id":
                result[name] = str(self.node_id)
            elif name == "log.dirs":
                result[name] = ",".join(self.log_dirs)
            elif name == "log.flush.interval.ms":
                result[name] = self._topic_default(TOPIC_CONFIGS["flush.ms"])[0]
            else:
                value = self.get(name)
                if value is not None:
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
        checked = validate_topic_configs(overrides)
        return {
            name: checked[name] if name in checked else self._topic_default(definition)[0]
            for name, definition in TOPIC_CONFIGS.items()
        }

    def resolve_topic_config(self, overrides: Mapping[str, str]) -> dict[str, str]:
        """The resolved config `ferrolog_native.Server.open_partition` takes."""
        effective = self.topic_config(overrides)
        return {name: effective[name] for name in NATIVE_TOPIC_KEYS}

    def describe_topic(self, overrides: Mapping[str, str]) -> list[ConfigEntry]:
        """DescribeConfigs rows for a topic, with synonyms in precedence order."""
        entries = []
        for name, definition in TOPIC_CONFIGS.items():
            synonyms = []
            if name in overrides:
                synonyms.append(ConfigSynonym(name, overrides[name], ConfigSource.TOPIC_CONFIG))
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
