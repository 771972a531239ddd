"""The one config table (`ferrolog.config.table`) and the native core agree: the core reads
exactly the properties the table marks `native`, with the table's bounds and no defaults of
its own (through `native/src/properties/table.rs`, generated from the table and checked fresh
here)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ferrolog.config import BrokerConfig
from ferrolog.config.rust import DEFAULT_OUTPUT, REGENERATE, render
from ferrolog.config.table import (
    BROKER_CONFIGS,
    NATIVE_SERVER_KEYS,
    NATIVE_TOPIC_KEYS,
    TOPIC_CONFIGS,
)
from ferrolog.errors import InvalidConfigError

# Apache Kafka 4.1.1's default and lower bound (its ConfigDef) of the properties on which the
# Python table and the native core's own defaults used to disagree.
KAFKA_4_1 = {
    "num.io.threads": ("8", 1),
    "queued.max.requests": ("500", 1),
    "log.index.size.max.bytes": ("10485760", 4),
}


def test_generated_rust_table_is_fresh() -> None:
    assert DEFAULT_OUTPUT.read_text(encoding="utf-8") == render(), (
        f"{DEFAULT_OUTPUT.name} is stale or was edited by hand: run {REGENERATE}"
    )


@pytest.mark.native
def test_the_native_core_reads_exactly_the_native_properties_of_the_table() -> None:
    native = pytest.importorskip("ferrolog_native")
    names = native.config_names()
    assert sorted(names["server"]) == sorted(NATIVE_SERVER_KEYS)
    assert sorted(names["topic"]) == sorted(NATIVE_TOPIC_KEYS)


def test_former_disagreements_take_kafkas_values() -> None:
    for name, (default, minimum) in KAFKA_4_1.items():
        definition = BROKER_CONFIGS[name]
        assert (definition.default, definition.minimum) == (default, minimum), name
    assert TOPIC_CONFIGS["segment.index.bytes"].minimum == 4
    assert "control.queue.size" not in BROKER_CONFIGS  # now Kafka's queued.max.requests
    server = BrokerConfig().native_server_config()
    assert (server["num.io.threads"], server["queued.max.requests"]) == ("8", "500")
    assert server["log.dirs"] == "./ferrolog-data"
    # The generated Rust defaults (for Rust tests) are the same resolved values.
    generated = DEFAULT_OUTPUT.read_text(encoding="utf-8")
    log_dirs = (
        'name: "log.dirs",\n        kind: Kind::String,\n        default: Some("./ferrolog-data"),'
    )
    assert log_dirs in generated


@pytest.mark.native
def test_native_core_refuses_what_the_table_refuses(tmp_path: Path) -> None:
    native = pytest.importorskip("ferrolog_native")
    config = BrokerConfig({"listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": str(tmp_path)})
    server_config = config.native_server_config()
    for name, value in [("num.io.threads", "0"), ("queued.max.requests", "0")]:
        with pytest.raises(InvalidConfigError):
            BrokerConfig({name: value})
        with pytest.raises(ValueError, match=re.escape(name)):
            native.Server({**server_config, name: value})
    with pytest.raises(InvalidConfigError):
        config.resolve_topic_config({"segment.index.bytes": "3"})
    server = native.Server(server_config)
    try:
        server.start()
        topic = config.resolve_topic_config({})
        with pytest.raises(ValueError, match=re.escape("segment.index.bytes")):
            server.open_partition("t", 0, b"\x01" * 16, {**topic, "segment.index.bytes": "3"})
        server.open_partition(
            "t", 0, b"\x01" * 16, config.resolve_topic_config({"segment.index.bytes": "4"})
        )
    finally:
        server.shutdown()


@pytest.mark.native
def test_every_property_the_core_reads_is_required_and_no_other(tmp_path: Path) -> None:
    native = pytest.importorskip("ferrolog_native")
    config = BrokerConfig({"log.dirs": str(tmp_path)})
    server_config = config.native_server_config()
    missing = {k: v for k, v in server_config.items() if k != "producer.id.expiration.ms"}
    with pytest.raises(ValueError, match=re.escape("producer.id.expiration.ms is missing")):
        native.Server(missing)
    with pytest.raises(ValueError, match=re.escape("log.retention.check.interval.ms")):
        native.Server({**server_config, "log.retention.check.interval.ms": "1000"})
    topic = config.resolve_topic_config({})
    with pytest.raises(ValueError, match="is missing"):
        native.validate_batch(native.build_batch([(None, b"v", [], 0)]), {}, 0)
    with pytest.raises(ValueError, match="preallocate"):
        native.validate_batch(
            native.build_batch([(None, b"v", [], 0)]), {**topic, "preallocate": "false"}, 0
        )
