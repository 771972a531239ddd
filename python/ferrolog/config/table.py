"""The one table of every configuration property ferrolog understands, with Kafka's names.

Broker properties come from `server.properties`, the environment and `--override`; topic
properties are per-topic overrides whose defaults come from broker properties (their
"synonyms", e.g. `retention.ms` <- `log.retention.ms` | `log.retention.minutes` |
`log.retention.hours`). `ferrolog.config` parses, validates and resolves them.

Types, bounds and allowed values are Apache Kafka 4.1's (its `LogConfig` and `KafkaConfig`
definitions, and the checks `KafkaConfig` makes of single values at start-up, e.g.
`log.roll.jitter.ms` >= 0). Defaults are Kafka's too, except where a laptop needs another value
(the listener on 127.0.0.1, `./ferrolog-data`, replication factors of the internal topics);
those say so in their doc. A few bounds are tighter than Kafka's, each with its reason next to
it (`# Tighter than Kafka:`), where Kafka's definition has none but a value outside makes no
sense to the native core. Tests that need small segments use Kafka's test-only topic config
`internal.segment.bytes`, as Kafka's own tests do; `segment.bytes` keeps Kafka 4's 1 MiB floor.
`tests/config/test_config_bounds.py` pins every bound against Kafka 4.1's.

Every other broker property of Kafka 4.4 is in the table too, known by its Kafka type, default
and dynamic flag but not acted on (`unserved.py` says why, group by group): a value that asks
for what ferrolog does not do refuses the start, a knob of Kafka's own machinery is accepted
and logged. So a Kafka 4.4 `server.properties` meets no unknown name.

`native=True` marks the properties the native core reads. The control plane resolves them
(synonyms, `broker.id` -> `node.id`, `log.dir` -> `log.dirs`) and passes every one of them, and
nothing else, to `ferrolog_native.Server` (broker) or `open_partition` (topic); the native
side parses them with the bounds of this table, from a Rust file generated from it
(`python -m ferrolog.config.rust`), so neither side has defaults or bounds of its own.

`dynamic=True` marks the broker properties AlterConfigs and IncrementalAlterConfigs may set
per broker or as the cluster default (Kafka's dynamic broker configs), which ferrolog applies
without a restart: the defaults of topic configs (`log.retention.ms`, ...) and the replication
throttles. Each is in Kafka 4.1's dynamic set (`DynamicBrokerConfig.AllDynamicConfigs` and
`DynamicConfig.Broker`); the other properties of that set that ferrolog has (thread counts,
`max.connections`, ...) are fixed when the native core starts, so they stay static here and
a change is refused as Kafka refuses a static one.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ferrolog.config.unserved import UNSERVED, Unserved

LONG_MAX = 2**63 - 1
INT_MAX = 2**31 - 1


class ConfigType(enum.IntEnum):
    """DescribeConfigs' ConfigType (v3+)."""

    UNKNOWN = 0
    BOOLEAN = 1
    STRING = 2
    INT = 3
    SHORT = 4
    LONG = 5
    DOUBLE = 6
    LIST = 7
    CLASS = 8
    PASSWORD = 9


class ConfigSource(enum.IntEnum):
    """DescribeConfigs' ConfigSource (v1+)."""

    UNKNOWN = 0
    TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    DYNAMIC_BROKER_LOGGER_CONFIG = 6
    CLIENT_METRICS_CONFIG = 7
    GROUP_CONFIG = 8  # a group's own config (resource type GROUP)


@dataclass(frozen=True)
class ConfigDef:
    name: str
    type: ConfigType
    default: str | None  # None: no default (unset unless given, or derived from a synonym)
    doc: str
    choices: tuple[str, ...] = ()  # allowed values (each element, for LIST)
    minimum: float | None = None
    maximum: float | None = None
    native: bool = False  # read by the native core (see the module doc)
    # A broker property AlterConfigs may change at runtime (see DYNAMIC below).
    dynamic: bool = False
    # Kafka's, known but not acted on, and why (`unserved.py`); None: ferrolog serves it.
    unserved: Unserved | None = None

    @property
    def sensitive(self) -> bool:
        return self.type == ConfigType.PASSWORD

    def refusal(self, value: str) -> str | None:
        """Why ferrolog refuses `value` (validated) of a property it does not serve: a value of
        a refused group other than Kafka's default or one the group accepts; else None."""
        unserved = self.unserved
        if unserved is None or not unserved.refused:
            return None
        if value in (self.default or "", *unserved.accepted):
            return None
        default = self.default if self.default is not None else "unset"
        return (
            f"{self.name}={value} is not supported by ferrolog: {unserved.reason} "
            f"(leave it at Kafka's default, {default})"
        )


@dataclass(frozen=True)
class Synonym:
    """A broker property a topic config falls back to; its value times `scale` (unit
    conversion: hours -> ms) is the topic default."""

    name: str
    scale: int = 1


@dataclass(frozen=True)
class TopicConfigDef(ConfigDef):
    # Broker properties in priority order; the last one's default is the final fallback.
    synonyms: tuple[Synonym, ...] = ()


_B, _S, _SH, _I, _L, _D, _LST, _P = (
    ConfigType.BOOLEAN,
    ConfigType.STRING,
    ConfigType.SHORT,
    ConfigType.INT,
    ConfigType.LONG,
    ConfigType.DOUBLE,
    ConfigType.LIST,
    ConfigType.PASSWORD,
)
_COMPRESSION = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
_TIMESTAMP_TYPES = ("CreateTime", "LogAppendTime")
_CLEANUP = ("compact", "delete")
# Kafka's ConsumerGroupMigrationPolicy values. Kafka takes them in any case; ferrolog's
# choices are exact, so only as Kafka spells them (lower case).
_MIGRATION_POLICIES = ("disabled", "upgrade", "downgrade", "bidirectional")
_MIB = 1 << 20


def _b(name: str, type_: ConfigType, default: str | None, doc: str, **kw: object) -> ConfigDef:
    return ConfigDef(name, type_, default, doc, **kw)  # type: ignore[arg-type]


