"""Typed surface of ferrolog's native core (Rust, pyo3), checked by ``mypy.stubtest``.

The native core serves Produce, Fetch and ListOffsets itself. Every other request crosses to
Python as a :class:`ControlRequest` through one bounded queue; Python answers it with
:meth:`Server.respond` (or drops the connection with :meth:`Server.close_connection`).
Python drives the data path through the coarse partition commands below; the long ones
(opening a log runs recovery) release the GIL.

Configuration maps are Kafka's property names with string values, resolved by the control
plane (``BrokerConfig.native_server_config()``, ``BrokerConfig.resolve_topic_config()``) from
the one config table, ``ferrolog.config.table``. They hold exactly the names
:func:`config_names` lists, no more, no fewer: a missing or extra name, or a value outside the
table's bounds, raises ``ValueError``. The native core has no defaults of its own.
"""

from typing import final

from typing_extensions import disjoint_base

__all__ = [
    "Server",
    "LogDirs",
    "ShareGroups",
    "ControlRequest",
    "PartitionState",
    "ReplicaState",
    "KafkaNativeError",
    "native_api_versions",
    "error_codes",
    "shut_down_cleanly",
    "version",
    "crc32c",
    "compress",
    "decompress",
    "decode_batches",
    "build_batch",
    "validate_batch",
    "config_names",
    "inter_broker_tls",
    "probe_broker",
    "DecodedColumns",
    "BinaryBuffers",
    "decode_columns",
    "init_logging",
]


@final
class ShareGroups:
    """`Server.share_groups`: what the native core's ShareFetch and ShareAcknowledge apply."""

    def partition_metrics(self) -> list[tuple[str, str, int, int, int, int, int]]:
        """Each share-partition led here: (group, topic, partition, in-flight records,
        in-flight batches, records whose acquisition lock ran out), as Kafka's
        SharePartitionMetrics count them, and its lag (the high watermark less the start
        offset and the records past it already done with); one busy at this moment is left
        out."""

    def configure(
        self,
        enabled: bool,
        max_sessions: int,
        defaults: tuple[int, int, int, int, bool, bool],
        groups: list[tuple[str, tuple[int, int, int, int, bool, bool]]],
    ) -> None:
        """Whether `share.version` is on, group.share.max.share.sessions, the broker's
        settings and each group's own, as (lock ms, delivery count limit, max record locks,
        auto reset, read committed, renew enabled) with auto reset -2 earliest, -1 latest,
        else a duration in ms."""

@final
class LogDirs:
    """Replicas moving between this broker's log directories while they serve."""

    def alter(self, topic: str, partition: int, log_dir: str) -> bool:
        """Moves the partition's log to the log directory ``log_dir`` (a future log, copied,
        then swapped in); False when the partition is not hosted here (the directory is kept
        for when it is created). Raises ``KafkaNativeError`` with Kafka's code for a
        refusal."""
    def futures(self) -> list[tuple[str, int, str, int, int]]:
        """The logs being moved: (topic, partition, destination log directory, size in bytes,
        offsets behind the current log)."""
    def set_rate(self, bytes_per_second: int | None) -> None:
        """``replica.alter.log.dirs.io.max.bytes.per.second`` changed (None: no limit)."""


@disjoint_base
class ControlRequest:
    """One request the native core does not serve, as it arrived."""

    @property
    def handle(self) -> int:
        """Reply handle: pass it to ``Server.respond`` or ``Server.close_connection``, once."""
    @property
    def connection_id(self) -> int: ...
    @property
    def api_key(self) -> int: ...
    @property
    def api_version(self) -> int: ...
    @property
    def correlation_id(self) -> int: ...
    @property
    def listener_name(self) -> str:
        """The listener the request came in through (empty for the broker's own requests)."""
    @property
    def principal(self) -> str:
        """Kafka's principal of the connection: ``User:ANONYMOUS``, ``User:<DN>`` of its
        TLS client certificate, or ``User:<name>`` it authenticated as with SASL."""
    @property
    def token_authenticated(self) -> bool:
        """Whether the connection authenticated with a delegation token (SCRAM's
        ``tokenauth``)."""
    @property
    def sasl_phase(self) -> str:
        """``done`` (authenticated, or a listener without SASL), ``handshake`` (a SASL
        listener's connection not yet authenticated), or ``token`` (``frame`` is a bare SASL
        token, after SaslHandshake v0)."""
    @property
    def peer(self) -> str:
        """The client's address, ``host:port``."""
    @property
    def frame(self) -> bytes:
        """The whole request (header and body) without the 4-byte size prefix."""

