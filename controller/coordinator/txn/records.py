"""The records of `__transaction_state`, in Kafka's own format so Kafka's tools read the topic:
the key is int16 type 0 followed by TransactionLogKey (the transactional id), the value int16
version followed by TransactionLogValue, and a null value (tombstone) removes an expired id.

Written: TransactionLogValue v0, which Kafka writes until `transaction.version` 1 is
finalized (ferrolog does not finalize it), for the transactions of clients before transaction
version 2. It has no last producer id or epoch, so a coordinator that loads the log knows
neither (Kafka's too). A transaction of version 2 (EndTxn v5) is written as v1, whose tagged
fields keep what finishing it after a failover needs: the producer id an exhausted epoch
rotates to, the previous producer id (a retry of that rotation) and the client's transaction
version. Read: v0 and v1."""

from __future__ import annotations

import struct
from typing import Any

from ferrolog.controller.coordinator.txn.state import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    TV2,
    Transit,
    TxnState,
)
from ferrolog.protocol import decode_data, encode_data

KEY_TYPE = 0
KEY_VERSION = 0  # a coordinator key schema's only version; the type is written before it
VALUE_V0 = 0
VALUE_V1 = 1  # flexible: the tagged fields of transaction version 2

_I16 = struct.Struct(">h")


def encode_key(transactional_id: str) -> bytes:
    return _I16.pack(KEY_TYPE) + encode_data(
        "TransactionLogKey", KEY_VERSION, {"transactional_id": transactional_id}
    )


def encode_value(t: Transit) -> bytes:
    if t.state == TxnState.EMPTY and t.partitions:
        raise ValueError("an Empty transaction has no partitions")
    partitions: list[dict[str, Any]] | None = None
    if t.state != TxnState.EMPTY:
        by_topic: dict[str, list[int]] = {}
        for topic, partition in sorted(t.partitions):
            by_topic.setdefault(topic, []).append(partition)
        partitions = [{"topic": k, "partition_ids": v} for k, v in by_topic.items()]
    body = {
        "producer_id": t.producer_id,
        "producer_epoch": t.producer_epoch,
        "transaction_timeout_ms": t.timeout_ms,
        "transaction_status": int(t.state),
        "transaction_partitions": partitions,
        "transaction_last_update_timestamp_ms": t.update_ms,
        "transaction_start_timestamp_ms": t.start_ms,
    }
    version = VALUE_V0
    if t.client_version >= TV2:
        version = VALUE_V1
        body["previous_producer_id"] = t.last_producer_id
        body["next_producer_id"] = t.next_producer_id
        body["client_transaction_version"] = t.client_version
    return _I16.pack(version) + encode_data("TransactionLogValue", version, body)


def decode_key(key: bytes) -> str | None:
    """The transactional id of a key; None for a record type this coordinator does not
    know (skipped, as Kafka's loader does)."""
    (key_type,) = _I16.unpack_from(key)
    if key_type != KEY_TYPE:
        return None
    return str(decode_data("TransactionLogKey", KEY_VERSION, key[2:])["transactional_id"])


def decode_value(value: bytes | None) -> Transit | None:
    """The state a value records; None for a tombstone."""
    if value is None:
        return None
    (version,) = _I16.unpack_from(value)
    v = decode_data("TransactionLogValue", version, value[2:])
    state = TxnState(v["transaction_status"])
    partitions: frozenset[tuple[str, int]] = frozenset()
    if state != TxnState.EMPTY:
        entries = v.get("transaction_partitions") or []
        partitions = frozenset((p["topic"], i) for p in entries for i in p["partition_ids"])
    return Transit(
        producer_id=v["producer_id"],
        last_producer_id=v.get("previous_producer_id", NO_PRODUCER_ID),
        producer_epoch=v["producer_epoch"],
        last_producer_epoch=NO_PRODUCER_EPOCH,
        timeout_ms=v["transaction_timeout_ms"],
        state=state,
        partitions=partitions,
        start_ms=v["transaction_start_timestamp_ms"],
        update_ms=v["transaction_last_update_timestamp_ms"],
        next_producer_id=v.get("next_producer_id", NO_PRODUCER_ID),
        client_version=v.get("client_transaction_version", 0),
    )
