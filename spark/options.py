"""The options of `format("ferrolog")`: the same names, defaults and offset JSON as Spark's
`format("kafka")`, so that moving a job from one to the other is a one-word change."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ferrolog.client.security import ClientSecurity
from ferrolog.spark.client import EARLIEST, LATEST

KEY_VALUE_SCHEMA = (
    "key binary, value binary, topic string, partition int, offset long, "
    "timestamp timestamp, timestampType int"
)
HEADERS_FIELD = "headers array<struct<key: string, value: binary>>"

TopicPartition = tuple[str, int]


def schema_ddl(include_headers: bool) -> str:
    return f"{KEY_VALUE_SCHEMA}, {HEADERS_FIELD}" if include_headers else KEY_VALUE_SCHEMA


def _bool(value: str, name: str) -> bool:
    lowered = value.strip().lower()
    if lowered not in ("true", "false"):
        raise ValueError(f"option {name} must be true or false, not {value!r}")
    return lowered == "true"


@dataclass(frozen=True)
class OffsetSpec:
    """Where to start or end: `earliest`/`latest` for every partition, per-partition offsets
    (-2 earliest, -1 latest), or per-partition timestamps (ms)."""

    kind: str  # "earliest" | "latest" | "offsets" | "timestamps" | "timestamp"
    per_partition: dict[TopicPartition, int] = field(default_factory=dict)
    timestamp: int = 0

    def resolved_query(self, tp: TopicPartition) -> int:
        """The ListOffsets query (a timestamp or EARLIEST/LATEST) for one partition."""
        if self.kind == "earliest":
            return EARLIEST
        if self.kind == "latest":
            return LATEST
        if self.kind == "timestamp":
            return self.timestamp
        if tp in self.per_partition:
            return self.per_partition[tp]
        if self.kind == "timestamps":
            raise ValueError(f"no timestamp given for {tp[0]}-{tp[1]}")
        raise ValueError(f"no offset given for {tp[0]}-{tp[1]}")


def parse_partition_json(text: str, what: str) -> dict[TopicPartition, int]:
    """`{"topic":{"0":23,"1":-1}}` -> {(topic, 0): 23, (topic, 1): -1}."""
    try:
        data = json.loads(text)
        return {
            (topic, int(partition)): int(value)
            for topic, partitions in data.items()
            for partition, value in partitions.items()
        }
    except (ValueError, AttributeError, TypeError) as e:
        raise ValueError(f'{what}: expected JSON like {{"topic":{{"0":23}}}}: {e}') from e


def offsets_json(offsets: Mapping[TopicPartition, int]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (topic, partition), offset in sorted(offsets.items()):
        out.setdefault(topic, {})[str(partition)] = offset
    return out


def from_offsets_json(data: Mapping[str, Any]) -> dict[TopicPartition, int]:
    """The inverse of `offsets_json`; keys come back as strings after a JSON round trip."""
    return {(topic, int(p)): int(o) for topic, parts in data.items() for p, o in parts.items()}


@dataclass(frozen=True)
class Options:
    bootstrap: str
    subscribe: tuple[str, ...] = ()
    pattern: str | None = None
    assign: tuple[TopicPartition, ...] = ()
    starting: OffsetSpec | None = None
    ending: OffsetSpec | None = None
    timestamp_strategy: str = "error"
    include_headers: bool = False
    fail_on_data_loss: bool = True
    isolation_level: int = 0
    max_offsets_per_trigger: int | None = None
    min_partitions: int | None = None
    max_records_per_partition: int | None = None
    fetch_max_bytes: int = 4 * 1024 * 1024
    poll_timeout_ms: int = 120_000
    # TLS and SASL, from the `kafka.security.protocol`, `kafka.ssl.*` and `kafka.sasl.*`
    # options, as Spark's own Kafka source takes them.
    security: ClientSecurity = field(default_factory=ClientSecurity)

    def matches(self, topic: str) -> bool:
        if self.subscribe:
            return topic in self.subscribe
        if self.pattern is not None:
            return re.fullmatch(self.pattern, topic) is not None
        return any(t == topic for t, _ in self.assign)

    def starting_for(self, streaming: bool) -> OffsetSpec:
        if self.starting is not None:
            return self.starting
        return OffsetSpec("latest" if streaming else "earliest")


def _starting(opts: Mapping[str, str], prefix: str) -> OffsetSpec | None:
    """Spark's precedence: <prefix>Timestamp, then <prefix>OffsetsByTimestamp, then
    <prefix>Offsets."""
    if f"{prefix}Timestamp" in opts:
        return OffsetSpec("timestamp", timestamp=int(opts[f"{prefix}Timestamp"]))
    if f"{prefix}OffsetsByTimestamp" in opts:
        name = f"{prefix}OffsetsByTimestamp"
        return OffsetSpec("timestamps", parse_partition_json(opts[name], name))
    raw = opts.get(f"{prefix}Offsets")
    if raw is None:
        return None
    if raw.strip().lower() in ("earliest", "latest"):
        return OffsetSpec(raw.strip().lower())
    return OffsetSpec("offsets", parse_partition_json(raw, f"{prefix}Offsets"))


def _positive(opts: Mapping[str, str], name: str) -> int | None:
    if name not in opts:
        return None
    value = int(opts[name])
    if value <= 0:
        raise ValueError(f"option {name} must be positive, not {value}")
    return value


def parse_options(raw: Mapping[str, str], *, for_read: bool = True) -> Options:
    # Spark hands options over case-insensitively; Kafka's are looked up by their own case.
    opts = {k: v for k, v in raw.items()}
    lower = {k.lower(): v for k, v in opts.items()}
    canon = {
        name: lower[name.lower()]
        for name in (
            "kafka.bootstrap.servers",
            "subscribe",
            "subscribePattern",
            "assign",
            "startingOffsets",
            "endingOffsets",
            "startingTimestamp",
            "endingTimestamp",
            "startingOffsetsByTimestamp",
            "endingOffsetsByTimestamp",
            "startingOffsetsByTimestampStrategy",
            "includeHeaders",
            "failOnDataLoss",
            "kafka.isolation.level",
            "maxOffsetsPerTrigger",
            "minPartitions",
            "maxRecordsPerPartition",
            "fetch.max.bytes",
            "kafkaConsumer.pollTimeoutMs",
        )
        if name.lower() in lower
    }
    bootstrap = canon.get("kafka.bootstrap.servers")
    if not bootstrap:
        raise ValueError("option kafka.bootstrap.servers is required")
    subscribe: tuple[str, ...] = ()
    pattern = None
    assign: tuple[TopicPartition, ...] = ()
    if for_read:
        given = [n for n in ("subscribe", "subscribePattern", "assign") if n in canon]
        if len(given) != 1:
            raise ValueError("exactly one of subscribe, subscribePattern, assign is required")
        if "subscribe" in canon:
            subscribe = tuple(t.strip() for t in canon["subscribe"].split(",") if t.strip())
            if not subscribe:
                raise ValueError("option subscribe names no topic")
        elif "subscribePattern" in canon:
            pattern = canon["subscribePattern"]
            re.compile(pattern)
        else:
            try:
                assigned = json.loads(canon["assign"])
                assign = tuple(sorted((t, int(p)) for t, ps in assigned.items() for p in ps))
            except (ValueError, AttributeError, TypeError) as e:
                raise ValueError(f'assign: expected JSON like {{"topic":[0,1]}}: {e}') from e
    ending = _starting(canon, "ending")
    if ending is not None and ending.kind == "earliest":
        raise ValueError("endingOffsets cannot be earliest")
    if (
        ending is not None
        and ending.kind == "offsets"
        and any(v == EARLIEST for v in ending.per_partition.values())
    ):
        raise ValueError("endingOffsets cannot use -2 (earliest)")
    isolation = canon.get("kafka.isolation.level", "read_uncommitted").strip().lower()
    if isolation not in ("read_uncommitted", "read_committed"):
        raise ValueError("kafka.isolation.level must be read_committed or read_uncommitted")
    strategy = canon.get("startingOffsetsByTimestampStrategy", "error").strip().lower()
    if strategy not in ("error", "latest"):
        raise ValueError("startingOffsetsByTimestampStrategy must be error or latest")
    security = ClientSecurity.from_properties(
        {k[len("kafka.") :]: v for k, v in opts.items() if k.lower().startswith("kafka.")}
    )
    return Options(
        bootstrap=bootstrap,
        security=security,
        subscribe=subscribe,
        pattern=pattern,
        assign=assign,
        starting=_starting(canon, "starting"),
        ending=ending,
        timestamp_strategy=strategy,
        include_headers=_bool(canon.get("includeHeaders", "false"), "includeHeaders"),
        fail_on_data_loss=_bool(canon.get("failOnDataLoss", "true"), "failOnDataLoss"),
        isolation_level=1 if isolation == "read_committed" else 0,
        max_offsets_per_trigger=_positive(canon, "maxOffsetsPerTrigger"),
        min_partitions=_positive(canon, "minPartitions"),
        max_records_per_partition=_positive(canon, "maxRecordsPerPartition"),
        fetch_max_bytes=_positive(canon, "fetch.max.bytes") or 4 * 1024 * 1024,
        poll_timeout_ms=_positive(canon, "kafkaConsumer.pollTimeoutMs") or 120_000,
    )
