"""Config: properties parsing, precedence (file < environment < overrides), validation,
topic config resolution with broker synonyms, and DescribeConfigs sources."""

from __future__ import annotations

from pathlib import Path

import pytest
from ferrolog.config import (
    BROKER_CONFIGS,
    TOPIC_CONFIGS,
    BrokerConfig,
    ConfigSource,
    Listener,
    parse_properties,
    validate_topic_configs,
)
from ferrolog.config.table import NATIVE_SERVER_KEYS, NATIVE_TOPIC_KEYS
from ferrolog.errors import InvalidConfigError


def test_parse_properties_syntax() -> None:
    text = (
        "# a comment\n"
        "! another\n"
        "\n"
        "broker.id=1\n"
        "log.dirs = /a,\\\n"
        "    /b\n"
        "num.partitions: 3\n"
        "listeners PLAINTEXT://h:1\n"
        "key\\=with\\:seps=v\\u0041\n"
    )
    assert parse_properties(text) == {
        "broker.id": "1",
        "log.dirs": "/a,/b",
        "num.partitions": "3",
        "listeners": "PLAINTEXT://h:1",
        "key=with:seps": "vA",
    }


def test_defaults_work_on_a_laptop() -> None:
    config = BrokerConfig.load(environ={})
    assert config.node_id == 0
    assert config.listeners == [Listener("PLAINTEXT", "127.0.0.1", 9092)]
    assert config.log_dirs == ["./ferrolog-data"]
    assert config.get_bool("auto.create.topics.enable")
    assert config.get_int("num.partitions") == 1


def test_precedence_file_env_override(tmp_path: Path) -> None:
    props = tmp_path / "server.properties"
    props.write_text("num.partitions=2\nlog.dirs=/from-file\nmessage.max.bytes=100\n")
    config = BrokerConfig.load(
        props,
        ["num.partitions=4"],
        environ={"FERROLOG_NUM_PARTITIONS": "3", "FERROLOG_LOG_DIRS": "/env", "OTHER": "x"},
    )
    assert config.get("num.partitions") == "4"
    assert config.log_dirs == ["/env"]
    assert config.get("message.max.bytes") == "100"


def test_log_dirs_falls_back_to_log_dir() -> None:
    assert BrokerConfig({"log.dir": "/x"}).log_dirs == ["/x"]
    assert BrokerConfig({"log.dir": "/x", "log.dirs": "/a,/b"}).log_dirs == ["/a", "/b"]
    assert BrokerConfig({"log.dirs": "/a,/b"}).data_dir == Path("/a")


def test_broker_id_is_a_synonym_of_node_id() -> None:
    assert BrokerConfig({"broker.id": "7"}).node_id == 7
    assert BrokerConfig({"node.id": "7", "broker.id": "7"}).node_id == 7
    # Either names the other, as Kafka's populateSynonyms: kafka-configs shows both.
    assert BrokerConfig({"node.id": "7"}).get("broker.id") == "7"
    assert BrokerConfig({"broker.id": "7"}).get("node.id") == "7"
    with pytest.raises(InvalidConfigError):
        BrokerConfig({"node.id": "1", "broker.id": "2"})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("num.partitions", "many"),
        ("num.partitions", "0"),
        ("auto.create.topics.enable", "yes"),
        ("compression.type", "brotli"),
        ("listeners", "localhost:9092"),
        ("log.cleanup.policy", "delete,shred"),
        ("message.max.bytes", str(2**31)),
        ("log.cleaner.min.cleanable.ratio", "nan"),
    ],
)
def test_bad_broker_values(key: str, value: str) -> None:
    with pytest.raises(InvalidConfigError):
        BrokerConfig({key: value})


def test_bad_override_syntax() -> None:
    with pytest.raises(InvalidConfigError):
        BrokerConfig.load(overrides=["num.partitions"], environ={})


def test_unknown_broker_keys_are_ignored(caplog: pytest.LogCaptureFixture) -> None:
    config = BrokerConfig({"some.kafka.only.setting": "1"})
    assert not config.is_set("some.kafka.only.setting")
    assert "some.kafka.only.setting" in caplog.text


def test_normalized_values() -> None:
    config = BrokerConfig({"delete.topic.enable": "FALSE", "log.cleanup.policy": "compact, delete"})
    assert config.get("delete.topic.enable") == "false"
    assert config.get("log.cleanup.policy") == "compact,delete"