@disjoint_base
class PartitionState:
    """A snapshot of one local replica, for the control plane's decisions and admin APIs."""

    @property
    def topic(self) -> str: ...
    @property
    def partition(self) -> int: ...
    @property
    def topic_id(self) -> bytes:
        """16 bytes."""
    @property
    def is_leader(self) -> bool: ...
    @property
    def leader_epoch(self) -> int: ...
    @property
    def log_start_offset(self) -> int: ...
    @property
    def log_end_offset(self) -> int: ...
    @property
    def high_watermark(self) -> int: ...
    @property
    def size_bytes(self) -> int:
        """Bytes of all segments."""
    @property
    def role(self) -> str:
        """``"leader"``, ``"follower"`` or ``"none"``."""
    @property
    def leader_id(self) -> int:
        """The partition's leader as this broker knows it (-1: none)."""
    @property
    def isr(self) -> list[int]: ...
    @property
    def replicas(self) -> list[int]: ...
    @property
    def last_stable_offset(self) -> int: ...
    @property
    def log_dir(self) -> str:
        """The log directory (one of ``log.dirs``) that holds the partition."""

@disjoint_base
class ReplicaState:
    """On a leader: what it knows of one follower of one partition (for the ISR policy)."""

    @property
    def topic(self) -> str: ...
    @property
    def partition(self) -> int: ...
    @property
    def replica_id(self) -> int: ...
    @property
    def log_end_offset(self) -> int:
        """The follower's LEO as of its last fetch (-1: never fetched)."""
    @property
    def last_caught_up_ms(self) -> int:
        """Wall-clock ms when the follower last fetched up to the leader's LEO of that time
        (Kafka's lastCaughtUpTimeMs); the ISR policy compares it with replica.lag.time.max.ms."""

