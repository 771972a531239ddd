"""Every property of the one config table has Apache Kafka 4.1's type, bounds and allowed
values, pinned here as data (read from Kafka 4.1.1's `LogConfig` and `KafkaConfig` definitions),
so an edit of the table that loosens one fails; and a value out of them is refused with Kafka's
message."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from ferrolog.cli import cli
from ferrolog.config import BROKER_CONFIGS, TOPIC_CONFIGS, BrokerConfig, ConfigType
from ferrolog.config.table import ConfigDef
from ferrolog.config.values import validate_topic_configs, validate_value
from ferrolog.errors import InvalidConfigError

T = ConfigType
B, S, SH, INT, L, D, LST = T.BOOLEAN, T.STRING, T.SHORT, T.INT, T.LONG, T.DOUBLE, T.LIST
PW = T.PASSWORD
_CODECS = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
_POLICIES = ("compact", "delete")
_TIMESTAMPS = ("CreateTime", "LogAppendTime")

Bounds = tuple[ConfigType, float | None, float | None, tuple[str, ...]]

# Kafka 4.1.1: (type, minimum, maximum, allowed values) of each property ferrolog has.
KAFKA_BROKER: dict[str, Bounds] = {
    "node.id": (INT, 0, None, ()),
    # Kafka 4.4.0's ServerConfigs (DescribeTopicPartitions, KIP-966).
    "max.request.partition.size.limit": (INT, 1, None, ()),
    "broker.id": (INT, None, None, ()),
    "broker.rack": (S, None, None, ()),
    "process.roles": (LST, None, None, ("broker", "controller")),
    "controller.quorum.voters": (LST, None, None, ()),
    "controller.quorum.bootstrap.servers": (LST, None, None, ()),
    "controller.listener.names": (LST, None, None, ()),
    "listeners": (S, None, None, ()),
    "advertised.listeners": (S, None, None, ()),
    "listener.security.protocol.map": (S, None, None, ()),
    "inter.broker.listener.name": (S, None, None, ()),
    "security.inter.broker.protocol": (
        S,
        None,
        None,
        ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"),
    ),
    # SslConfigs and BrokerSecurityConfigs: only ssl.client.auth has a validator.
    "ssl.keystore.type": (S, None, None, ()),
    "ssl.keystore.location": (S, None, None, ()),
    "ssl.keystore.password": (PW, None, None, ()),
    "ssl.key.password": (PW, None, None, ()),
    "ssl.keystore.key": (PW, None, None, ()),
    "ssl.keystore.certificate.chain": (PW, None, None, ()),
    "ssl.truststore.type": (S, None, None, ()),
    "ssl.truststore.location": (S, None, None, ()),
    "ssl.truststore.password": (PW, None, None, ()),
    "ssl.truststore.certificates": (PW, None, None, ()),
    "ssl.client.auth": (S, None, None, ("required", "requested", "none")),
    "ssl.enabled.protocols": (LST, None, None, ()),
    "ssl.protocol": (S, None, None, ()),
    "ssl.endpoint.identification.algorithm": (S, None, None, ()),
    "ssl.principal.mapping.rules": (S, None, None, ()),
    "sasl.enabled.mechanisms": (LST, None, None, ()),
    "sasl.mechanism.inter.broker.protocol": (S, None, None, ()),
    "sasl.jaas.config": (PW, None, None, ()),
    "sasl.server.max.receive.size": (INT, None, None, ()),
    # Kafka 4.4.0's DelegationTokenManagerConfigs.
    "delegation.token.secret.key": (PW, None, None, ()),
    "delegation.token.max.lifetime.ms": (L, 1, None, ()),
    "delegation.token.expiry.time.ms": (L, 1, None, ()),
    "delegation.token.expiry.check.interval.ms": (L, 1, None, ()),
    "connection.failed.authentication.delay.ms": (INT, 0, None, ()),
    "max.connections": (INT, 0, None, ()),
    "max.connections.per.ip": (INT, 0, None, ()),
    "max.connections.per.ip.overrides": (S, None, None, ()),
    "max.connection.creation.rate": (INT, 0, None, ()),
    "fetch.max.bytes": (INT, 1024, None, ()),
    "connections.max.idle.ms": (L, None, None, ()),
    "socket.request.max.bytes": (INT, 1, None, ()),
    "queued.max.request.bytes": (L, None, None, ()),
    "num.io.threads": (INT, 1, None, ()),
    "num.recovery.threads.per.data.dir": (INT, 1, None, ()),
    "num.network.threads": (INT, 1, None, ()),
    "queued.max.requests": (INT, 1, None, ()),
    "max.incremental.fetch.session.cache.slots": (INT, 0, None, ()),
    "quota.window.num": (INT, 1, None, ()),
    "quota.window.size.seconds": (INT, 1, None, ()),
    "log.dirs": (S, None, None, ()),
    "log.dir": (S, None, None, ()),
    "log.segment.bytes": (INT, 1048576, None, ()),
    "log.roll.ms": (L, None, None, ()),
    "log.roll.hours": (INT, 1, None, ()),
    "log.roll.jitter.ms": (L, None, None, ()),
    "log.roll.jitter.hours": (INT, 0, None, ()),
    "log.retention.ms": (L, None, None, ()),
    "log.retention.minutes": (INT, None, None, ()),
    "log.retention.hours": (INT, None, None, ()),
    "log.retention.bytes": (L, None, None, ()),
    "log.retention.check.interval.ms": (L, 1, None, ()),
    "log.index.size.max.bytes": (INT, 4, None, ()),
    "log.index.interval.bytes": (INT, 0, None, ()),
    "log.flush.interval.messages": (L, 1, None, ()),
    "log.flush.interval.ms": (L, None, None, ()),
    # `DynamicConfig.Broker`'s replication quotas (QuotaConfig).
    "leader.replication.throttled.rate": (L, 0, None, ()),
    "follower.replication.throttled.rate": (L, 0, None, ()),
    "replica.alter.log.dirs.io.max.bytes.per.second": (L, 0, None, ()),
    "log.flush.scheduler.interval.ms": (L, None, None, ()),
    "log.flush.offset.checkpoint.interval.ms": (INT, 0, None, ()),
    "log.segment.delete.delay.ms": (L, 0, None, ()),
    "log.cleanup.policy": (LST, None, None, _POLICIES),
    "log.cleaner.delete.retention.ms": (L, 0, None, ()),
    "log.cleaner.min.compaction.lag.ms": (L, 0, None, ()),
    "log.cleaner.max.compaction.lag.ms": (L, 1, None, ()),
    "log.cleaner.min.cleanable.ratio": (D, 0, 1, ()),
    "log.preallocate": (B, None, None, ()),
    "log.message.timestamp.type": (S, None, None, _TIMESTAMPS),
    "log.message.timestamp.before.max.ms": (L, 0, None, ()),
    "log.message.timestamp.after.max.ms": (L, 0, None, ()),
    "message.max.bytes": (INT, 0, None, ()),
    "compression.type": (S, None, None, _CODECS),
    "replica.fetch.max.bytes": (INT, 0, None, ()),
    "num.partitions": (INT, 1, None, ()),
    "default.replication.factor": (INT, None, None, ()),
    "auto.create.topics.enable": (B, None, None, ()),
    "delete.topic.enable": (B, None, None, ()),
    "min.insync.replicas": (INT, 1, None, ()),
    "unclean.leader.election.enable": (B, None, None, ()),
    "replica.lag.time.max.ms": (L, None, None, ()),
    "replica.fetch.wait.max.ms": (INT, None, None, ()),
    "replica.fetch.min.bytes": (INT, None, None, ()),
    "replica.fetch.response.max.bytes": (INT, 0, None, ()),
    "replica.fetch.backoff.ms": (INT, 0, None, ()),
    "replica.socket.timeout.ms": (INT, None, None, ()),
    "controlled.shutdown.enable": (B, None, None, ()),
    "offsets.topic.num.partitions": (INT, 1, None, ()),
    "offsets.topic.replication.factor": (SH, 1, None, ()),
    "offsets.topic.segment.bytes": (INT, 1, None, ()),
    "offsets.retention.minutes": (INT, 1, None, ()),
    "offsets.commit.timeout.ms": (INT, 1, None, ()),
    "offsets.retention.check.interval.ms": (L, 1, None, ()),
    "offset.metadata.max.bytes": (INT, None, None, ()),
    "group.initial.rebalance.delay.ms": (INT, None, None, ()),
    "group.min.session.timeout.ms": (INT, None, None, ()),
    "group.max.session.timeout.ms": (INT, None, None, ()),
    "group.max.size": (INT, 1, None, ()),
    # Kafka 4.4.0's ShareCoordinatorConfig.
    "share.coordinator.state.topic.num.partitions": (INT, 1, None, ()),
    "share.coordinator.state.topic.replication.factor": (SH, 1, None, ()),
    "share.coordinator.state.topic.min.isr": (SH, 1, None, ()),
    "share.coordinator.state.topic.segment.bytes": (INT, 1, None, ()),
    "share.coordinator.snapshot.update.records.per.snapshot": (INT, 0, 500, ()),
    "share.coordinator.state.topic.prune.interval.ms": (INT, 1, None, ()),
    # Kafka 4.4.0's GroupCoordinatorConfig, of streams groups.
    "group.streams.assignors": (LST, None, None, ()),
    "group.streams.max.size": (INT, 1, None, ()),
    "group.streams.session.timeout.ms": (INT, 1, None, ()),
    "group.streams.min.session.timeout.ms": (INT, 1, None, ()),
    "group.streams.max.session.timeout.ms": (INT, 1, None, ()),
    "group.streams.heartbeat.interval.ms": (INT, 1, None, ()),
    "group.streams.min.heartbeat.interval.ms": (INT, 1, None, ()),
    "group.streams.max.heartbeat.interval.ms": (INT, 1, None, ()),
    "group.streams.num.standby.replicas": (INT, 0, None, ()),
    "group.streams.max.standby.replicas": (INT, 0, None, ()),
    "group.streams.initial.rebalance.delay.ms": (INT, 0, None, ()),
    "group.streams.assignment.interval.ms": (INT, 0, None, ()),
    "group.streams.min.assignment.interval.ms": (INT, 0, None, ()),
    "group.streams.max.assignment.interval.ms": (INT, 0, None, ()),
    "group.streams.task.offset.interval.ms": (INT, 1, None, ()),
    "group.streams.min.task.offset.interval.ms": (INT, 1, None, ()),
    "group.streams.acceptable.recovery.lag": (L, 0, None, ()),
    # Kafka 4.4.0's GroupCoordinatorConfig, of share groups.
    "group.share.assignors": (LST, None, None, ()),
    "group.share.max.size": (INT, 1, 1000, ()),
    "group.share.session.timeout.ms": (INT, 1, None, ()),
    "group.share.min.session.timeout.ms": (INT, 1, None, ()),
    "group.share.max.session.timeout.ms": (INT, 1, None, ()),
    "group.share.heartbeat.interval.ms": (INT, 1, None, ()),
    "group.share.min.heartbeat.interval.ms": (INT, 1, None, ()),
    "group.share.max.heartbeat.interval.ms": (INT, 1, None, ()),
    "group.share.assignment.interval.ms": (INT, 0, None, ()),
    "group.share.min.assignment.interval.ms": (INT, 0, None, ()),
    "group.share.max.assignment.interval.ms": (INT, 0, None, ()),
    "group.share.initialize.retry.interval.ms": (INT, 1, None, ()),
    # Kafka 4.4.0's ShareGroupConfig.
    "group.share.record.lock.duration.ms": (INT, 1000, 3600000, ()),
    "group.share.min.record.lock.duration.ms": (INT, 1000, 30000, ()),
    "group.share.max.record.lock.duration.ms": (INT, 30000, 3600000, ()),
    "group.share.delivery.count.limit": (INT, 2, 10, ()),
    "group.share.min.delivery.count.limit": (INT, 2, 5, ()),
    "group.share.max.delivery.count.limit": (INT, 5, 25, ()),
    "group.share.partition.max.record.locks": (INT, 100, 10000, ()),
    "group.share.min.partition.max.record.locks": (INT, 100, 2000, ()),
    "group.share.max.partition.max.record.locks": (INT, 2000, 10000, ()),
    "group.share.max.share.sessions": (INT, 1, None, ()),
    # Kafka 4.4.0's ServerConfigs.
    "unstable.feature.versions.enable": (B, None, None, ()),
    "group.consumer.assignors": (LST, None, None, ()),
    "group.consumer.session.timeout.ms": (INT, 1, None, ()),
    "group.consumer.heartbeat.interval.ms": (INT, 1, None, ()),
    "group.consumer.max.size": (INT, 1, None, ()),
    "group.consumer.min.session.timeout.ms": (INT, 1, None, ()),
    "group.consumer.max.session.timeout.ms": (INT, 1, None, ()),
    "group.consumer.min.heartbeat.interval.ms": (INT, 1, None, ()),
    "group.consumer.max.heartbeat.interval.ms": (INT, 1, None, ()),
    "group.consumer.migration.policy": (
        S,
        None,
        None,
        ("disabled", "upgrade", "downgrade", "bidirectional"),
    ),
    "transaction.state.log.num.partitions": (INT, 1, None, ()),
    "transaction.state.log.replication.factor": (SH, 1, None, ()),
    "transaction.state.log.min.isr": (INT, 1, None, ()),
    "transaction.state.log.segment.bytes": (INT, 1, None, ()),
    "transaction.max.timeout.ms": (INT, 1, None, ()),
    "transactional.id.expiration.ms": (INT, 1, None, ()),
    "transaction.partition.verification.enable": (B, None, None, ()),
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": (INT, 1, None, ()),
    "transaction.remove.expired.transaction.cleanup.interval.ms": (INT, 1, None, ()),
    "producer.id.expiration.ms": (INT, 1, None, ()),
    "authorizer.class.name": (S, None, None, ()),
}

KAFKA_TOPIC: dict[str, Bounds] = {
    "leader.replication.throttled.replicas": (LST, None, None, ()),
    "follower.replication.throttled.replicas": (LST, None, None, ()),
    "cleanup.policy": (LST, None, None, _POLICIES),
    "compression.type": (S, None, None, _CODECS),
    "delete.retention.ms": (L, 0, None, ()),
    "file.delete.delay.ms": (L, 0, None, ()),
    "flush.messages": (L, 1, None, ()),
    "flush.ms": (L, 0, None, ()),
    "index.interval.bytes": (INT, 0, None, ()),
    "max.compaction.lag.ms": (L, 1, None, ()),
    "max.message.bytes": (INT, 0, None, ()),
    "message.timestamp.type": (S, None, None, _TIMESTAMPS),
    "message.timestamp.before.max.ms": (L, 0, None, ()),
    "message.timestamp.after.max.ms": (L, 0, None, ()),
    "min.cleanable.dirty.ratio": (D, 0, 1, ()),
    "min.compaction.lag.ms": (L, 0, None, ()),
    "min.insync.replicas": (INT, 1, None, ()),
    "preallocate": (B, None, None, ()),
    "retention.bytes": (L, None, None, ()),
    "retention.ms": (L, -1, None, ()),
    "segment.bytes": (INT, 1048576, None, ()),
    "internal.segment.bytes": (INT, None, None, ()),
    "segment.index.bytes": (INT, 4, None, ()),
    "segment.jitter.ms": (L, 0, None, ()),
    "segment.ms": (L, 1, None, ()),
    "unclean.leader.election.enable": (B, None, None, ()),
}

# Lower bounds Kafka 4.1 checks at start-up (KafkaConfig's checks of single values) rather
# than in its ConfigDef: the table holds them as bounds.
KAFKA_START_CHECKS = {"log.roll.ms": 1, "log.roll.jitter.ms": 0}

# Lower bounds tighter than Kafka's, each with its reason in the table.
TIGHTER = {
    "broker.id": 0,
    "default.replication.factor": 1,
    "replica.lag.time.max.ms": 1,
    "replica.fetch.wait.max.ms": 0,
    "replica.fetch.min.bytes": 1,
    "replica.socket.timeout.ms": 1,
    "offset.metadata.max.bytes": 0,
    "group.initial.rebalance.delay.ms": 0,
    "internal.segment.bytes": 14,
}

# The authorizer's properties: Kafka's authorizers (AclAuthorizer, StandardAuthorizer) read
# them from the broker's config rather than KafkaConfig's definitions.
KAFKA_AUTHORIZER: dict[str, Bounds] = {
    "super.users": (S, None, None, ()),
    "allow.everyone.if.no.acl.found": (B, None, None, ()),
}

# ferrolog's own properties, not Kafka 4.1's (the metrics endpoint; cluster mode over
# ZooKeeper, which Kafka 4 dropped).
FERROLOG_ONLY: dict[str, Bounds] = {
    "metrics.listener": (S, None, None, ()),
    "zookeeper.connect": (S, None, None, ()),
    "zookeeper.session.timeout.ms": (INT, 1, None, ()),
    "zookeeper.connection.timeout.ms": (INT, None, None, ()),
    "controlled.shutdown.timeout.ms": (L, 0, None, ()),
}


def _expected(kafka: dict[str, Bounds], name: str) -> Bounds:
    kind, low, high, choices = kafka[name]
    low = TIGHTER.get(name, KAFKA_START_CHECKS.get(name, low))
    return kind, low, high, choices


def _actual(definition: ConfigDef) -> Bounds:
    return definition.type, definition.minimum, definition.maximum, definition.choices


def test_every_broker_property_has_kafkas_type_and_bounds() -> None:
    # The served ones: test_kafka_properties checks the others against Kafka 4.4's jars.
    served = {n: d for n, d in BROKER_CONFIGS.items() if d.unserved is None}
    assert set(served) == set(KAFKA_BROKER) | set(KAFKA_AUTHORIZER) | set(FERROLOG_ONLY)
    for name, definition in served.items():
        own = FERROLOG_ONLY.get(name) or KAFKA_AUTHORIZER.get(name)
        expected = own or _expected(KAFKA_BROKER, name)
        assert _actual(definition) == expected, name


def test_every_topic_property_has_kafkas_type_and_bounds() -> None:
    assert set(TOPIC_CONFIGS) == set(KAFKA_TOPIC)
    for name, definition in TOPIC_CONFIGS.items():
        assert _actual(definition) == _expected(KAFKA_TOPIC, name), name


def _every_bound() -> list[tuple[ConfigDef, float, str]]:
    """(definition, bound, "min" | "max") of every bounded property of the table."""
    cases = []
    for definition in [*BROKER_CONFIGS.values(), *TOPIC_CONFIGS.values()]:
        if definition.minimum is not None:
            cases.append((definition, definition.minimum, "min"))
        if definition.maximum is not None:
            cases.append((definition, definition.maximum, "max"))
    return cases


@pytest.mark.parametrize(
    ("definition", "bound", "side"), _every_bound(), ids=lambda v: getattr(v, "name", str(v))
)
def test_a_bound_is_inclusive_and_one_step_past_it_is_refused(
    definition: ConfigDef, bound: float, side: str
) -> None:
    step = 0.001 if definition.type == ConfigType.DOUBLE else 1
    inside = int(bound) if definition.type != ConfigType.DOUBLE else bound
    outside = inside - step if side == "min" else inside + step
    assert float(validate_value(definition, str(inside))) == inside
    with pytest.raises(InvalidConfigError) as refused:
        validate_value(definition, str(outside))
    words = "at least" if side == "min" else "no more than"
    shown = str(int(bound)) if float(bound).is_integer() else str(bound)
    assert refused.value.message == (
        f"Invalid value {outside} for configuration {definition.name}: "
        f"Value must be {words} {shown}"
    )


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        # Kafka 4.1's answers to these values, as a CreateTopics or AlterConfigs gets them.
        ("segment.bytes", "1048575", "Value must be at least 1048576"),
        ("segment.bytes", "abc", "Not a number of type INT"),
        ("segment.bytes", "2147483648", "Not a number of type INT"),
        ("retention.ms", "-2", "Value must be at least -1"),
        ("min.insync.replicas", "0", "Value must be at least 1"),
        ("max.message.bytes", "-1", "Value must be at least 0"),
        ("cleanup.policy", "bogus", "String must be one of: compact, delete"),
        (
            "compression.type",
            "brotli",
            "String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer",
        ),
        ("message.timestamp.type", "Now", "String must be one of: CreateTime, LogAppendTime"),
        ("min.cleanable.dirty.ratio", "1.5", "Value must be no more than 1"),
        ("preallocate", "yes", "Expected value to be either true or false"),
        ("segment.ms", "0", "Value must be at least 1"),
    ],
)
def test_refusals_carry_kafkas_message(name: str, value: str, message: str) -> None:
    with pytest.raises(InvalidConfigError) as refused:
        validate_topic_configs({name: value})
    assert refused.value.message == f"Invalid value {value} for configuration {name}: {message}"


def test_values_kafka_accepts_are_accepted() -> None:
    accepted = validate_topic_configs(
        {
            "segment.bytes": "1048576",
            "retention.ms": " 5 ",
            "cleanup.policy": "compact, delete",
            "retention.bytes": "-7",  # no bound in Kafka either
            "internal.segment.bytes": "1024",
        }
    )
    assert accepted == {
        "segment.bytes": "1048576",
        "retention.ms": "5",
        "cleanup.policy": "compact,delete",
        "retention.bytes": "-7",
        "internal.segment.bytes": "1024",
    }
    with pytest.raises(InvalidConfigError) as refused:
        validate_topic_configs({"no.such": "1"})
    assert refused.value.message == "Unknown topic config name: no.such"


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("log.segment.bytes", "1048575", "Value must be at least 1048576"),
        ("log.roll.jitter.ms", "-1", "Value must be at least 0"),
        ("offsets.topic.replication.factor", "40000", "Not a number of type SHORT"),
    ],
)
def test_a_broker_property_out_of_bounds_fails_the_start_naming_it(
    name: str, value: str, reason: str
) -> None:
    with pytest.raises(InvalidConfigError) as refused:
        BrokerConfig.load(overrides=[f"{name}={value}"], environ={})
    assert refused.value.message == f"Invalid value {value} for configuration {name}: {reason}"


def test_the_broker_command_refuses_to_start_naming_the_property(tmp_path: Path) -> None:
    args = ["broker", "--override", f"log.dirs={tmp_path}", "--override", "log.segment.bytes=1000"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert (
        "Invalid value 1000 for configuration log.segment.bytes: Value must be at least 1048576"
        in result.output
    )
    assert list(tmp_path.iterdir()) == []  # refused before anything was written


def test_request_memory_holds_at_least_one_request() -> None:
    """As Kafka's KafkaConfig requires: a pool smaller than the largest request is refused."""
    with pytest.raises(InvalidConfigError, match=r"must be larger or equal to socket\.request"):
        BrokerConfig({"queued.max.request.bytes": "1000"})
    BrokerConfig({"queued.max.request.bytes": "1000", "socket.request.max.bytes": "1000"})
    BrokerConfig({"queued.max.request.bytes": "-1"})
