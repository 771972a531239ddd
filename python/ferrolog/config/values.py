"""Property values: Java `.properties` syntax, listeners, and checks of a value against its
definition in the table (type, range, choices)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ferrolog.config.table import TOPIC_CONFIGS, ConfigDef, ConfigType
from ferrolog.errors import InvalidConfigError

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
    """Checks `value` against its definition as Kafka's `ConfigDef` parses and validates it;
    returns it normalized (trimmed, booleans lower-case, lists without spaces). Raises
    InvalidConfigError with Kafka's message."""
    text = value.strip()
    kind = definition.type
    if kind == ConfigType.BOOLEAN:
        if text.lower() not in ("true", "false"):
            raise _invalid(definition, text, "Expected value to be either true or false")
        return text.lower()
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        try:
            number = int(text)
        except ValueError:
            number = None
        if number is None or not low <= number <= high:
            raise _invalid(definition, text, f"Not a number of type {kind.name}")
        _check_bounds(definition, text, number)
        return str(number)
    if kind == ConfigType.DOUBLE:
        try:
            real = float(text)
        except ValueError:
            raise _invalid(definition, text, "Not a number of type DOUBLE") from None
        if not math.isfinite(real):
            raise _invalid(definition, text, "Not a number of type DOUBLE")
        _check_bounds(definition, text, real)
        return text
    if kind == ConfigType.LIST:
        items = [item.strip() for item in text.split(",") if item.strip()]
        for item in items:
            _check_choice(definition, item)
        return ",".join(items)
    _check_choice(definition, text)
    return text


def _invalid(definition: ConfigDef, value: str, reason: str) -> InvalidConfigError:
    return InvalidConfigError(
        f"Invalid value {value} for configuration {definition.name}: {reason}"
    )


def java_number(bound: float) -> str:
    """A bound as Kafka prints it: a whole number without a fraction."""
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def _check_bounds(definition: ConfigDef, value: str, number: float) -> None:
    if definition.minimum is not None and number < definition.minimum:
        reason = f"Value must be at least {java_number(definition.minimum)}"
        raise _invalid(definition, value, reason)
    if definition.maximum is not None and number > definition.maximum:
        reason = f"Value must be no more than {java_number(definition.maximum)}"
        raise _invalid(definition, value, reason)


def _check_choice(definition: ConfigDef, item: str) -> None:
    # A list's element is checked, and named in the message, on its own, as Kafka's ValidList.
    if definition.choices and item not in definition.choices:
        allowed = ", ".join(definition.choices)
        raise _invalid(definition, item, f"String must be one of: {allowed}")


def unknown_topic_config(name: str) -> InvalidConfigError:
    return InvalidConfigError(f"Unknown topic config name: {name}")


def null_topic_configs(names: Iterable[str]) -> InvalidConfigError:
    return InvalidConfigError(f"Null value not supported for topic configs: {', '.join(names)}")


def validate_topic_configs(configs: Mapping[str, str | None]) -> dict[str, str]:
    """Validates topic-level overrides; returns them normalized. Unknown names and bad values
    raise InvalidConfigError. A None value (a null in CreateTopics) is dropped."""
    result = {}
    for name, value in configs.items():
        definition = TOPIC_CONFIGS.get(name)
        if definition is None:
            raise unknown_topic_config(name)
        if value is None:
            continue
        result[name] = validate_value(definition, value)
    return result
