"""What a broker's settings must satisfy before it starts, checked as Kafka checks them at
start-up (in its order and words where Kafka has them): listeners and their security, the
consumer group timeouts' bounds, KRaft's roles, the authorizer. A failed check raises
InvalidConfigError, and the broker does not start."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ferrolog.config import inter_broker, jaas
from ferrolog.config.values import parse_listeners
from ferrolog.errors import InvalidConfigError

if TYPE_CHECKING:
    from ferrolog.config.broker import BrokerConfig

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
# What a SASL listener may enable: the mechanisms a broker also logs in to the others with.
SASL_MECHANISMS = inter_broker.SASL_MECHANISMS

# Kafka's authorizer class names (ZooKeeper mode's and KRaft's): either switches ferrolog's
# authorizer on (`native/src/acl`), which decides as both do.
AUTHORIZER_CLASSES = (
    "kafka.security.authorizer.AclAuthorizer",
    "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
)


def check(config: BrokerConfig) -> None:
    if not config.listeners:
        raise InvalidConfigError("listeners: at least one listener is required")
    if config.is_set("advertised.listeners"):
        parse_listeners(config.get("advertised.listeners") or "")
    _listeners(config)
    _group_timeouts(config)
    _kraft_roles(config)
    queued = config.get_int("queued.max.request.bytes")
    if 0 < queued < config.get_int("socket.request.max.bytes"):
        raise InvalidConfigError(
            "queued.max.request.bytes must be larger or equal to socket.request.max.bytes"
        )
    authorizer = (config.get("authorizer.class.name") or "").strip()
    if authorizer and authorizer not in AUTHORIZER_CLASSES:
        # Kafka would load the class; ferrolog has its own authorizer behind Kafka's names.
        raise InvalidConfigError(
            f"authorizer.class.name {authorizer!r} is not an authorizer ferrolog has: set "
            f"{' or '.join(AUTHORIZER_CLASSES)} for Kafka's ACLs, or leave it empty"
        )
    config.metrics_listener  # noqa: B018 - validates it


def _kraft_roles(config: BrokerConfig) -> None:
    """A Kafka 4 `server.properties` names KRaft's roles. Its single node (broker and
    controller in one process, a quorum of itself) is what ferrolog is without ZooKeeper;
    anything else needs a quorum ferrolog does not have."""
    if not config.is_set("process.roles"):
        return
    roles = config.get("process.roles") or ""
    quorums = [
        [v for v in (config.get(name) or "").split(",") if v]
        for name in ("controller.quorum.voters", "controller.quorum.bootstrap.servers")
    ]
    if (
        set(roles.split(",")) != {"broker", "controller"}
        or config.is_set("zookeeper.connect")
        or any(len(quorum) > 1 for quorum in quorums)
    ):
        raise InvalidConfigError(
            f"process.roles={roles}: ferrolog serves KRaft's combined single node "
            "(process.roles=broker,controller, a quorum of itself); a cluster's controller "
            "runs on ZooKeeper: set zookeeper.connect and leave process.roles out"
        )


def _group_timeouts(config: BrokerConfig) -> None:
    """Kafka's start-up checks (`GroupCoordinatorConfig`) of the consumer and share group
    session timeouts, heartbeat intervals (and share groups' assignment interval) against
    their bounds, in Kafka's order and words."""
    bounded = ["heartbeat.interval.ms", "session.timeout.ms"]
    for prefix, names in (
        ("group.consumer.", bounded),
        (
            "group.share.",
            [
                *bounded,
                "assignment.interval.ms",
                "record.lock.duration.ms",
                "delivery.count.limit",
                "partition.max.record.locks",
            ],
        ),
    ):
        value = {
            name: config.get_int(prefix + name)
            for base in names
            for name in (base, "min." + base, "max." + base)
        }
        checks = [
            check
            for base in names
            for check in (
                ("max." + base, ">=", "min." + base),
                (base, ">=", "min." + base),
                (base, "<=", "max." + base),
            )
        ]
        checks.append(("heartbeat.interval.ms", "<", "session.timeout.ms"))
        for left, op, right in checks:
            a, b = value[left], value[right]
            if not (a >= b if op == ">=" else a <= b if op == "<=" else a < b):
                raise InvalidConfigError(f"{prefix}{left} must be {_WORDS[op]} {prefix}{right}")


_WORDS = {">=": "greater than or equal to", "<=": "less than or equal to", "<": "less than"}


def _listeners(config: BrokerConfig) -> None:
    names = [lst.name for lst in config.listeners]
    if len(set(names)) != len(names):
        raise InvalidConfigError(f"listeners: each listener name must be unique: {names}")
    ports = [lst.port for lst in config.listeners if lst.port]
    if len(set(ports)) != len(ports):
        raise InvalidConfigError("listeners: each listener must have a different port")
    for name in names:
        protocol = config.security_protocol(name)
        if protocol not in SECURITY_PROTOCOLS:
            raise InvalidConfigError(
                f"listener {name}: security protocol {protocol} is not supported "
                f"(ferrolog serves {', '.join(SECURITY_PROTOCOLS)})"
            )
        if protocol.startswith("SASL_"):
            _sasl_listener(config, name)
    if config.is_set("inter.broker.listener.name") and config.is_set(
        "security.inter.broker.protocol"
    ):
        raise InvalidConfigError(
            "only one of inter.broker.listener.name and security.inter.broker.protocol may be set"
        )
    inter = config.inter_broker_listener_name
    if inter not in names:
        raise InvalidConfigError(
            f"inter.broker.listener.name {inter} is not one of the listeners {names}"
        )
    if config.zookeeper_connect:
        _inter_broker_client(config, inter)
    if config.is_set("advertised.listeners"):
        given = config.get("advertised.listeners") or ""
        advertised = [lst.name for lst in parse_listeners(given)]
        unknown = [name for name in advertised if name not in names]
        if unknown:
            raise InvalidConfigError(
                f"advertised.listeners names listeners that are not in listeners: {unknown}"
            )


def _inter_broker_client(config: BrokerConfig, inter: str) -> None:
    """What a broker of a cluster needs to connect to the others over the inter-broker
    listener `inter`; refused at start rather than found by a failing replica fetcher."""
    if config.security_protocol(inter) in ("SSL", "SASL_SSL") and not (
        config.listener_value(inter, "ssl.truststore.location")
        or config.listener_value(inter, "ssl.truststore.certificates")
    ):
        raise InvalidConfigError(
            f"inter-broker listener {inter}: brokers connect to each other over TLS and "
            "need a trust store (ssl.truststore.location or ssl.truststore.certificates)"
        )
    # A SASL one needs a mechanism ferrolog has, enabled there, and the broker's own login
    # in its JAAS line.
    inter_broker.sasl_login(config)


def _sasl_listener(config: BrokerConfig, listener: str) -> None:
    mechanisms = config.sasl_mechanisms(listener)
    if not mechanisms:
        raise InvalidConfigError(f"listener {listener}: sasl.enabled.mechanisms is empty")
    unsupported = [m for m in mechanisms if m not in SASL_MECHANISMS]
    if unsupported:
        raise InvalidConfigError(
            f"listener {listener}: SASL mechanisms {unsupported} are not supported "
            f"(ferrolog has {', '.join(SASL_MECHANISMS)}); set sasl.enabled.mechanisms"
        )
    if "PLAIN" in mechanisms and not any(
        m.name == jaas.PLAIN_LOGIN_MODULE for m in config.jaas_modules(listener, "PLAIN")
    ):
        # Kafka refuses to start too: PLAIN's users live only in this login line.
        raise InvalidConfigError(
            f"listener {listener}: PLAIN needs listener.name.{listener.lower()}.plain."
            f"sasl.jaas.config with {jaas.PLAIN_LOGIN_MODULE} and its user_<name> entries"
        )