@disjoint_base
class Server:
    """The native broker: listener, connections, partition logs.

    ``config`` is the broker's resolved config (``config_names()["server"]``); of
    ``listeners`` (``PLAINTEXT://host:port``, port 0 picks a free port) it binds the first.
    """

    def __new__(
        cls, config: dict[str, str], inter_broker_sasl: tuple[str, str, str] | None = None
    ) -> Server:
        """``inter_broker_sasl``: (mechanism, username, password), the broker's own
        credentials when its inter-broker listener is SASL_PLAINTEXT or SASL_SSL."""
    def start(self) -> None:
        """Binds every listener and starts serving. Raises ``OSError`` if it cannot bind."""
    @property
    def port(self) -> int:
        """The first listener's bound port (after ``start``)."""
    @property
    def ports(self) -> list[tuple[str, int]]:
        """Each listener's name and bound port, in the order of ``listeners``."""
    def wakeup_fd(self) -> int:
        """An eventfd that becomes readable when control requests are queued.

        The event loop watches it with ``add_reader`` and then calls ``take_requests`` until
        it returns an empty list (which also clears the eventfd)."""
    def take_requests(self, max_requests: int = 256) -> list[ControlRequest]: ...
    def respond(self, handle: int, response: bytes, throttle_ms: int = 0) -> None:
        """Sends ``response`` (response header + body, no size prefix) on the request's
        connection. Responses on one connection go out in request order. ``throttle_ms`` > 0
        mutes the connection for that long once the response is out (a request quota)."""
    def respond_sasl(
        self,
        handle: int,
        response: bytes,
        step: str,
        principal: str | None = None,
        lifetime_ms: int | None = None,
    ) -> None:
        """Sends the answer to a SASL request (or a bare token), then the connection goes on
        as ``step`` says: ``continue``, ``tokens`` (bare tokens follow), ``authenticated`` (as
        ``principal``: every request is served from now on), ``authenticated-by-token``
        (likewise, with a delegation token) or ``failed`` (closed). With ``lifetime_ms`` the
        authentication ends after that long: the first request after it closes the
        connection."""
    def record_controller_mutation(
        self,
        client_id: str | None,
        permits: float,
        strict: bool,
        principal: str = "User:ANONYMOUS",
    ) -> tuple[bool, int]:
        """``permits`` partitions created or deleted against the ``controller_mutation_rate``
        of the (user, client) of ``principal`` and ``client_id``: (accepted, throttle ms).
        Strict: refused while the token bucket is in debt."""
    def record_request_time(
        self, client_id: str | None, busy_ns: int, principal: str = "User:ANONYMOUS"
    ) -> int:
        """Meters ``busy_ns`` of a Python-served request against the ``request_percentage``
        quota of its (user, client); the throttle in ms it earned (0: none)."""
    def close_connection(self, handle: int) -> None:
        """Answers the request by closing its connection (Kafka's answer to a malformed or
        unsupported request)."""
    @property
    def share_groups(self) -> ShareGroups:
        """What the native core's share groups apply."""
    @property
    def log_dirs(self) -> LogDirs:
        """Moving replicas between this broker's log directories (AlterReplicaLogDirs)."""
    def shutdown(self) -> None:
        """Stops accepting, closes connections, flushes and checkpoints every log. Idempotent."""

    # Partition commands: coarse and rare; they release the GIL.
    def open_partition(
        self, topic: str, partition: int, topic_id: bytes, config: dict[str, str]
    ) -> None:
        """Opens (running recovery) or creates the partition's log. Idempotent.

        ``config`` is the topic's resolved config (``config_names()["topic"]``). A partition
        starts with no role; it serves no traffic until ``become_leader``."""
    def open_partitions(
        self,
        configs: dict[str, dict[str, str]],
        partitions: list[
            tuple[str, int, bytes, str, int, int, str, int, list[int], list[int]]
        ],
    ) -> list[Exception | None]:
        """Opens many partitions at once, on ``num.recovery.threads.per.data.dir`` threads per
        log directory, each taking its role as soon as it is open. ``configs`` maps each topic
        to its resolved config (as for ``open_partition``). Each entry of ``partitions`` is
        ``(topic, partition, topic_id, role, leader_epoch, leader_id, leader_host,
        leader_port, isr, replicas)``, ``role`` being ``"none"``, ``"leader"`` (as
        ``become_leader``) or ``"follower"`` (as ``become_follower``). Returns, in order, None
        or the exception each partition failed with; one failure does not stop the others."""
    def delete_partition(self, topic: str, partition: int) -> None:
        """Stops serving the partition and deletes its directory."""
    def become_leader(
        self, topic: str, partition: int, leader_epoch: int, isr: list[int], replicas: list[int]
    ) -> None:
        """Makes this broker the partition's leader at ``leader_epoch`` (recorded in the
        leader-epoch checkpoint at the current log end offset)."""
    def become_follower(
        self,
        topic: str,
        partition: int,
        leader_epoch: int,
        leader_id: int,
        leader_host: str,
        leader_port: int,
        replicas: list[int],
    ) -> None:
        """Makes this broker a follower of ``leader_id`` at ``leader_epoch``: it stops accepting
        produces for the partition (NOT_LEADER_OR_FOLLOWER), truncates its log as KIP-101/279
        say (OffsetForLeaderEpoch to the leader), then fetches from the leader with replica
        Fetch requests and appends what it gets byte for byte. An older epoch than the current
        one is refused (``KafkaNativeError`` FENCED_LEADER_EPOCH)."""
    def set_isr(self, topic: str, partition: int, isr: list[int], leader_epoch: int) -> None:
        """On the leader: replaces the ISR (after the control plane wrote it to the metadata
        store); the high watermark is recomputed over the new ISR. Refused for a stale
        ``leader_epoch``."""
    def replica_states(self) -> list[ReplicaState]:
        """Per follower of every partition this broker leads."""
    def update_topic_config(self, topic: str, config: dict[str, str]) -> None:
        """Replaces the resolved config of every local partition of ``topic``."""
    def set_client_quotas(
        self, entries: list[tuple[dict[str, str | None], dict[str, float]]]
    ) -> None:
        """Replaces the client quota configuration: each entity as Kafka's ClientQuotaEntity
        (``{"user": "alice", "client-id": None}``, None naming the default) with its quotas by
        key. The data path enforces ``producer_byte_rate`` and ``consumer_byte_rate``."""
    def authorizer_enabled(self) -> bool:
        """Whether `authorizer.class.name` switched the authorizer on."""
    def request_memory(self) -> tuple[int, int]:
        """The request memory of ``queued.max.request.bytes``: (available, used) bytes, as
        Kafka's ``MemoryPoolAvailable`` and ``MemoryPoolUsed`` (without a limit: 2**63-1, 0)."""
    def set_live_brokers(
        self, brokers: list[tuple[int, str | None, list[tuple[str, str, int]]]]
    ) -> None:
        """Replaces the live brokers' advertised listeners: (node id, rack, [(listener name,
        host, port)]). A Produce (v10+) or Fetch (v16+) partition answered
        NOT_LEADER_OR_FOLLOWER names its leader's endpoint on the client's listener (KIP-951)."""
    def set_acls(self, acls: list[tuple[int, int, str, str, str, int, int]]) -> None:
        """Replaces every ACL: (resource type, pattern type, name, principal, host,
        operation, permission), with Kafka's codes."""
    def authorize(
        self, principal: str, host: str, operation: int, resource_type: int, names: list[str]
    ) -> list[bool]:
        """For each resource name, whether the principal from the host may do the
        operation on it (Kafka's semantics; always True with the authorizer off)."""
    def authorize_by_resource_type(
        self, principal: str, host: str, operation: int, resource_type: int
    ) -> bool:
        """Kafka's `authorizeByResourceType`: whether the operation is allowed on some
        resource of the type."""
    def client_quota_throttles(self) -> list[tuple[str, str, str, int, int]]:
        """Per metered entity throttled so far: (quota type "Produce" | "Fetch", user,
        client-id, total throttle time in ms, throttled responses). The user or client-id is
        "" when the applied quota does not tell them apart (Kafka's metric tags)."""
    def offline_log_dirs(self) -> list[str]:
        """The log directories taken offline by an I/O error; back after a restart."""
    def partition_states(self) -> list[PartitionState]: ...
    def replica_metrics(self) -> bytes:
        """The replica families of /metrics as exposition text."""
    def partition_state(self, topic: str, partition: int) -> PartitionState | None:
        """One local replica's state; None if it is not hosted here."""
    def topic_metrics(self) -> list[tuple[str, dict[str, int]]]:
        """Each hosted topic's data-path counters (Kafka's BrokerTopicMetrics), by field:
        bytes_in, messages_in, bytes_out, bytes_rejected, produce_requests,
        failed_produce_requests, fetch_requests, failed_fetch_requests, replication_bytes_in,
        replication_bytes_out."""
    def request_metrics(self) -> list[tuple[int, int, list[int], float, list[tuple[int, int]]]]:
        """Per API seen: (api_key, requests, latency bucket counts (not cumulative; the last
        is above every bound of ``latency_buckets_ms``), latency sum in ms, [(error code,
        count)])."""
    @staticmethod
    def latency_buckets_ms() -> list[int]: ...
    def answered(
        self,
        api_key: int,
        api_version: int,
        client_id: str | None,
        peer: str,
        codes: list[tuple[int, int]],
    ) -> None:
        """A response Python answered: its error codes ``(code, count)`` are counted, and
        logged (rate-limited) when not NONE."""
    def refused(
        self, api_key: int, api_version: int, client_id: str | None, peer: str, reason: str
    ) -> None:
        """A request Python refused by closing its connection, for the request log."""
    def request_queue_size(self) -> int:
        """Requests handed to Python and not answered yet."""
    def append(self, topic: str, partition: int, records: bytes) -> int:
        """Appends one or more batches as leader (a coordinator's: internal topics and
        transactional offset commits, whose sequences are not checked), waits until they are
        committed, and returns the base offset of the first. Raises ``KafkaNativeError``."""
    def write_markers(
        self, markers: list[tuple[str, int, int, int, int, bool, int]]
    ) -> list[int | KafkaNativeError]:
        """Appends transaction markers, each ``(topic, partition, producer_id, producer_epoch,
        coordinator_epoch, commit, transaction_version)``, and waits until they are committed;
        returns each marker's offset or its error, in order. Under transaction version 2 a
        marker's epoch must be newer than the producer's (its coordinator bumped it)."""
    def start_append(self, topic: str, partition: int, records: bytes, token: int) -> None:
        """``append`` without waiting here: it appends now, and its outcome (a list of one:
        the offset or the ``KafkaNativeError``) comes from ``take_completions`` under
        ``token``."""
    def start_write_markers(
        self, markers: list[tuple[str, int, int, int, int, bool, int]], token: int
    ) -> None:
        """``write_markers`` without waiting here: its outcomes come from
        ``take_completions`` under ``token``."""
    def completions_fd(self) -> int:
        """An eventfd, readable while outcomes of ``start_*`` commands wait to be taken."""
    def take_completions(
        self,
    ) -> tuple[list[tuple[int, list[int | KafkaNativeError]]], list[tuple[int, int, bool]]]:
        """``(token, outcomes)`` of each ``start_*`` command finished since the last call, and
        the transaction markers WriteTxnMarkers committed in ``__consumer_offsets`` since,
        ``(partition, producer_id, commit)``."""
    def describe_producers(
        self, topic: str, partition: int
    ) -> list[tuple[int, int, int, int, int, int]]:
        """The producers with state in a partition this broker leads, each ``(producer_id,
        epoch, last_sequence, last_timestamp, coordinator_epoch, current_txn_start_offset)``
        (-1: no open transaction). Raises ``KafkaNativeError`` (UNKNOWN_TOPIC_OR_PARTITION,
        NOT_LEADER_OR_FOLLOWER)."""
    def read(self, topic: str, partition: int, offset: int, max_bytes: int) -> bytes:
        """Reads committed batches from ``offset`` (the whole batch containing it first), at
        least one batch even if larger than ``max_bytes``."""
    def delete_records(self, topic: str, partition: int, offset: int) -> int:
        """Advances the log start offset to ``offset`` (-1: the high watermark); returns the
        new log start offset. Raises ``KafkaNativeError`` (OFFSET_OUT_OF_RANGE)."""

