"""The config table as text, laid out like Kafka's configuration docs (`ConfigDef.toRst`):
each property's name, documentation, type, default and valid values, broker properties first,
then topic properties with the broker properties they default to. `ferrolog broker
--help-config` prints it."""

from __future__ import annotations

import textwrap

from ferrolog.config.broker import BrokerConfig
from ferrolog.config.table import BROKER_CONFIGS, TOPIC_CONFIGS, ConfigDef, TopicConfigDef
from ferrolog.config.values import java_number

_WIDTH = 100
_INDENT = "  "


def _wrap(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(
        text, _WIDTH, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
    )


def valid_values(definition: ConfigDef) -> str:
    """Kafka's notation: `[1,...]` at least 1, `[0,...,1]` between, `[a, b]` one of."""
    if definition.choices:
        return "[" + ", ".join(definition.choices) + "]"
    low, high = definition.minimum, definition.maximum
    if low is not None and high is not None:
        return f"[{java_number(low)},...,{java_number(high)}]"
    if low is not None:
        return f"[{java_number(low)},...]"
    if high is not None:
        return f"[...,{java_number(high)}]"
    return ""


def _entry(definition: ConfigDef, default: str | None) -> list[str]:
    lines = [definition.name]
    lines += _wrap(definition.doc, _INDENT)
    lines.append("")
    facts = [
        ("Type", definition.type.name.lower()),
        ("Default", "null" if default is None else default),
        ("Valid Values", valid_values(definition)),
    ]
    if isinstance(definition, TopicConfigDef):
        synonyms = ", ".join(s.name for s in definition.synonyms)
        facts.append(("Server Default Property", synonyms))
    lines += [f"{_INDENT}* {label}: {value}" for label, value in facts if value]
    lines.append("")
    return lines


def help_text() -> str:
    """Every property of the table with its default."""
    defaults = BrokerConfig().topic_config({})
    lines = _wrap(
        "Broker properties: from server.properties, FERROLOG_<NAME> environment variables "
        "(the name upper-cased, dots as underscores) or --override name=value."
    )
    lines.append("")
    for definition in BROKER_CONFIGS.values():
        lines += _entry(definition, definition.default)
    lines += _wrap(
        "Topic properties: per-topic overrides (CreateTopics, AlterConfigs). A topic without "
        "one takes the value of its first server default property that is set."
    )
    lines.append("")
    for name, topic_definition in TOPIC_CONFIGS.items():
        lines += _entry(topic_definition, defaults.get(name))
    return "\n".join(lines).rstrip() + "\n"
