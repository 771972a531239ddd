"""Request bodies built from a schema plan: every field present, each value drawn from what
the field's name and type make interesting (edge integers, names that exist and names that
cannot, nulls where the version allows them)."""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from typing import Any

from ferrolog.fuzz.batches import random_records
from ferrolog.protocol import _plans as p
from ferrolog.protocol.messages import ApiKey

INT_EDGES = {
    p.INT8: (-(2**7), 2**7 - 1),
    p.INT16: (-(2**15), 2**15 - 1),
    p.INT32: (-(2**31), 2**31 - 1),
    p.INT64: (-(2**63), 2**63 - 1),
    p.UINT16: (0, 2**16 - 1),
    p.UINT32: (0, 2**32 - 1),
    p.VARINT: (-(2**31), 2**31 - 1),
    p.VARLONG: (-(2**63), 2**63 - 1),
}

# The APIs that never name the data topic: they would delete it, its records (DeleteRecords
# with offset -1 empties a partition) or change its retention, and leave the end-of-run check
# of its log little to read.
SPARE_DATA = frozenset({20, 21, 33, 44})  # DeleteTopics, DeleteRecords, AlterConfigs, Incremental
# Fields more often null than others: a Produce that names a transactional id the broker never
# gave out is refused, so most Produce requests leave it out and reach the log.
NULL_SHARE = {"transactional_id": 0.7, "group_instance_id": 0.5}

# Arrays stay short: the fuzzer looks for bad handling, not for load (mutations still make
# some counts huge).
MAX_ARRAY = 3


class Names:
    """The names a campaign's requests use: a few that exist (so requests reach the code past
    the lookups), a few Kafka refuses, and random ones. The canary topic and the fuzzer's own
    client id are never among them, so no request can delete, truncate or throttle the
    records the campaign checks."""

    def __init__(self, rng: random.Random, prefix: str = "fuzz") -> None:
        self.rng = rng
        self.topics = [f"{prefix}-a", f"{prefix}-b", f"{prefix}-c"]
        # A topic no request deletes, truncates or reconfigures (`SPARE_DATA`), so that
        # batches pile up in a log the campaign can check at the end.
        self.data_topic = f"{prefix}-data"
        self.groups = [f"{prefix}-group", ""]
        self.transactional_ids = [f"{prefix}-txn"]
        self.clients = [f"{prefix}-client"]

    def pick(self, pool: list[str], weird: float = 0.3) -> str:
        if self.rng.random() < weird:
            return self.weird()
        return self.rng.choice(pool)

    def weird(self) -> str:
        rng = self.rng
        choice = rng.randrange(6)
        if choice == 0:
            return ""
        if choice == 1:
            return rng.choice([".", "..", "a" * 250, "a" * 300, "bad name!", "é-unicode"])
        if choice == 2:
            return "__" + "".join(rng.choices(string.ascii_lowercase, k=5))
        if choice == 3:
            return "".join(chr(rng.randrange(0x20, 0x2FF)) for _ in range(rng.randrange(1, 12)))
        return "".join(
            rng.choices(string.ascii_letters + string.digits + "._-", k=rng.randrange(1, 20))
        )