class KafkaNativeError(Exception):
    """A Kafka error from the native core: ``args == (code: int, message: str)``, the one
    exception every native Kafka error crosses as; ``ferrolog.errors.from_native`` gives the
    Python class of its code."""

def native_api_versions() -> dict[int, tuple[int, int]]:
    """The APIs the native core serves itself, ``{api_key: (min_version, max_version)}``
    (Produce, Fetch, ListOffsets, OffsetForLeaderEpoch). ApiVersions advertises exactly these
    for them; a request of these APIs outside the range closes the connection."""

def shut_down_cleanly(dirs: list[str]) -> bool:
    """Whether every log directory was shut down cleanly (asked before the broker opens them)."""

def error_codes() -> dict[str, int]:
    """The native error-code table, ``{"CORRUPT_MESSAGE": 2, ...}``."""

def version() -> str: ...
def init_logging(level: str, fmt: str) -> None:
    """Sends the native core's log lines to stderr in the broker's format (``kv`` or ``json``,
    as ``ferrolog.logs``) at ``level`` and above (Python's level names)."""

# Hot-path building blocks, exposed for tests and pytest-benchmark (not used by the broker
# from Python: the broker's data path never crosses into Python).

def crc32c(data: bytes) -> int: ...
def compress(codec: int, data: bytes) -> bytes:
    """codec: 0 none, 1 gzip, 2 snappy (xerial framing), 3 lz4 (frame), 4 zstd."""