# fmt: off
BROKER_CONFIGS: dict[str, ConfigDef] = {
    d.name: d
    for d in [
        # Identity and network
        _b("node.id", _I, "0", "This broker's id (single-node default 0).", minimum=0,
           native=True),
        # Tighter than Kafka (no bound, default -1 for unset): ferrolog leaves it unset
        # instead, and one that is set must equal node.id, as Kafka requires, so be >= 0.
        _b("broker.id", _I, None, "Older name of node.id; used when node.id is not set.",
           minimum=0),
        _b("broker.rack", _S, None, "Rack of the broker, for rack-aware replica assignment."),
        # KRaft's, in a Kafka 4 server.properties: its combined single node is ferrolog
        # without ZooKeeper, so that file starts ferrolog unchanged (BrokerConfig checks it).
        _b("process.roles", _LST, None, "KRaft's roles: broker,controller (one node, a quorum "
           "of itself) or unset; a cluster's controller runs on ZooKeeper instead.",
           choices=("broker", "controller")),
        _b("controller.quorum.voters", _LST, "", "KRaft's quorum, id@host:port: at most this "
           "node."),
        _b("controller.quorum.bootstrap.servers", _LST, "", "KRaft's quorum, host:port: at "
           "most this node."),
        _b("controller.listener.names", _LST, None, "KRaft's controller listeners: served as "
           "any other listener."),
        _b("listeners", _S, "PLAINTEXT://127.0.0.1:9092",
           "Where to listen, as comma-separated NAME://host:port (port 0 picks a free port), "
           "each name's security protocol given by listener.security.protocol.map. Kafka's "
           "default listens on every interface; ferrolog's, like a laptop install should, on "
           "loopback only.", native=True),
        _b("advertised.listeners", _S, None,
           "Addresses given to clients in Metadata, per listener name; defaults to the bound "
           "listeners."),
        _b("listener.security.protocol.map", _S,
           "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
           "Listener name to security protocol (NAME:PROTOCOL, comma separated); ferrolog "
           "serves PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL.", native=True),
        _b("inter.broker.listener.name", _S, None, "The listener brokers reach each other "
           "through; when unset, the one of security.inter.broker.protocol.", native=True),
        _b("security.inter.broker.protocol", _S, "PLAINTEXT", "The security protocol brokers "
           "reach each other with, when inter.broker.listener.name is unset.",
           choices=("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")),
        # TLS of the SSL listeners; each may be overridden per listener as
        # listener.name.<name>.<property>, as Kafka allows.
        _b("ssl.keystore.type", _S, "JKS", "File format of the key store: PKCS12 or PEM "
           "(KIP-651). A JKS key store is read only if it is a PKCS12 file, as keytool has "
           "written since Java 9.", native=True),
        _b("ssl.keystore.location", _S, None, "The key store file: the broker's private key "
           "and certificate chain.", native=True),
        _b("ssl.keystore.password", _P, None, "Password of the key store file.", native=True),
        _b("ssl.key.password", _P, None, "Password of the private key in the key store. "
           "ferrolog reads a PKCS12 store's key with the store's password (as keytool and "
           "openssl write them), this one only when ssl.keystore.password is unset; an "
           "encrypted PEM key is not read yet.", native=True),
        _b("ssl.keystore.key", _P, None, "The private key in PEM (PKCS#8), inline, with "
           "ssl.keystore.type=PEM.", native=True),
        _b("ssl.keystore.certificate.chain", _P, None, "The certificate chain in PEM, inline, "
           "with ssl.keystore.type=PEM.", native=True),
        _b("ssl.truststore.type", _S, "JKS", "File format of the trust store: PKCS12 or PEM "
           "(a JKS one only if it is a PKCS12 file).", native=True),
        _b("ssl.truststore.location", _S, None, "The trust store file: the certificates of the "
           "authorities client certificates are checked against.", native=True),
        _b("ssl.truststore.password", _P, None, "Password of the trust store file.",
           native=True),
        _b("ssl.truststore.certificates", _P, None, "Trusted certificates in PEM, inline, with "
           "ssl.truststore.type=PEM.", native=True),
        _b("ssl.client.auth", _S, "none", "Whether SSL clients must (required), may "
           "(requested) or need not (none) present a certificate.",
           choices=("required", "requested", "none"), native=True),
        _b("ssl.enabled.protocols", _LST, "TLSv1.2,TLSv1.3", "The TLS versions SSL listeners "
           "accept (ferrolog has TLSv1.2 and TLSv1.3).", native=True),
        _b("ssl.endpoint.identification.algorithm", _S, "https", "How a broker checks the "
           "certificate of the broker it connects to over an SSL inter-broker listener: https "
           "(the name it connects to must be in the certificate, any case), or empty (not "
           "checked).", native=True),
        _b("ssl.protocol", _S, "TLSv1.3", "Accepted for compatibility: ssl.enabled.protocols "
           "decides."),
        _b("ssl.principal.mapping.rules", _S, "DEFAULT", "How a client certificate's subject "
           "(its RFC 2253 name) becomes its principal, User:<name> (KIP-371): comma-separated "
           "DEFAULT (the name as it is) and RULE:pattern/replacement/ with an optional L or U "
           "(lower or upper case); the first rule whose pattern matches the whole name applies, "
           "and a certificate no rule applies to fails authentication.", native=True),
        # SASL of the SASL_PLAINTEXT and SASL_SSL listeners; sasl.enabled.mechanisms may be
        # overridden per listener, and the JAAS config is given per listener and mechanism as
        # listener.name.<name>.<mechanism>.sasl.jaas.config, as Kafka takes them.
        _b("sasl.enabled.mechanisms", _LST, "GSSAPI", "The SASL mechanisms SASL listeners "
           "offer; ferrolog has PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (Kafka's default, "
           "GSSAPI, must be replaced when a SASL listener is configured)."),
        _b("sasl.mechanism.inter.broker.protocol", _S, "GSSAPI", "The SASL mechanism brokers "
           "authenticate to each other with over a SASL inter-broker listener."),
        _b("sasl.jaas.config", _P, None, "Kafka's JAAS login line for one listener and "
           "mechanism, given only as listener.name.<name>.<mechanism>.sasl.jaas.config: "
           "PlainLoginModule's user_<name>=\"<password>\" entries are the PLAIN users, and "
           "username and password are the broker's own credentials towards other brokers."),
        # Delegation tokens (KIP-48): off while the secret key is unset, as in Kafka.
        _b("delegation.token.secret.key", _P, None, "The key every broker derives delegation "
           "tokens' HMACs (their SCRAM passwords) from; the same on every broker. Unset: "
           "delegation tokens are disabled."),
        _b("delegation.token.max.lifetime.ms", _L, "604800000", "Longest a delegation token "
           "lives, however often it is renewed.", minimum=1),
        _b("delegation.token.expiry.time.ms", _L, "86400000", "How long a delegation token "
           "lives from its creation or last renewal.", minimum=1),
        _b("delegation.token.expiry.check.interval.ms", _L, "3600000", "How often the "
           "controller removes expired delegation tokens.", minimum=1),
        _b("sasl.server.max.receive.size", _I, "524288", "Largest frame a client may send "
           "before it has authenticated; a larger one closes the connection.", native=True),
        _b("connection.failed.authentication.delay.ms", _I, "100", "How long a connection "
           "that failed to authenticate is held before it is closed, so clients that retry at "
           "once do not spin.", minimum=0, native=True),
        # Authorization (Kafka's authorizer properties).
        _b("authorizer.class.name", _S, "", "The authorizer: Kafka's "
           "kafka.security.authorizer.AclAuthorizer or "
           "org.apache.kafka.metadata.authorizer.StandardAuthorizer switch on ferrolog's "
           "authorizer (Kafka's ACLs, kept in the metadata store); empty: no authorization; any "
           "other class is refused at start.", native=True),
        _b("super.users", _S, None, "Principals allowed every operation whatever the ACLs, "
           "semicolon separated (User:admin;User:CN=broker,O=example).", native=True),
        _b("allow.everyone.if.no.acl.found", _B, "false", "Whether a resource no ACL "
           "matches is open to every principal (Kafka's default: closed).", native=True),
        _b("metrics.listener", _S, "http://127.0.0.1:9644",
           "Where Prometheus scrapes /metrics and orchestrators probe /healthz and /readyz, as "
           "http://host:port (port 0 picks a free port); empty: no HTTP listener. A default "
           "address already taken (several brokers on one machine) is a logged warning."),
        _b("max.connections", _I, str(INT_MAX), "Maximum number of client connections.",
           minimum=0, native=True),
        _b("max.connections.per.ip", _I, str(INT_MAX), "Maximum connections from one address; "
           "more are closed when accepted. 0 only with overrides.", minimum=0, native=True),
        _b("max.connections.per.ip.overrides", _S, "", "Per-host limits instead of "
           "max.connections.per.ip, as host:count pairs, comma-separated.", native=True),
        _b("max.connection.creation.rate", _I, str(INT_MAX), "Most new connections a second, "
           "broker-wide, measured over quota.window.num windows of quota.window.size.seconds; "
           "over it a listener waits before it accepts the next (the inter-broker listener is "
           "not held when there are others).", minimum=0, native=True),
        _b("connections.max.idle.ms", _L, "600000", "Idle connections are closed after this "
           "(negative: never).", native=True),
        _b("socket.request.max.bytes", _I, "104857600", "Largest request frame accepted.",
           minimum=1, native=True),
        _b("queued.max.request.bytes", _L, "-1", "Most bytes of requests read and not yet "
           "handled (-1: no limit); over it the connections wait before reading the next. At "
           "least socket.request.max.bytes when set.", native=True),
        _b("fetch.max.bytes", _I, "57671680", "Most record bytes one Fetch response carries, "
           "below the request's own limit; the first batch answered is whole even when larger, "
           "so a reader always moves on.", minimum=1024, native=True),
        _b("num.io.threads", _I, "8", "Worker threads of the native core's runtime, which "
           "serves connections and does their disk I/O.", minimum=1, native=True),
        _b("num.recovery.threads.per.data.dir", _I, "2", "Threads per log directory that "
           "open (recover) logs at start-up and close them at shutdown.", minimum=1,
           native=True),
        _b("num.network.threads", _I, "3", "Accepted for compatibility; the native core sizes "
           "its network runtime itself.", minimum=1),
        _b("queued.max.requests", _I, "500", "Requests queued for the Python control plane "
           "(every request the native core does not serve itself) before connections wait.",
           minimum=1, native=True),
        _b("max.request.partition.size.limit", _I, "2000", "The most partitions one "
           "DescribeTopicPartitions answer holds (a client asks again from its cursor).",
           minimum=1),
        _b("max.incremental.fetch.session.cache.slots", _I, "1000", "Fetch sessions (KIP-227) "
           "kept for consumers and followers; 0 turns incremental fetches off.", minimum=0,
           native=True),
        # Storage
        _b("quota.window.num", _I, "11", "Windows a client quota's rate is measured over.",
           minimum=1, native=True),
        _b("quota.window.size.seconds", _I, "1", "Length of each client quota window.",
           minimum=1, native=True),
        _b("log.dirs", _S, None, "Data directories (comma separated); overrides log.dir.",
           native=True),
        _b("log.dir", _S, "./ferrolog-data", "The data directory, when log.dirs is not set "
           "(Kafka's default is /tmp/kafka-logs; ferrolog keeps data where it was started)."),
        _b("log.segment.bytes", _I, "1073741824", "Maximum size of a log segment.",
           minimum=_MIB, dynamic=True),
        _b("log.roll.ms", _L, None, "Time after which a new segment is rolled (overrides "
           "log.roll.hours).", minimum=1, dynamic=True),
        _b("log.roll.hours", _I, "168", "Time after which a new segment is rolled, in hours.",
           minimum=1),
        _b("log.roll.jitter.ms", _L, None, "Maximum random jitter subtracted from segment.ms.",
           minimum=0, dynamic=True),
        _b("log.roll.jitter.hours", _I, "0", "Maximum jitter, in hours.", minimum=0),
        _b("log.retention.ms", _L, None, "How long to keep data (-1: forever); overrides "
           "minutes and hours.", dynamic=True),
        _b("log.retention.minutes", _I, None, "How long to keep data, in minutes."),
        _b("log.retention.hours", _I, "168", "How long to keep data, in hours."),
        _b("log.retention.bytes", _L, "-1", "Maximum size of a partition before old segments "
           "are deleted (-1: no limit).", dynamic=True),
        _b("log.retention.check.interval.ms", _L, "300000", "Accepted for compatibility; the "
           "native core checks retention, time-based rolls and compaction every second.",
           minimum=1),
        _b("log.index.size.max.bytes", _I, "10485760", "Maximum size of a segment's offset "
           "and time indexes; a full index rolls the segment.", minimum=4, dynamic=True),
        _b("log.index.interval.bytes", _I, "4096", "Bytes between offset index entries.",
           minimum=0, dynamic=True),
        _b("log.flush.interval.messages", _L, str(LONG_MAX), "Messages appended before a "
           "partition is fsynced.", minimum=1, dynamic=True),
        _b("log.flush.interval.ms", _L, None, "Maximum time a message stays unflushed; "
           "defaults to log.flush.scheduler.interval.ms.", dynamic=True),
        _b("log.flush.scheduler.interval.ms", _L, str(LONG_MAX), "How often the flusher checks "
           "whether a log needs an fsync."),
        _b("log.flush.offset.checkpoint.interval.ms", _I, "60000", "How often the recovery "
           "point checkpoints are written.", minimum=0, native=True),
        _b("log.segment.delete.delay.ms", _L, "60000", "Delay before a deleted segment's file "
           "is removed.", minimum=0, dynamic=True),
        _b("log.cleanup.policy", _LST, "delete", "delete and/or compact.", choices=_CLEANUP,
           dynamic=True),
        _b("log.cleaner.delete.retention.ms", _L, "86400000", "How long tombstones are kept in "
           "compacted topics.", minimum=0, dynamic=True),
        _b("log.cleaner.min.compaction.lag.ms", _L, "0", "Minimum age of a message before it "
           "can be compacted.", minimum=0, dynamic=True),
        _b("log.cleaner.max.compaction.lag.ms", _L, str(LONG_MAX), "Maximum time a message "
           "stays ineligible for compaction.", minimum=1, dynamic=True),
        _b("log.cleaner.min.cleanable.ratio", _D, "0.5", "Dirty ratio that triggers cleaning.",
           minimum=0, maximum=1, dynamic=True),
        _b("log.preallocate", _B, "false", "Preallocate segment files.", dynamic=True),
        _b("log.message.timestamp.type", _S, "CreateTime", "CreateTime or LogAppendTime.",
           choices=_TIMESTAMP_TYPES, dynamic=True),
        _b("log.message.timestamp.before.max.ms", _L, str(LONG_MAX), "How far in the past a "
           "CreateTime timestamp may be.", minimum=0, dynamic=True),
        _b("log.message.timestamp.after.max.ms", _L, "3600000", "How far in the future a "
           "CreateTime timestamp may be.", minimum=0, dynamic=True),
        _b("message.max.bytes", _I, "1048588", "Largest record batch accepted.", minimum=0,
           dynamic=True),
        _b("compression.type", _S, "producer", "Codec of stored batches; producer keeps the "
           "producer's.", choices=_COMPRESSION, dynamic=True),
        # Kafka's replication quotas (`DynamicConfig.Broker`), set by kafka-reassign-partitions
        # --throttle (--replica-alter-log-dirs-throttle) and cleared by --verify. ferrolog
        # does not throttle replication yet: it stores the two replication rates, reports them
        # and says so in its log; the log-directory move rate it enforces. Kafka lists no
        # default for them (they are not KafkaConfig's), so neither does ferrolog.
        _b("leader.replication.throttled.rate", _L, None, "Replication bytes per second a "
           "leader may send; unset: no limit (not enforced by ferrolog yet).", minimum=0,
           dynamic=True),
        _b("follower.replication.throttled.rate", _L, None, "Replication bytes per second a "
           "follower may fetch; unset: no limit (not enforced by ferrolog yet).", minimum=0,
           dynamic=True),
        _b("replica.alter.log.dirs.io.max.bytes.per.second", _L, None, "Bytes per second "
           "a replica moving between this broker's log directories copies; unset: no limit.",
           minimum=0, dynamic=True, native=True),
        _b("replica.fetch.max.bytes", _I, "1048576", "Bytes a follower fetches per partition.",
           minimum=0, native=True),
        # Topics and replication
        _b("num.partitions", _I, "1", "Default partition count of new topics.", minimum=1),
        # Tighter than Kafka (no bound): a topic cannot have fewer than one replica.
        _b("default.replication.factor", _I, "1", "Default replication factor of new topics.",
           minimum=1),
        _b("auto.create.topics.enable", _B, "true", "Create unknown topics on Metadata "
           "requests."),
        _b("delete.topic.enable", _B, "true", "Allow DeleteTopics."),
        _b("min.insync.replicas", _I, "1", "Minimum ISR size for acks=all produces.",
           minimum=1, dynamic=True),
        _b("unclean.leader.election.enable", _B, "false", "Allow out-of-sync replicas to become "
           "leader when no ISR member is alive.", dynamic=True),
        # Tighter than Kafka (no bound): a follower cannot be in sync for a time <= 0.
        _b("replica.lag.time.max.ms", _L, "30000", "A follower that has not caught up within "
           "this time leaves the ISR.", minimum=1),
        # Cluster mode
        _b("zookeeper.connect", _S, None, "ZooKeeper connection string; unset: single-node "
           "mode with a local metadata store."),
        _b("zookeeper.session.timeout.ms", _I, "18000", "ZooKeeper session timeout.",
           minimum=1),
        _b("zookeeper.connection.timeout.ms", _I, None, "Maximum time to wait for ZooKeeper; "
           "defaults to the session timeout."),
        # Tighter than Kafka (no bound on replica.fetch.wait.max.ms, .min.bytes or
        # replica.socket.timeout.ms): the native fetcher's wait cannot be negative, nor its
        # minimum size or socket timeout below 1.
        _b("replica.fetch.wait.max.ms", _I, "500", "Longest a follower's fetch waits at the "
           "leader for new data.", minimum=0, native=True),
        _b("replica.fetch.min.bytes", _I, "1", "Bytes a follower's fetch waits for.",
           minimum=1, native=True),
        _b("replica.fetch.response.max.bytes", _I, "10485760", "Bytes of one follower fetch "
           "response.", minimum=0, native=True),
        _b("replica.fetch.backoff.ms", _I, "1000", "Pause of a follower after a failed fetch.",
           minimum=0, native=True),
        _b("replica.socket.timeout.ms", _I, "30000", "Socket timeout of follower fetches.",
           minimum=1, native=True),
        _b("controlled.shutdown.enable", _B, "true", "On SIGTERM in cluster mode, move this "
           "broker's leaderships to other in-sync replicas before stopping."),
        _b("controlled.shutdown.timeout.ms", _L, "30000", "Longest wait for leaderships to "
           "move away during controlled shutdown.", minimum=0),
        # Coordinators
        _b("offsets.topic.num.partitions", _I, "50", "Partitions of __consumer_offsets.",
           minimum=1),
        _b("offsets.topic.replication.factor", _SH, "1",
           "Replication factor of __consumer_offsets (Kafka: 3; 1, so a laptop works).",
           minimum=1),
        _b("offsets.topic.segment.bytes", _I, "104857600", "Segment size of "
           "__consumer_offsets.", minimum=1),
        _b("offsets.retention.minutes", _I, "10080", "How long committed offsets of empty "
           "groups are kept.", minimum=1),
        _b("offsets.commit.timeout.ms", _I, "5000", "Timeout of an offset commit's append.",
           minimum=1),
        _b("offsets.retention.check.interval.ms", _L, "600000", "How often expired offsets "
           "are removed.", minimum=1),
        # Tighter than Kafka (no bound on these two): a size or a delay cannot be negative.
        _b("offset.metadata.max.bytes", _I, "4096", "Largest metadata string of a committed "
           "offset.", minimum=0),
        _b("group.initial.rebalance.delay.ms", _I, "3000", "Delay before the first rebalance "
           "of a new group.", minimum=0),
        _b("group.min.session.timeout.ms", _I, "6000", "Smallest allowed session timeout."),
        _b("group.max.session.timeout.ms", _I, "1800000", "Largest allowed session timeout."),
        _b("group.max.size", _I, str(INT_MAX), "Maximum members of a group.", minimum=1),
        # KIP-848 consumer groups (group.protocol=consumer).
        _b("group.consumer.assignors", _LST, "uniform,range", "The server-side assignors of "
           "consumer groups (ferrolog has Kafka's built-in uniform and range); the first is used "
           "when a member names none."),
        _b("group.consumer.session.timeout.ms", _I, "45000", "A consumer group member that "
           "does not heartbeat for this long is removed.", minimum=1),
        _b("group.consumer.heartbeat.interval.ms", _I, "5000", "How often consumer group "
           "members heartbeat.", minimum=1),
        _b("group.consumer.max.size", _I, str(INT_MAX), "Most members of a consumer group: "
           "one more is refused with GROUP_MAX_SIZE_REACHED, and a classic group with more is "
           "not upgraded.", minimum=1),
        # The bounds of the two above, and of a group's own consumer.session.timeout.ms and
        # consumer.heartbeat.interval.ms (GROUP_CONFIGS), checked as Kafka checks them.
        _b("group.consumer.min.session.timeout.ms", _I, "45000", "The minimum allowed "
           "session timeout for registered consumers.", minimum=1),
        _b("group.consumer.max.session.timeout.ms", _I, "60000", "The maximum allowed "
           "session timeout for registered consumers.", minimum=1),
        _b("group.consumer.min.heartbeat.interval.ms", _I, "5000", "The minimum heartbeat "
           "interval for registered consumers.", minimum=1),
        _b("group.consumer.max.heartbeat.interval.ms", _I, "15000", "The maximum heartbeat "
           "interval for registered consumers.", minimum=1),
        _b("group.consumer.migration.policy", _S, "bidirectional", "Online migration between "
           "classic and consumer groups: upgrade (a classic group becomes a consumer group "
           "when a member joins with the consumer protocol), downgrade (back, when the last "
           "consumer-protocol member leaves), bidirectional (both) or disabled.",
           choices=_MIGRATION_POLICIES),
        _b("unstable.feature.versions.enable", _B, "false", "Whether feature levels still "
           "in development (see ferrolog.features.UNSTABLE_LEVELS) may be finalized."),
        # KIP-932 share groups.
        _b("group.share.assignors", _LST, "simple", "The share group assignor: Kafka's one "
           "built-in, simple (the only one ferrolog has)."),
        _b("group.share.max.size", _I, "200", "Most members of a share group: one more is "
           "refused with GROUP_MAX_SIZE_REACHED.", minimum=1, maximum=1000),
        _b("group.share.session.timeout.ms", _I, "45000", "A share group member that does "
           "not heartbeat for this long is removed.", minimum=1),
        _b("group.share.heartbeat.interval.ms", _I, "5000", "How often share group members "
           "heartbeat.", minimum=1),
        _b("group.share.assignment.interval.ms", _I, "1000", "Least time between two target "
           "assignments of a share group.", minimum=0),
        _b("group.share.initialize.retry.interval.ms", _I, "30000", "How long the coordinator "
           "waits for share-partition state it asked for before it asks again.", minimum=1),
        _b("group.share.record.lock.duration.ms", _I, "30000", "How long a share group "
           "member holds the records it acquired before they are delivered to another.",
           minimum=1000, maximum=3600000),
        _b("group.share.delivery.count.limit", _I, "5", "How many times a record is "
           "delivered to share group members before it is archived (never delivered again).",
           minimum=2, maximum=10),
        _b("group.share.partition.max.record.locks", _I, "2000", "Most records of one "
           "share-partition in flight (acquired, or waiting to be delivered again).",
           minimum=100, maximum=10000),
        _b("group.share.max.share.sessions", _I, "2000", "Most share sessions a broker "
           "holds, over every share group.", minimum=1),
        _b("group.share.min.record.lock.duration.ms", _I, "15000", "The least "
           "share.record.lock.duration.ms a group may set.", minimum=1000, maximum=30000),
        _b("group.share.max.record.lock.duration.ms", _I, "60000", "The most "
           "share.record.lock.duration.ms a group may set.", minimum=30000, maximum=3600000),
        _b("group.share.min.delivery.count.limit", _I, "2", "The least "
           "share.delivery.count.limit a group may set.", minimum=2, maximum=5),
        _b("group.share.max.delivery.count.limit", _I, "10", "The most "
           "share.delivery.count.limit a group may set.", minimum=5, maximum=25),
        _b("group.share.min.partition.max.record.locks", _I, "100", "The least "
           "share.partition.max.record.locks a group may set.", minimum=100, maximum=2000),
        _b("group.share.max.partition.max.record.locks", _I, "4000", "The most "
           "share.partition.max.record.locks a group may set.", minimum=2000, maximum=10000),
        # The bounds of the three above and of a group's own share.* (GROUP_CONFIGS).
        _b("group.share.min.session.timeout.ms", _I, "45000", "The minimum allowed session "
           "timeout for share group members.", minimum=1),
        _b("group.share.max.session.timeout.ms", _I, "60000", "The maximum allowed session "
           "timeout for share group members.", minimum=1),
        _b("group.share.min.heartbeat.interval.ms", _I, "5000", "The minimum heartbeat "
           "interval for share group members.", minimum=1),
        _b("group.share.max.heartbeat.interval.ms", _I, "15000", "The maximum heartbeat "
           "interval for share group members.", minimum=1),
        _b("group.share.min.assignment.interval.ms", _I, "0", "The minimum assignment "
           "interval of share groups.", minimum=0),
        _b("group.share.max.assignment.interval.ms", _I, "15000", "The maximum assignment "
           "interval of share groups.", minimum=0),
        # KIP-1071 streams groups.
        _b("group.streams.assignors", _LST, "sticky", "The streams group assignor: Kafka's "
           "one built-in, sticky (the only one ferrolog has)."),
        _b("group.streams.max.size", _I, "2147483647", "Most members of a streams group: one "
           "more is refused with GROUP_MAX_SIZE_REACHED.", minimum=1),
        _b("group.streams.session.timeout.ms", _I, "45000", "A streams group member that does "
           "not heartbeat for this long is removed.", minimum=1),
        _b("group.streams.heartbeat.interval.ms", _I, "5000", "How often streams group "
           "members heartbeat.", minimum=1),
        _b("group.streams.num.standby.replicas", _I, "0", "Standby copies of each stateful "
           "task of a streams group.", minimum=0),
        _b("group.streams.max.standby.replicas", _I, "2", "The most "
           "streams.num.standby.replicas a group may set.", minimum=0),
        _b("group.streams.initial.rebalance.delay.ms", _I, "3000", "How long the first "
           "assignment of an empty streams group waits for more members.", minimum=0),
        _b("group.streams.assignment.interval.ms", _I, "1000", "Least time between two target "
           "assignments of a streams group.", minimum=0),
        _b("group.streams.task.offset.interval.ms", _I, "60000", "How often streams group "
           "members report their tasks' changelog offsets.", minimum=1),
        _b("group.streams.min.task.offset.interval.ms", _I, "15000", "The least "
           "streams.task.offset.interval.ms a group may set.", minimum=1),
        _b("group.streams.acceptable.recovery.lag", _L, "10000", "How far behind its "
           "changelogs a streams member may be and still count as caught up.", minimum=0),
        # The bounds of a group's own streams.* (GROUP_CONFIGS).
        _b("group.streams.min.session.timeout.ms", _I, "45000", "The minimum allowed session "
           "timeout for streams group members.", minimum=1),
        _b("group.streams.max.session.timeout.ms", _I, "60000", "The maximum allowed session "
           "timeout for streams group members.", minimum=1),
        _b("group.streams.min.heartbeat.interval.ms", _I, "5000", "The minimum heartbeat "
           "interval for streams group members.", minimum=1),
        _b("group.streams.max.heartbeat.interval.ms", _I, "15000", "The maximum heartbeat "
           "interval for streams group members.", minimum=1),
        _b("group.streams.min.assignment.interval.ms", _I, "0", "The minimum assignment "
           "interval of streams groups.", minimum=0),
        _b("group.streams.max.assignment.interval.ms", _I, "15000", "The maximum assignment "
           "interval of streams groups.", minimum=0),
        # KIP-932's share coordinator and its __share_group_state.
        _b("share.coordinator.state.topic.num.partitions", _I, "50", "Partitions of "
           "__share_group_state.", minimum=1),
        _b("share.coordinator.state.topic.replication.factor", _SH, "1", "Replication factor "
           "of __share_group_state (Kafka: 3; 1, so a laptop works).", minimum=1),
        _b("share.coordinator.state.topic.min.isr", _SH, "1", "min.insync.replicas of "
           "__share_group_state (Kafka: 2; 1, so a laptop works).", minimum=1),
        _b("share.coordinator.state.topic.segment.bytes", _I, "104857600", "Segment size of "
           "__share_group_state.", minimum=1),
        _b("share.coordinator.snapshot.update.records.per.snapshot", _I, "500", "Updates of a "
           "share-partition written between two snapshots of its whole state.", minimum=0,
           maximum=500),
        _b("share.coordinator.state.topic.prune.interval.ms", _I, "300000", "How often the "
           "share coordinator deletes the records of __share_group_state that every "
           "share-partition's last snapshot has made redundant.", minimum=1),
        _b("transaction.state.log.num.partitions", _I, "50", "Partitions of "
           "__transaction_state.", minimum=1),
        _b("transaction.state.log.replication.factor", _SH, "1",
           "Replication factor of __transaction_state (Kafka: 3; 1, so a laptop works).",
           minimum=1),
        _b("transaction.state.log.min.isr", _I, "1", "min.insync.replicas of "
           "__transaction_state (Kafka: 2; 1, so a laptop works).", minimum=1),
        _b("transaction.state.log.segment.bytes", _I, "104857600", "Segment size of "
           "__transaction_state.", minimum=1),
        _b("transaction.max.timeout.ms", _I, "900000", "Largest transaction timeout a producer "
           "may ask for.", minimum=1),
        _b("transactional.id.expiration.ms", _I, "604800000", "Idle time after which a "
           "transactional id expires.", minimum=1),
        _b("transaction.partition.verification.enable", _B, "true", "Before a partition "
           "leader appends the first batch of a transaction, it asks the transaction "
           "coordinator whether the partition was added to it (KIP-890).", native=True),
        _b("transaction.abort.timed.out.transaction.cleanup.interval.ms", _I, "10000",
           "How often the transaction coordinator aborts transactions past their timeout.",
           minimum=1),
        _b("transaction.remove.expired.transaction.cleanup.interval.ms", _I, "3600000",
           "How often the transaction coordinator removes expired transactional ids.",
           minimum=1),
        _b("producer.id.expiration.ms", _I, "86400000", "Idle time after which an idempotent "
           "producer's state expires.", minimum=1, native=True),
    ]
}
# fmt: on


