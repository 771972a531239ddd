"""Kafka's `sasl.jaas.config` lines, and the broker settings built on them: a SASL listener
must offer only mechanisms ferrolog has, and PLAIN needs its users' login line."""

from __future__ import annotations

from pathlib import Path

import pytest
from ferrolog.config import BrokerConfig, jaas
from ferrolog.errors import InvalidConfigError

PLAIN = jaas.PLAIN_LOGIN_MODULE


def test_plain_login_line_with_quoted_and_bare_values() -> None:
    (module,) = jaas.parse(
        f'{PLAIN} required username="admin" password="a \\"b\\" ;=c"\n'
        '  user_admin=admin-secret user_alice="alice";'
    )
    assert (module.name, module.flag) == (PLAIN, "required")
    assert module.options["password"] == 'a "b" ;=c'
    assert module.plain_users == {"admin": "admin-secret", "alice": "alice"}


def test_several_modules() -> None:
    modules = jaas.parse(f"{PLAIN} required a=1; {jaas.SCRAM_LOGIN_MODULE} optional;")
    assert [(m.name, m.flag, m.options) for m in modules] == [
        (PLAIN, "required", {"a": "1"}),
        (jaas.SCRAM_LOGIN_MODULE, "optional", {}),
    ]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "no login module"),
        (f"{PLAIN} required a=1", "not ended"),
        (f"{PLAIN} maybe;", "control flag"),
        (f"{PLAIN} required a=;", "no value"),
        (f'{PLAIN} required a="unterminated;', "unreadable"),
    ],
)
def test_bad_lines_are_refused_without_echoing_them(text: str, why: str) -> None:
    with pytest.raises(InvalidConfigError, match=why) as raised:
        jaas.parse(text)
    assert "unterminated" not in str(raised.value)


def sasl_config(tmp_path: Path, **settings: str) -> BrokerConfig:
    return BrokerConfig(
        {
            "log.dirs": str(tmp_path),
            "listeners": "SASL_PLAINTEXT://127.0.0.1:0",
            **{k.replace("__", "."): v for k, v in settings.items()},
        }
    )


def test_kafkas_default_mechanism_gssapi_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidConfigError, match=r"GSSAPI.*not supported"):
        sasl_config(tmp_path)


def test_plain_needs_its_login_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidConfigError, match=r"plain\.sasl\.jaas\.config"):
        sasl_config(tmp_path, **{"sasl.enabled.mechanisms": "PLAIN"})


def test_listener_overrides_in_any_case(tmp_path: Path) -> None:
    config = BrokerConfig(
        {
            "log.dirs": str(tmp_path),
            "listeners": "SASL_PLAINTEXT://127.0.0.1:0",
            "sasl.enabled.mechanisms": "GSSAPI",
            "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "plain,SCRAM-SHA-512",
            "listener.name.SASL_PLAINTEXT.PLAIN.sasl.jaas.config": f"{PLAIN} required "
            'user_bob="pw";',
        }
    )
    assert config.sasl_mechanisms("SASL_PLAINTEXT") == ["PLAIN", "SCRAM-SHA-512"]
    (module,) = config.jaas_modules("SASL_PLAINTEXT", "PLAIN")
    assert module.plain_users == {"bob": "pw"}
    assert config.jaas_modules("SASL_PLAINTEXT", "SCRAM-SHA-512") == []