def decompress(codec: int, data: bytes) -> bytes: ...
def decode_batches(
    records: bytes,
) -> list[
    tuple[int, int, int, int, bool, bool | None, list[tuple[bytes | None, bytes | None]]]
]:
    """The batches of a coordinator's internal topic as its load replays them: (base offset,
    last offset, producer id, producer epoch, transactional, the marker's outcome (True:
    COMMIT) or None for a data batch, its (key, value) records), every whole batch of
    ``records`` (a partial last one left out), decompressed. Raises ``KafkaNativeError`` on
    corrupt data."""
def build_batch(
    records: list[tuple[bytes | None, bytes | None, list[tuple[str, bytes | None]], int]],
    codec: int = 0,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    transactional: bool = False,
) -> bytes:
    """A RecordBatch v2 as a producer sends it: records are (key, value, headers, timestamp)."""
def validate_batch(batch: bytes, config: dict[str, str], now_ms: int) -> bytes:
    """Runs produce validation with a resolved topic config; returns the batch as it would be
    stored (before offsets are assigned). Raises ``KafkaNativeError``."""
def config_names() -> dict[str, list[str]]:
    """The property names the native core reads, found by running its parsers:
    ``{"server": [...], "topic": [...]}`` for ``Server(config)`` and ``open_partition``."""