def _t(
    name: str,
    type_: ConfigType,
    doc: str,
    *synonyms: Synonym,
    default: str | None = None,
    **kw: object,
) -> TopicConfigDef:
    return TopicConfigDef(name, type_, default, doc, synonyms=synonyms, **kw)  # type: ignore[arg-type]


_HOUR = 3_600_000
# fmt: off
TOPIC_CONFIGS: dict[str, TopicConfigDef] = {
    d.name: d
    for d in [
        _t("cleanup.policy", _LST, "delete and/or compact.", Synonym("log.cleanup.policy"),
           choices=_CLEANUP, native=True),
        _t("compression.type", _S, "Codec of stored batches.", Synonym("compression.type"),
           choices=_COMPRESSION, native=True),
        _t("delete.retention.ms", _L, "How long tombstones are kept when compacting.",
           Synonym("log.cleaner.delete.retention.ms"), minimum=0, native=True),
        _t("file.delete.delay.ms", _L, "Delay before a deleted segment's file is removed.",
           Synonym("log.segment.delete.delay.ms"), minimum=0),
        _t("flush.messages", _L, "Messages appended before an fsync.",
           Synonym("log.flush.interval.messages"), minimum=1, native=True),
        _t("flush.ms", _L, "Maximum time a message stays unflushed.",
           Synonym("log.flush.interval.ms"), Synonym("log.flush.scheduler.interval.ms"),
           minimum=0, native=True),
        _t("index.interval.bytes", _I, "Bytes between offset index entries.",
           Synonym("log.index.interval.bytes"), minimum=0, native=True),
        _t("max.compaction.lag.ms", _L, "Maximum time a message stays uncompacted.",
           Synonym("log.cleaner.max.compaction.lag.ms"), minimum=1),
        _t("max.message.bytes", _I, "Largest record batch accepted.",
           Synonym("message.max.bytes"), minimum=0, native=True),
        _t("message.timestamp.type", _S, "CreateTime or LogAppendTime.",
           Synonym("log.message.timestamp.type"), choices=_TIMESTAMP_TYPES, native=True),
        _t("message.timestamp.before.max.ms", _L, "How far in the past a timestamp may be.",
           Synonym("log.message.timestamp.before.max.ms"), minimum=0, native=True),
        _t("message.timestamp.after.max.ms", _L, "How far in the future a timestamp may be.",
           Synonym("log.message.timestamp.after.max.ms"), minimum=0, native=True),
        _t("min.cleanable.dirty.ratio", _D, "Dirty ratio that triggers cleaning.",
           Synonym("log.cleaner.min.cleanable.ratio"), minimum=0, maximum=1, native=True),
        _t("min.compaction.lag.ms", _L, "Minimum age of a message before compaction.",
           Synonym("log.cleaner.min.compaction.lag.ms"), minimum=0),
        _t("min.insync.replicas", _I, "Minimum ISR size for acks=all produces.",
           Synonym("min.insync.replicas"), minimum=1, native=True),
        _t("preallocate", _B, "Preallocate segment files.", Synonym("log.preallocate")),
        _t("retention.bytes", _L, "Maximum partition size before old segments go (-1: none).",
           Synonym("log.retention.bytes"), native=True),
        _t("retention.ms", _L, "How long data is kept (-1: forever).",
           Synonym("log.retention.ms"), Synonym("log.retention.minutes", 60_000),
           Synonym("log.retention.hours", _HOUR), minimum=-1, native=True),
        _t("segment.bytes", _I, "Maximum size of a segment.", Synonym("log.segment.bytes"),
           minimum=_MIB, native=True),
        # Kafka's test-only override of segment.bytes, below its floor; wins when set. Tighter
        # than Kafka (which takes any int): at least Kafka 3's floor of segment.bytes, the
        # overhead of a legacy record (14), since a size below that holds nothing.
        _t("internal.segment.bytes", _I, "The maximum size of a single log file. This should "
           "be used for testing only.", minimum=14, native=True),
        _t("segment.index.bytes", _I, "Maximum size of a segment's offset and time indexes; "
           "a full index rolls the segment.",
           Synonym("log.index.size.max.bytes"), minimum=4, native=True),
        _t("segment.jitter.ms", _L, "Maximum random jitter subtracted from segment.ms.",
           Synonym("log.roll.jitter.ms"), Synonym("log.roll.jitter.hours", _HOUR), minimum=0),
        _t("segment.ms", _L, "Time after which a segment is rolled.",
           Synonym("log.roll.ms"), Synonym("log.roll.hours", _HOUR), minimum=1, native=True),
        _t("unclean.leader.election.enable", _B, "Allow out-of-sync leaders.",
           Synonym("unclean.leader.election.enable")),
        # Kafka's replication throttle lists (partition:broker entries, or *), set by
        # kafka-reassign-partitions --throttle and removed by --verify; stored, not enforced
        # (ferrolog does not throttle replication yet).
        _t("leader.replication.throttled.replicas", _LST, "Replicas whose leader side is "
           "throttled (not enforced by ferrolog yet)."),
        _t("follower.replication.throttled.replicas", _LST, "Replicas whose follower side is "
           "throttled (not enforced by ferrolog yet)."),
    ]
}