def test_topic_resolution_uses_synonyms_with_units() -> None:
    config = BrokerConfig({"log.retention.hours": "2", "log.roll.ms": "1000"})
    resolved = config.resolve_topic_config({})
    # Every native topic key but internal.segment.bytes, which has no default.
    assert set(resolved) == set(NATIVE_TOPIC_KEYS) - {"internal.segment.bytes"}
    small = config.resolve_topic_config({"internal.segment.bytes": "1024"})
    assert set(small) == set(NATIVE_TOPIC_KEYS)
    assert (small["internal.segment.bytes"], small["segment.bytes"]) == ("1024", "1073741824")
    assert resolved["retention.ms"] == str(2 * 3_600_000)
    assert resolved["segment.ms"] == "1000"
    assert resolved["max.message.bytes"] == "1048588"
    # ms wins over minutes and hours
    config = BrokerConfig({"log.retention.hours": "2", "log.retention.ms": "5"})
    assert config.resolve_topic_config({})["retention.ms"] == "5"
    assert (
        BrokerConfig({"log.retention.hours": "-1"}).resolve_topic_config({})["retention.ms"] == "-1"
    )


def test_topic_overrides_win() -> None:
    config = BrokerConfig({"message.max.bytes": "100"})
    resolved = config.resolve_topic_config({"max.message.bytes": "200"})
    assert resolved["max.message.bytes"] == "200"
    assert config.resolve_topic_config({})["max.message.bytes"] == "100"


@pytest.mark.parametrize(
    "configs",
    [
        {"retention.mss": "1"},
        {"retention.ms": "one"},
        {"cleanup.policy": "keep"},
        {"message.timestamp.type": "Now"},
        {"min.insync.replicas": "0"},
        {"preallocate": "maybe"},
        {"min.cleanable.dirty.ratio": "2"},
    ],
)
def test_invalid_topic_configs(configs: dict[str, str]) -> None:
    with pytest.raises(InvalidConfigError):
        validate_topic_configs(configs)
    with pytest.raises(InvalidConfigError):
        BrokerConfig().resolve_topic_config(configs)


def test_describe_topic_sources_and_synonyms() -> None:
    config = BrokerConfig({"log.retention.hours": "24"})
    entries = {e.name: e for e in config.describe_topic({"segment.bytes": "1048576"})}
    # internal.segment.bytes (and the replication throttle lists) have no broker default:
    # listed only when set.
    unset = {"internal.segment.bytes", *(n for n in TOPIC_CONFIGS if "throttled" in n)}
    assert set(entries) == set(TOPIC_CONFIGS) - unset
    seg = entries["segment.bytes"]
    assert (seg.value, seg.source, seg.read_only) == ("1048576", ConfigSource.TOPIC_CONFIG, False)
    assert [s.source for s in seg.synonyms] == [
        ConfigSource.TOPIC_CONFIG,
        ConfigSource.DEFAULT_CONFIG,
    ]
    retention = entries["retention.ms"]
    assert (retention.value, retention.source) == ("86400000", ConfigSource.STATIC_BROKER_CONFIG)
    assert [(s.name, s.value, s.source) for s in retention.synonyms] == [
        ("log.retention.hours", "24", ConfigSource.STATIC_BROKER_CONFIG),
        ("log.retention.hours", "168", ConfigSource.DEFAULT_CONFIG),
    ]
    assert entries["cleanup.policy"].source == ConfigSource.DEFAULT_CONFIG
    small = {e.name: e for e in config.describe_topic({"internal.segment.bytes": "1024"})}
    internal = small["internal.segment.bytes"]
    assert (internal.value, internal.source) == ("1024", ConfigSource.TOPIC_CONFIG)
    assert [(s.name, s.source) for s in internal.synonyms] == [
        ("internal.segment.bytes", ConfigSource.TOPIC_CONFIG)
    ]
    assert small["segment.bytes"].value == "1073741824"  # shown apart, as Kafka shows it


def test_describe_broker() -> None:
    entries = {e.name: e for e in BrokerConfig({"num.partitions": "3"}).describe_broker()}
    assert set(entries) == set(BROKER_CONFIGS)
    assert entries["num.partitions"].source == ConfigSource.STATIC_BROKER_CONFIG
    assert entries["num.partitions"].value == "3"
    assert entries["default.replication.factor"].source == ConfigSource.DEFAULT_CONFIG
    # Only Kafka's dynamic broker configs that ferrolog applies at runtime are writable.
    assert {n for n, e in entries.items() if not e.read_only} == {
        n for n, d in BROKER_CONFIGS.items() if d.dynamic
    }
    assert entries["num.partitions"].read_only
    assert not entries["log.retention.ms"].read_only
    # Kafka's PASSWORD properties (the key and trust stores', the JAAS line) are sensitive:
    # never shown.
    sensitive = {n for n, e in entries.items() if e.sensitive}
    assert sensitive == {"ssl.keystore.password", "ssl.key.password", "ssl.keystore.key",
                         "ssl.keystore.certificate.chain", "ssl.truststore.password",
                         "ssl.truststore.certificates", "sasl.jaas.config",
                         "delegation.token.secret.key",
                         # Kafka's passwords that ferrolog knows but does not serve.
                         "sasl.oauthbearer.client.credentials.client.secret",
                         "sasl.oauthbearer.assertion.private.key.passphrase"}  # fmt: skip
    secret = BrokerConfig({"ssl.keystore.password": "hunter2"}).describe_broker()
    assert all(e.value is None for e in secret if e.name == "ssl.keystore.password")


