"""Dynamic broker configs in the config layer: the per-broker and cluster-default levels over
the static settings, in Kafka's precedence, feeding the topic defaults, and the DescribeConfigs
rows (source, synonyms) Kafka 4.1 gives for them (seen from its `kafka-configs --describe`)."""

from __future__ import annotations

from ferrolog.config import BROKER_CONFIGS, BrokerConfig, ConfigSource
from ferrolog.config.rows import ConfigSynonym

DYN, DYN_DEFAULT = ConfigSource.DYNAMIC_BROKER_CONFIG, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
STATIC, DEFAULT = ConfigSource.STATIC_BROKER_CONFIG, ConfigSource.DEFAULT_CONFIG

# Kafka 4.1.1's dynamic broker configs (`DynamicBrokerConfig.AllDynamicConfigs` and the
# replication quotas of `DynamicConfig.Broker`) without the listener, SSL, SASL and remote
# storage ones, which ferrolog does not have.
KAFKA_DYNAMIC = {
    "background.threads", "compression.gzip.level", "compression.lz4.level",
    "compression.type", "compression.zstd.level", "log.cleaner.backoff.ms",
    "log.cleaner.dedupe.buffer.size", "log.cleaner.delete.retention.ms",
    "log.cleaner.io.buffer.load.factor", "log.cleaner.io.buffer.size",
    "log.cleaner.io.max.bytes.per.second", "log.cleaner.max.compaction.lag.ms",
    "log.cleaner.min.cleanable.ratio", "log.cleaner.min.compaction.lag.ms",
    "log.cleaner.threads", "log.cleanup.policy", "log.flush.interval.messages",
    "log.flush.interval.ms", "log.index.interval.bytes", "log.index.size.max.bytes",
    "log.local.retention.bytes", "log.local.retention.ms",
    "log.message.timestamp.after.max.ms", "log.message.timestamp.before.max.ms",
    "log.message.timestamp.type", "log.preallocate", "log.retention.bytes", "log.retention.ms",
    "log.roll.jitter.ms", "log.roll.ms", "log.segment.bytes", "log.segment.delete.delay.ms",
    "max.connection.creation.rate", "max.connections", "max.connections.per.ip",
    "max.connections.per.ip.overrides", "message.max.bytes", "metric.reporters",
    "min.insync.replicas", "num.io.threads", "num.network.threads",
    "num.recovery.threads.per.data.dir", "num.replica.fetchers", "principal.builder.class",
    "producer.id.expiration.ms", "transaction.partition.verification.enable",
    "unclean.leader.election.enable", "leader.replication.throttled.rate",
    "follower.replication.throttled.rate", "replica.alter.log.dirs.io.max.bytes.per.second",
}  # fmt: skip


def test_the_dynamic_properties_are_kafkas_and_the_log_defaults_are_all_there() -> None:
    # The served ones (tests/config/test_kafka_properties.py checks the others against 4.4).
    dynamic = {n for n, d in BROKER_CONFIGS.items() if d.dynamic and d.unserved is None}
    assert dynamic <= KAFKA_DYNAMIC
    # Every log default Kafka updates at runtime and ferrolog has.
    served = {n for n, d in BROKER_CONFIGS.items() if d.unserved is None}
    assert {n for n in KAFKA_DYNAMIC if n.startswith("log.") and n in served} <= dynamic
    # Kafka's static synonyms stay static.
    assert not dynamic & {"log.retention.hours", "log.retention.minutes", "log.roll.hours"}


def test_precedence_is_broker_then_default_then_static_then_table() -> None:
    config = BrokerConfig({"log.retention.ms": "5000", "log.segment.bytes": str(2 << 20)})
    assert config.topic_config({})["retention.ms"] == "5000"
    changed = config.set_dynamic({"log.retention.ms": "1000"}, {})
    assert changed == {"log.retention.ms"}
    assert config.get("log.retention.ms") == "1000"
    assert config.topic_config({})["retention.ms"] == "1000"
    assert config.topic_config({"retention.ms": "7"})["retention.ms"] == "7"  # override wins
    assert config.set_dynamic({"log.retention.ms": "1000"}, {"log.retention.ms": "2000"}) == {
        "log.retention.ms"
    }
    assert config.topic_config({})["retention.ms"] == "2000"
    assert config.set_dynamic({}, {}) == {"log.retention.ms"}
    assert config.topic_config({})["retention.ms"] == "5000"
    assert config.is_set("log.retention.ms")  # static settings are untouched