class BodyMaker:
    def __init__(self, rng: random.Random, names: Names) -> None:
        self.rng = rng
        self.names = names
        # Rules by field name: what the name says about the value beats its type.
        self._api = -1
        self._rules: dict[str, Callable[[], Any]] = {
            "topic": self._topic,
            "name": self._topic,
            "topic_name": self._topic,
            "group_id": lambda: names.pick(names.groups),
            "key": lambda: names.pick(names.topics + names.groups),
            "transactional_id": lambda: names.pick(names.transactional_ids),
            "member_id": lambda: self.rng.choice(["", "member-1", names.weird()]),
            "group_instance_id": lambda: self.rng.choice([None, "static-1", names.weird()]),
            "entity_name": lambda: names.pick(names.clients),
            "protocol_type": lambda: self.rng.choice(["consumer", "", names.weird()]),
            "acks": lambda: self.rng.choice([-1, -1, 1, 1, 0, 2, -2]),
            "partition_index": self._partition,
            "index": self._partition,
            "partition": self._partition,
            "partition_id": self._partition,
            "replication_factor": lambda: self.rng.choice([-1, 0, 1, 2, 3, 32767]),
            "num_partitions": lambda: self.rng.choice([-1, 0, 1, 2, 3]),
            "count": lambda: self.rng.choice([-1, 0, 1, 3]),
            "replica_id": lambda: self.rng.choice([-1, -2, 0, 1, 1000]),
            "broker_id": lambda: self.rng.choice([-1, 0, 1, 1000]),
            "producer_id": lambda: self.rng.choice([-1, 0, 1, 2**40]),
            "producer_epoch": lambda: self.rng.choice([-1, 0, 1, 32767]),
            "generation_id": lambda: self.rng.choice([-1, 0, 1, 2**31 - 1]),
            "isolation_level": lambda: self.rng.choice([0, 1, 2, -1]),
            "resource_type": lambda: self.rng.choice([0, 1, 2, 3, 4, 16, 99]),
            "key_type": lambda: self.rng.choice([0, 1, 2, 99]),
            "config_operation": lambda: self.rng.choice([0, 1, 2, 3, 99]),
        }

    def body(self, api_key: int, version: int) -> dict[str, Any]:
        self._api = api_key
        return self._struct(p.plan("request", api_key, version))

    def _topic(self) -> str:
        if self._api == ApiKey.PRODUCE and self.rng.random() < 0.5:
            return self.names.data_topic  # most appends land where the end check reads
        pool = self.names.topics
        if self._api not in SPARE_DATA:
            pool = [*pool, self.names.data_topic]
        return self.names.pick(pool)

    def _partition(self) -> int:
        return self.rng.choice([0, 0, 1, 2, -1, 2**31 - 1])

    def _struct(self, plan: Any) -> dict[str, Any]:
        fields, tagged = plan[0], plan[1]
        out = {f[0]: self._field(f) for f in fields}
        for f in tagged:
            if self.rng.random() < 0.5:
                out[f[0]] = self._field(f)
        return out

    def _field(self, f: Any) -> Any:
        name, code, is_array, nullable = f[0], f[1], f[2], f[3]
        rng = self.rng
        if nullable and rng.random() < NULL_SHARE.get(name, 0.1):
            return None
        if is_array:
            return [self._value(name, code, f) for _ in range(rng.randrange(MAX_ARRAY + 1))]
        return self._value(name, code, f)

    def _value(self, name: str, code: int, f: Any) -> Any:
        rng = self.rng
        rule = self._rules.get(name)
        if rule is not None and code != p.STRUCT and rng.random() < 0.9:
            value = rule()
            if _fits(code, value):
                return value
        if code == p.STRUCT:
            return self._struct(f[5])
        if code == p.BOOL:
            return rng.random() < 0.5
        if code in INT_EDGES:
            if "timeout" in name or name.endswith("_ms"):
                # Timeouts and waits stay short so that a campaign is not spent waiting.
                return rng.choice([-1, 0, 10, 100, 500])
            low, high = INT_EDGES[code]
            return rng.choice([0, 1, -1 if low < 0 else 2, low, high, rng.randint(low, high)])
        if code == p.FLOAT64:
            return rng.choice([0.0, -1.0, 1e308, rng.random()])
        if code == p.UUID:
            return rng.choice([bytes(16), rng.randbytes(16)])
        if code == p.STRING:
            return self.names.pick(self.names.topics, weird=0.7)
        if code == p.BYTES:
            return rng.randbytes(rng.randrange(0, 40))
        if code == p.RECORDS:
            return random_records(rng)
        raise AssertionError(f"type code {code} of {name}")


def _fits(code: int, value: Any) -> bool:
    if value is None:
        return False
    if code == p.STRING:
        return isinstance(value, str)
    if code in INT_EDGES:
        low, high = INT_EDGES[code]
        return isinstance(value, int) and low <= value <= high
    return False