def test_native_server_config() -> None:
    config = BrokerConfig({"broker.id": "3", "log.dirs": "/a, /b", "log.flush.interval.ms": "10"})
    server = config.native_server_config()
    # Properties without a value (Kafka's null: no key store configured) are left out; an
    # empty one (authorizer.class.name's "": no authorizer) is a value. inter.broker.listener.name
    # has no default: Kafka's rule resolves it (security.inter.broker.protocol's first listener).
    with_value = {n for n in NATIVE_SERVER_KEYS if BROKER_CONFIGS[n].default is not None}
    assert set(server) == with_value | {"log.dirs", "inter.broker.listener.name"}
    assert server["inter.broker.listener.name"] == "PLAINTEXT"
    assert server["node.id"] == "3"
    assert server["log.dirs"] == "/a,/b"
    # The broker's flush interval reaches the native core as each topic's flush.ms.
    assert config.resolve_topic_config({})["flush.ms"] == "10"
    assert all(isinstance(v, str) for v in server.values())
    assert BrokerConfig({"log.dir": "/x"}).native_server_config()["log.dirs"] == "/x"


def test_advertised_listeners() -> None:
    config = BrokerConfig({"advertised.listeners": "PLAINTEXT://example.com:19092"})
    assert config.advertised_listeners == [Listener("PLAINTEXT", "example.com", 19092)]
    wildcard = BrokerConfig({"listeners": "PLAINTEXT://0.0.0.0:9092"}).advertised_listeners[0]
    assert wildcard.host not in ("0.0.0.0", "")


def test_listeners_and_their_security_protocols() -> None:
    config = BrokerConfig(
        {
            "listeners": "INTERNAL://127.0.0.1:9092,EXTERNAL://127.0.0.1:9093",
            "listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:SSL",
            "inter.broker.listener.name": "INTERNAL",
            "advertised.listeners": "EXTERNAL://example.com:19093",
            "listener.name.external.ssl.client.auth": "required",
        }
    )
    assert config.security_protocol("external") == "SSL"
    assert config.inter_broker_listener_name == "INTERNAL"
    # a listener advertised.listeners leaves out is advertised as it binds
    assert config.advertised_listeners == [
        Listener("EXTERNAL", "example.com", 19093),
        Listener("INTERNAL", "127.0.0.1", 9092),
    ]
    native = config.native_server_config()
    assert native["listener.name.external.ssl.client.auth"] == "required"
    # security.inter.broker.protocol picks the first listener of its protocol
    assert BrokerConfig(
        {"listeners": "SSL://127.0.0.1:9093,PLAINTEXT://127.0.0.1:9092"}
    ).inter_broker_listener_name == "PLAINTEXT"  # fmt: skip
    for bad in [
        {"listeners": "SASL_SSL://127.0.0.1:9093"},
        {"listeners": "OTHER://127.0.0.1:9093"},
        {"listeners": "PLAINTEXT://127.0.0.1:9092,PLAINTEXT://127.0.0.1:9093"},
        {"inter.broker.listener.name": "NOPE"},
        {"inter.broker.listener.name": "PLAINTEXT", "security.inter.broker.protocol": "SSL"},
        {"listener.name.ssl.ssl.client.auth": "always"},
        # a cluster replicates over PLAINTEXT for now
        {
            "listeners": "SSL://127.0.0.1:9093",
            "security.inter.broker.protocol": "SSL",
            "zookeeper.connect": "127.0.0.1:2181",
        },
    ]:
        with pytest.raises(InvalidConfigError):
            BrokerConfig(bad)


def test_authorizer_class_is_kafkas_or_none() -> None:
    for name in (
        "kafka.security.authorizer.AclAuthorizer",
        "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "",
    ):
        assert BrokerConfig({"authorizer.class.name": name}).get("authorizer.class.name") == name
    # Anything else fails at start, naming the ones ferrolog has.
    with pytest.raises(InvalidConfigError, match=r"kafka\.security\.authorizer\.AclAuthorizer"):
        BrokerConfig({"authorizer.class.name": "com.example.MyAuthorizer"})