def test_a_dynamic_ms_beats_a_static_hours() -> None:
    config = BrokerConfig({"log.retention.hours": "24"})
    assert config.topic_config({})["retention.ms"] == str(24 * 3_600_000)
    config.set_dynamic({"log.retention.ms": "1000"}, {})
    assert config.topic_config({})["retention.ms"] == "1000"
    rows = {e.name: e for e in config.describe_topic({})}
    assert rows["retention.ms"].source == DYN_DEFAULT
    assert rows["retention.ms"].synonyms == [
        ConfigSynonym("log.retention.ms", "1000", DYN_DEFAULT),
        ConfigSynonym("log.retention.hours", "24", STATIC),
        ConfigSynonym("log.retention.hours", "168", DEFAULT),
    ]


def test_static_and_invalid_values_in_the_store_are_ignored() -> None:
    config = BrokerConfig()
    changed = config.set_dynamic(
        {"num.partitions": "9", "log.retention.bytes": "x"}, {"log.segment.bytes": "12"}
    )
    assert changed == set()
    assert config.get("num.partitions") == "1"
    assert config.topic_config({})["segment.bytes"] == "1073741824"


def test_describe_broker_rows_as_kafka_gives_them() -> None:
    config = BrokerConfig({"log.segment.bytes": "1073741824"})
    config.set_dynamic(
        {"log.retention.ms": "1000", "leader.replication.throttled.rate": "1000"},
        {"log.retention.ms": "2000", "follower.replication.throttled.rate": "10", "foo.bar": "3"},
    )
    rows = {e.name: e for e in config.describe_broker()}
    ms = rows["log.retention.ms"]
    assert (ms.value, ms.source, ms.read_only) == ("2000", DYN, False)
    assert ms.synonyms == [
        ConfigSynonym("log.retention.ms", "2000", DYN),
        ConfigSynonym("log.retention.ms", "1000", DYN_DEFAULT),
        ConfigSynonym("log.retention.hours", "168", DEFAULT),
    ]
    hours = rows["log.retention.hours"]
    assert (hours.value, hours.source, hours.read_only) == ("168", DEFAULT, True)
    assert hours.synonyms == [ConfigSynonym("log.retention.hours", "168", DEFAULT)]
    minutes = rows["log.retention.minutes"]
    assert (minutes.value, minutes.source, minutes.synonyms) == (None, DEFAULT, [])
    segment = rows["log.segment.bytes"]
    assert segment.source == STATIC
    assert [s.source for s in segment.synonyms] == [STATIC, DEFAULT]
    leader = rows["leader.replication.throttled.rate"]
    assert (leader.value, leader.source) == ("1000", DYN_DEFAULT)
    follower = rows["follower.replication.throttled.rate"]
    assert (follower.value, follower.source) == ("10", DYN)
    custom = rows["foo.bar"]
    assert (custom.value, custom.sensitive, custom.source) == (None, True, DYN)
    assert custom.synonyms == [ConfigSynonym("foo.bar", None, DYN)]


def test_describe_default_lists_only_the_dynamic_defaults() -> None:
    config = BrokerConfig()
    assert config.describe_default() == []
    config.set_dynamic({"log.retention.ms": "1000"}, {"log.retention.ms": "2000"})
    (row,) = config.describe_default()
    assert (row.name, row.value, row.source) == ("log.retention.ms", "1000", DYN_DEFAULT)
    assert row.synonyms == [ConfigSynonym("log.retention.ms", "1000", DYN_DEFAULT)]
