"""Kafka's `sasl.jaas.config` values: one or more JAAS login module entries,

    org.apache.kafka.common.security.plain.PlainLoginModule required
        username="admin" password="admin-secret" user_alice="alice-secret";

each a login module class, a control flag and `key=value` options (values bare or double
quoted), ended by a semicolon. Kafka parses them with Java's StreamTokenizer; this reads the
same lines, and refuses what it cannot read rather than guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ferrolog.errors import InvalidConfigError

PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
CONTROL_FLAGS = ("required", "requisite", "sufficient", "optional")

# A quoted string (backslash escapes a character), one of = and ;, or a bare word.
_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([=;])|([^\s=;"]+))', re.DOTALL)


@dataclass(frozen=True)
class LoginModule:
    name: str
    flag: str
    options: dict[str, str] = field(default_factory=dict)

    @property
    def plain_users(self) -> dict[str, str]:
        """PlainLoginModule's users: each `user_<name>="<password>"` option."""
        return {k[len("user_") :]: v for k, v in self.options.items() if k.startswith("user_")}


def parse(text: str, property_name: str = "sasl.jaas.config") -> list[LoginModule]:
    """The login modules of a JAAS config value; InvalidConfigError names the property and
    what is wrong, never the value (it holds passwords)."""
    tokens = _tokens(text, property_name)
    modules: list[LoginModule] = []
    i = 0

    def fail(why: str) -> InvalidConfigError:
        return InvalidConfigError(f"{property_name}: {why}")

    while i < len(tokens):
        kind, name = tokens[i]
        if kind != "word":
            raise fail("expected a login module class name")
        if i + 1 >= len(tokens) or tokens[i + 1][0] != "word":
            raise fail(f"login module {name} has no control flag")
        flag = tokens[i + 1][1].lower()
        if flag not in CONTROL_FLAGS:
            raise fail(f"login module {name}: invalid control flag {tokens[i + 1][1]!r}")
        i += 2
        options: dict[str, str] = {}
        while True:
            if i >= len(tokens):
                raise fail(f"login module {name} is not ended by ';'")
            if tokens[i] == ("punct", ";"):
                i += 1
                break
            key_kind, key = tokens[i]
            if key_kind != "word" or i + 2 >= len(tokens) or tokens[i + 1] != ("punct", "="):
                raise fail(f"login module {name}: expected key=value")
            value_kind, value = tokens[i + 2]
            if value_kind == "punct":
                raise fail(f"login module {name}: option {key} has no value")
            options[key] = value
            i += 3
        modules.append(LoginModule(name, flag, options))
    if not modules:
        raise fail("no login module")
    return modules


def _tokens(text: str, property_name: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise InvalidConfigError(f"{property_name}: unreadable at character {pos}")
        quoted, punct, word = match.groups()
        if quoted is not None:
            out.append(("quoted", re.sub(r"\\(.)", r"\1", quoted)))
        elif punct is not None:
            out.append(("punct", punct))
        else:
            out.append(("word", word))
        pos = match.end()
    return out