def inter_broker_tls(
    config: dict[str, str],
) -> tuple[list[bytes], bytes, str, list[bytes], bool] | None:
    """The inter-broker listener's TLS material as the native core reads it from ``config``
    (a ``Server``'s): (certificate chain, private key, its kind ``PKCS8``, ``SEC1`` or
    ``PKCS1``, trusted certificates, whether the other broker's name is checked), all DER;
    None when the listener has no TLS. Raises ``ValueError`` when the stores cannot be read."""
def probe_broker(
    config: dict[str, str],
    listener: str,
    protocol: str,
    host: str,
    port: int,
    inter_broker_sasl: tuple[str, str, str] | None = None,
    timeout_ms: int = 10000,
) -> list[int]:
    """Connects to ``host:port`` as the replica fetchers of a broker whose inter-broker
    listener is ``listener`` with security ``protocol`` do (TLS from ``config``'s ``ssl.*``
    properties and their ``listener.name.<listener>.`` overrides, SASL with
    ``inter_broker_sasl``), then sends ApiVersions; returns the API keys offered. Raises
    ``ConnectionError`` with the reason when a step fails."""

# Consumers: fetched records as Arrow-layout column buffers (the PySpark data source).


@final
class BinaryBuffers:
    """A variable-width Arrow column: ``len + 1`` little-endian i32 offsets, the data, and a
    validity bitmap (least significant bit first)."""

    @property
    def offsets(self) -> bytes: ...
    @property
    def data(self) -> bytes: ...
    @property
    def validity(self) -> bytes: ...
    @property
    def null_count(self) -> int: ...

@final
class DecodedColumns:
    """The records of one partition's fetched bytes, column by column, little-endian."""

    @property
    def rows(self) -> int: ...
    @property
    def next_offset(self) -> int:
        """Where the next fetch starts: past the last complete batch seen (kept or skipped)."""
    @property
    def offsets(self) -> bytes:
        """i64 per record."""
    @property
    def timestamps(self) -> bytes:
        """i64 microseconds per record (LogAppendTime batches: the batch's max timestamp)."""
    @property
    def timestamp_types(self) -> bytes:
        """i32 per record: 0 CreateTime, 1 LogAppendTime."""
    @property
    def keys(self) -> BinaryBuffers: ...
    @property
    def values(self) -> BinaryBuffers: ...
    @property
    def header_offsets(self) -> bytes:
        """``rows + 1`` i32 offsets into the header entries (empty without headers)."""
    @property
    def header_validity(self) -> bytes:
        """A record without headers is null, as in Spark's Kafka source."""
    @property
    def header_null_count(self) -> int: ...
    @property
    def header_keys(self) -> BinaryBuffers: ...
    @property
    def header_values(self) -> BinaryBuffers: ...

def decode_columns(
    records: bytes,
    start: int,
    end: int,
    include_headers: bool = False,
    aborted: list[tuple[int, int]] | None = None,
    verify_crc: bool = True,
) -> DecodedColumns:
    """Decodes a Fetch response's records (any codec) into columns, keeping the records with
    ``start <= offset < end``. Control batches are skipped; with ``aborted`` (read_committed:
    the response's ``(producer_id, first_offset)`` list) so are aborted transactions. A partial
    last batch is left for the next fetch. Raises ``KafkaNativeError`` on corrupt data."""
