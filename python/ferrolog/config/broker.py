"""A broker's configuration: its settings over the table's defaults, the resolution of topic
configs through their broker synonyms, the maps the native core reads, and DescribeConfigs
rows."""

from __future__ import annotations

import itertools
import logging
import os
import socket
from collections.abc import Iterable, Mapping
from pathlib import Path

from ferrolog.config import checks, jaas
from ferrolog.config.rows import ConfigEntry, ConfigSynonym, custom, entry
from ferrolog.config.table import (
    BROKER_CONFIGS,
    DYNAMIC_BROKER_KEYS,
    GROUP_CONFIGS,
    NATIVE_SERVER_KEYS,
    NATIVE_TOPIC_KEYS,
    TOPIC_CONFIGS,
    ConfigDef,
    ConfigSource,
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


class BrokerConfig:
    """A broker's static configuration: the explicitly given settings (validated), with the
    table's defaults and synonym rules for everything else."""

    def __init__(self, settings: Mapping[str, str] | None = None) -> None:
        self._settings: dict[str, str] = {}
        # Kafka's dynamic broker configs: this broker's and the cluster default, as stored
        # (names ferrolog does not know included, as Kafka keeps them); `set_dynamic`.
        self._dynamic_broker: dict[str, str] = {}
        self._dynamic_default: dict[str, str] = {}
        # Kafka's listener-prefixed overrides, `listener.name.<name>.<property>` (the SSL
        # properties of one listener), validated as the property they override.
        self._listener_settings: dict[str, str] = {}
        for name, value in (settings or {}).items():
            definition = BROKER_CONFIGS.get(name)
            base = _listener_override_base(name)
            if definition is None and base is not None:
                self._listener_settings[name] = validate_value(BROKER_CONFIGS[base], value)
                continue
            if definition is None:
                # Kafka's habit: a server.properties from a Kafka install keeps working.
                log.warning("ignoring unknown broker config name=%s", name)
                continue
            self._settings[name] = _served(definition, validate_value(definition, value))
        node, broker = self._settings.get("node.id"), self._settings.get("broker.id")
        if node is not None and broker is not None and node != broker:
            raise InvalidConfigError(f"node.id {node} and broker.id {broker} disagree")
        # Kafka's populateSynonyms: either one names the other too (kafka-configs describes
        # broker.id as the node id, not null).
        if node is None and broker is not None:
            self._settings["node.id"] = broker
        elif broker is None and node is not None:
            self._settings["broker.id"] = node
        checks.check(self)
        self._resolve_topic_defaults()

    def _resolve_topic_defaults(self) -> None:
        # Changed only by `set_dynamic`, so the topic defaults are resolved then, not for
        # every partition a broker opens. A topic config without a broker synonym
        # (internal.segment.bytes) has no default: it is unset unless overridden.
        self._topic_defaults = {
            name: self._topic_default(definition)[0]
            for name, definition in TOPIC_CONFIGS.items()
            if definition.synonyms
        }

    def _layers(self) -> list[tuple[Mapping[str, str], ConfigSource]]:
        """Where a broker property's value comes from, highest precedence first (Kafka's
        order); a dynamic layer counts only for the properties that are dynamic."""
        return [
            (self._dynamic_broker, ConfigSource.DYNAMIC_BROKER_CONFIG),
            (self._dynamic_default, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
            (self._settings, ConfigSource.STATIC_BROKER_CONFIG),
            (_TABLE_DEFAULTS, ConfigSource.DEFAULT_CONFIG),
        ]

    def synonyms(self, names: Iterable[str]) -> list[ConfigSynonym]:
        """Every value `names` have, as Kafka lists synonyms: by layer, highest precedence
        first, and within a layer in the order of `names`. The first is the one in effect."""
        names = list(names)
        result = []
        for values, source in self._layers():
            dynamic = source in _DYNAMIC_SOURCES
            for name in names:
                if name in values and (not dynamic or name in DYNAMIC_BROKER_KEYS):
                    result.append(ConfigSynonym(name, values[name], source))
        return result

    def set_dynamic(self, default: Mapping[str, str], broker: Mapping[str, str]) -> set[str]:
        """Takes the dynamic broker configs (cluster default, this broker's) as the store has
        them; returns the properties whose value in effect changed. Values are validated when
        written; one that is not valid (written by another tool) is left out, logged."""
        before = {name: self.get(name) for name in DYNAMIC_BROKER_KEYS}
        self._dynamic_default = _checked_dynamic(default, "cluster default")
        self._dynamic_broker = _checked_dynamic(broker, f"broker {self.node_id}")
        self._resolve_topic_defaults()
        return {name for name, value in before.items() if self.get(name) != value}

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
        """Whether the static configuration (properties, environment, overrides) sets it."""
        return name in self._settings

    def get(self, name: str) -> str | None:
        """The value in effect: dynamic (this broker's, else the cluster default), else given,
        else the table default."""
        if name not in BROKER_CONFIGS:
            raise KeyError(name)
        in_effect = self.synonyms([name])
        return in_effect[0].value if in_effect else None

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
    def security_protocol_map(self) -> dict[str, str]:
        """`listener.security.protocol.map`: listener name -> security protocol."""
        result = {}
        for item in (self.get("listener.security.protocol.map") or "").split(","):
            name, sep, protocol = item.strip().partition(":")
            if not item.strip():
                continue
            if not sep or not name.strip() or not protocol.strip():
                raise InvalidConfigError(
                    f"listener.security.protocol.map: {item.strip()!r} is not NAME:PROTOCOL"
                )
            result[name.strip().upper()] = protocol.strip().upper()
        return result

    def security_protocol(self, listener_name: str) -> str:
        protocol = self.security_protocol_map.get(listener_name.upper())
        if protocol is None:
            raise InvalidConfigError(
                f"listener {listener_name} has no security protocol in "
                "listener.security.protocol.map"
            )
        return protocol

    @property
    def inter_broker_listener_name(self) -> str:
        """`inter.broker.listener.name`, else the first listener whose protocol is
        `security.inter.broker.protocol` (Kafka's rule)."""
        if self.is_set("inter.broker.listener.name"):
            return (self.get("inter.broker.listener.name") or "").upper()
        wanted = self.get("security.inter.broker.protocol")
        names = [lst.name for lst in self.listeners]
        for name in names:
            if self.security_protocol(name) == wanted:
                return name
        # Kafka insists on an inter-broker listener; one broker alone never uses it, so a
        # single node with only SSL listeners is served, and a cluster is refused by
        # `checks`.
        return names[0]

    def listener_value(self, listener: str, name: str, mechanism: str | None = None) -> str | None:
        """Property `name` of one listener: Kafka's `listener.name.<listener>.[<mechanism>.]`
        override if given (listener and mechanism in any case), else the broker's value."""
        infix = f"{mechanism.lower()}." if mechanism else ""
        wanted = f"listener.name.{listener.lower()}.{infix}{name}"
        for key, value in self._listener_settings.items():
            if key.lower() == wanted:
                return value
        return None if mechanism else self.get(name)

    def sasl_mechanisms(self, listener: str) -> list[str]:
        """`sasl.enabled.mechanisms` of one listener, upper case as Kafka names them."""
        value = self.listener_value(listener, "sasl.enabled.mechanisms") or ""
        return [m.strip().upper() for m in value.split(",") if m.strip()]

    def jaas_modules(self, listener: str, mechanism: str) -> list[jaas.LoginModule]:
        """The login modules of `listener.name.<listener>.<mechanism>.sasl.jaas.config` (none
        when unset)."""
        text = self.listener_value(listener, "sasl.jaas.config", mechanism)
        if text is None:
            return []
        return jaas.parse(
            text, f"listener.name.{listener.lower()}.{mechanism.lower()}.sasl.jaas.config"
        )

    def listener_settings(self) -> dict[str, str]:
        """The `listener.name.<name>.<property>` overrides given, by their full names."""
        return dict(self._listener_settings)

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
        (clients cannot connect to 0.0.0.0). A listener that `advertised.listeners` leaves out
        is advertised as it binds (ferrolog's choice: every listener has an endpoint to give
        its clients in Metadata)."""
        configured = self.get("advertised.listeners")
        listeners = parse_listeners(configured) if configured else []
        given = {lst.name for lst in listeners}
        listeners += [lst for lst in self.listeners if lst.name not in given]
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
            elif name == "inter.broker.listener.name":
                value = self.inter_broker_listener_name  # Kafka's rule, resolved here
            else:
                value = self.get(name)
            if value is None:
                # Kafka's null (a key store nobody configured): the native core reads it as
                # absent.
                continue
            result[name] = value
        result.update(
            (name, value)
            for name, value in self._listener_settings.items()
            if _listener_override_base(name) in NATIVE_SERVER_KEYS
        )
        return result

    # Topic configs

    def _topic_default(self, definition: TopicConfigDef) -> tuple[str, ConfigSynonym]:
        """The broker-level value of a topic config and the synonym it came from: the first
        synonym set at the highest level (dynamic, static), else the first with a default."""
        first = self.synonyms(s.name for s in definition.synonyms)[0]
        scale = next(s.scale for s in definition.synonyms if s.name == first.name)
        assert first.value is not None
        value = first.value
        if scale != 1:
            number = int(first.value)
            value = "-1" if number < 0 else str(number * scale)
        return value, first

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
                    entries.append(entry(definition, overrides[name], source, False, synonyms))
                continue
            # Like Kafka, the table default is listed last even when a setting overrides it.
            synonyms += self.synonyms(s.name for s in definition.synonyms)
            default_value, default_synonym = self._topic_default(definition)
            if name in overrides:
                value, source = overrides[name], ConfigSource.TOPIC_CONFIG
            else:
                value, source = default_value, default_synonym.source
            entries.append(entry(definition, value, source, False, synonyms))
        return entries

    def describe_group(self, configs: Mapping[str, str]) -> list[ConfigEntry]:
        """DescribeConfigs rows for a group (resource type GROUP), as Kafka 4.4 lists them:
        each group config with the group's own value (GROUP_CONFIG) or else its broker
        property's (`group.<name>`) value in effect; the synonyms are the group's own value
        and then the broker property's, by layer, down to its default. The first synonym is
        the row's value and source."""
        entries = []
        for name, definition in GROUP_CONFIGS.items():
            synonyms = self.synonyms(s.name for s in definition.synonyms)
            if not definition.synonyms and definition.default is not None:
                # No broker property stands for it (share.auto.offset.reset): Kafka's default.
                synonyms = [ConfigSynonym(name, definition.default, ConfigSource.DEFAULT_CONFIG)]
            if name in configs:
                synonyms.insert(0, ConfigSynonym(name, configs[name], ConfigSource.GROUP_CONFIG))
            entries.append(
                entry(definition, synonyms[0].value, synonyms[0].source, False, synonyms)
            )
        return entries

    def describe_broker(self) -> list[ConfigEntry]:
        """DescribeConfigs rows for this broker, as Kafka lists them: each property with its
        value in effect, the source of that value and its synonyms (the property's own
        values, and those of the properties it stands in for, e.g. `log.retention.hours` for
        `log.retention.ms`); the dynamic ones are not read-only. Names ferrolog does not know
        that a dynamic config holds are listed as Kafka lists them: sensitive."""
        entries = []
        for name, definition in BROKER_CONFIGS.items():
            synonyms = self._own_synonyms(name)
            source = synonyms[0].source if synonyms else ConfigSource.DEFAULT_CONFIG
            read_only = not definition.dynamic
            entries.append(entry(definition, self.get(name), source, read_only, synonyms))
        unknown = {**self._dynamic_default, **self._dynamic_broker}.keys() - BROKER_CONFIGS
        for name in sorted(unknown):
            source = (
                ConfigSource.DYNAMIC_BROKER_CONFIG
                if name in self._dynamic_broker
                else ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
            )
            synonyms = [
                ConfigSynonym(name, None, s) for values, s in self._layers()[:2] if name in values
            ]
            entries.append(entry(custom(name), None, source, False, synonyms))
        return entries

    def describe_default(self) -> list[ConfigEntry]:
        """DescribeConfigs rows for the cluster default resource (""): only the dynamic
        defaults, with only their default-level synonyms, as Kafka answers."""
        entries = []
        level = ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
        for name in sorted(self._dynamic_default):
            value = self._dynamic_default[name]
            definition = BROKER_CONFIGS.get(name)
            if definition is None:
                synonyms = [ConfigSynonym(name, None, level)]
                entries.append(entry(custom(name), None, level, False, synonyms))
                continue
            synonyms = [s for s in self._own_synonyms(name) if s.source == level]
            entries.append(entry(definition, value, level, not definition.dynamic, synonyms))
        return entries

    def _own_synonyms(self, name: str) -> list[ConfigSynonym]:
        """Kafka's synonyms of a broker property: those of its group (log.retention.ms,
        .minutes, .hours), from the first of its own."""
        group = _BROKER_SYNONYM_GROUPS.get(name, (name,))
        return list(itertools.dropwhile(lambda s: s.name != name, self.synonyms(group)))


def _checked_dynamic(values: Mapping[str, str], level: str) -> dict[str, str]:
    result = {}
    for name, value in values.items():
        definition = BROKER_CONFIGS.get(name)
        if definition is None:
            result[name] = value  # someone's custom config: kept and listed, as Kafka does
            continue
        if not definition.dynamic:
            log.warning("ignoring dynamic config of a static property name=%s (%s)", name, level)
            continue
        try:
            result[name] = validate_value(definition, value)
        except InvalidConfigError as exc:
            log.warning("ignoring invalid dynamic config (%s): %s", level, exc)
            continue
        refusal = definition.refusal(result[name])
        if refusal is not None:
            log.warning("ignoring dynamic config (%s): %s", level, refusal)
            del result[name]
    return result


def _served(definition: ConfigDef, value: str) -> str:
    """`value` of a property given at start; refuses what ferrolog does not do (InvalidConfig)
    and logs a value that has no effect."""
    refusal = definition.refusal(value)
    if refusal is not None:
        raise InvalidConfigError(refusal)
    unserved = definition.unserved
    if unserved is not None and value != (definition.default or ""):
        log.warning("%s=%s has no effect on ferrolog: %s", definition.name, value, unserved.reason)
    return value


_TABLE_DEFAULTS = {n: d.default for n, d in BROKER_CONFIGS.items() if d.default is not None}
_DYNAMIC_SOURCES = (
    ConfigSource.DYNAMIC_BROKER_CONFIG,
    ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
)
# Broker properties that stand in for each other (Kafka's `brokerConfigSynonyms`): those of a
# topic config with more than one, e.g. log.roll.ms and log.roll.hours.
_BROKER_SYNONYM_GROUPS = {
    s.name: tuple(t.name for t in d.synonyms)
    for d in TOPIC_CONFIGS.values()
    if len(d.synonyms) > 1
    for s in d.synonyms
}


def _listener_override_base(name: str) -> str | None:
    """The property `listener.name.<listener>.<property>` overrides, if it is one ferrolog
    takes per listener (the SSL ones, as Kafka)."""
    if not name.startswith("listener.name."):
        return None
    _, _, rest = name[len("listener.name.") :].partition(".")
    if rest.startswith("ssl.") or rest == "sasl.enabled.mechanisms":
        return rest if rest in BROKER_CONFIGS else None
    # Per mechanism: listener.name.<listener>.<mechanism>.sasl.jaas.config.
    _, _, per_mechanism = rest.partition(".")
    return per_mechanism if per_mechanism == "sasl.jaas.config" else None