# Kafka 4.4's group configs (`GroupConfig`, DescribeConfigs and IncrementalAlterConfigs of
# resource type GROUP), each defaulting to the broker property `group.<name>`. Of Kafka's, the
# consumer, share and streams group ones that ferrolog applies; the rest (streams.assignor.name,
# streams.num.warmup.replicas, ...) are refused as unknown names.
GROUP_CONFIGS: dict[str, TopicConfigDef] = {
    d.name: d
    for d in [
        _t("consumer.session.timeout.ms", _I, "The timeout to detect client failures when "
           "using the consumer group protocol.", Synonym("group.consumer.session.timeout.ms"),
           minimum=1),
        _t("consumer.heartbeat.interval.ms", _I, "The heartbeat interval given to the members "
           "of a consumer group.", Synonym("group.consumer.heartbeat.interval.ms"), minimum=1),
        _t("share.session.timeout.ms", _I, "The timeout to detect client failures when using "
           "the share group protocol.", Synonym("group.share.session.timeout.ms"), minimum=1),
        _t("share.heartbeat.interval.ms", _I, "The heartbeat interval given to the members of "
           "a share group.", Synonym("group.share.heartbeat.interval.ms"), minimum=1),
        _t("share.assignment.interval.ms", _I, "Least time between two target assignments of "
           "the share group.", Synonym("group.share.assignment.interval.ms"), minimum=0),
        _t("share.record.lock.duration.ms", _I, "The record acquisition lock duration in "
           "milliseconds for share groups.", Synonym("group.share.record.lock.duration.ms"),
           minimum=1000),
        _t("share.delivery.count.limit", _I, "The maximum number of delivery attempts for a "
           "record delivered to a share group.", Synonym("group.share.delivery.count.limit"),
           minimum=2),
        _t("share.partition.max.record.locks", _I, "Share-partition record lock limit per "
           "share group.", Synonym("group.share.partition.max.record.locks"), minimum=100),
        _t("share.auto.offset.reset", _S, "Where a share group starts reading a partition it "
           "has not read before: earliest, latest, or by_duration:<ISO 8601 duration> (the "
           "first record no older than that).", default="latest"),
        _t("share.isolation.level", _S, "Whether share group members read transactional "
           "records before their transaction ends (read_uncommitted) or only committed ones "
           "(read_committed).", default="read_uncommitted",
           choices=("read_committed", "read_uncommitted")),
        _t("share.renew.acknowledge.enable", _B, "Whether the renew acknowledge type is "
           "enabled for the share group.", default="true"),
        _t("streams.session.timeout.ms", _I, "The timeout to detect client failures when "
           "using the streams group protocol.", Synonym("group.streams.session.timeout.ms"),
           minimum=1),
        _t("streams.heartbeat.interval.ms", _I, "The heartbeat interval given to the members "
           "of a streams group.", Synonym("group.streams.heartbeat.interval.ms"), minimum=1),
        _t("streams.num.standby.replicas", _I, "The number of standby replicas for each "
           "task.", Synonym("group.streams.num.standby.replicas"), minimum=0),
        _t("streams.initial.rebalance.delay.ms", _I, "The amount of time the group coordinator "
           "waits for more streams clients to join a new group before the first assignment.",
           Synonym("group.streams.initial.rebalance.delay.ms"), minimum=0),
        _t("streams.assignment.interval.ms", _I, "Least time between two target assignments "
           "of the streams group.", Synonym("group.streams.assignment.interval.ms"), minimum=0),
        _t("streams.task.offset.interval.ms", _I, "How often members report their task "
           "offsets.", Synonym("group.streams.task.offset.interval.ms"), minimum=1),
        _t("streams.acceptable.recovery.lag", _L, "How far behind a member may be and still "
           "count as caught up.", Synonym("group.streams.acceptable.recovery.lag"), minimum=0),
    ]
}
# fmt: on


def _add_unserved() -> None:
    for group in UNSERVED:
        kind_of = "refused unless at its default" if group.refused else "accepted without effect"
        doc = f"Kafka's; {kind_of}: {group.reason}."
        for name, kind, default, dynamic in group.properties:
            assert name not in BROKER_CONFIGS, name
            BROKER_CONFIGS[name] = ConfigDef(
                name, ConfigType[kind], default, doc, dynamic=dynamic, unserved=group
            )


_add_unserved()

# The properties `ferrolog_native.Server(config)` and `Server.open_partition(config)` read.
NATIVE_SERVER_KEYS = tuple(name for name, d in BROKER_CONFIGS.items() if d.native)
NATIVE_TOPIC_KEYS = tuple(name for name, d in TOPIC_CONFIGS.items() if d.native)
DYNAMIC_BROKER_KEYS = frozenset(name for name, d in BROKER_CONFIGS.items() if d.dynamic)


def topic_configs_defaulting_to(broker_properties: set[str]) -> set[str]:
    """The topic configs whose broker default one of `broker_properties` is a synonym of."""
    return {
        name
        for name, definition in TOPIC_CONFIGS.items()
        if any(s.name in broker_properties for s in definition.synonyms)
    }
