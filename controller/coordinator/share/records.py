"""The records of `__share_group_state`, in Kafka's formats so Kafka's tools read the topic: a
key is an int16 record type (ShareSnapshot 0, ShareUpdate 1) and the key struct (group id,
topic id, partition); a value is an int16 version (0) and the value struct. A snapshot holds
the whole state, an update the batches of one write (merged into the state on replay), and a
tombstone (a snapshot key without a value) deletes the share-partition."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from ferrolog.controller.coordinator.share.state import ShareState, StateBatch
from ferrolog.protocol import decode_data, encode_data

SNAPSHOT, UPDATE = 0, 1
_SCHEMAS = {SNAPSHOT: "ShareSnapshot", UPDATE: "ShareUpdate"}
KEY_VERSION = VALUE_VERSION = 0

SharePartitionKey = tuple[str, bytes, int]  # group id, topic id, partition


@dataclass(frozen=True)
class Update:
    """A ShareUpdate value: the batches of one write, and what it moved."""

    snapshot_epoch: int
    leader_epoch: int
    start_offset: int
    delivery_complete_count: int
    batches: list[StateBatch]


@dataclass(frozen=True)
class ShareRecord:
    key: SharePartitionKey
    # A ShareState (snapshot), an Update, or None (tombstone).
    value: ShareState | Update | None


def _batches(raw: list[dict[str, Any]]) -> list[StateBatch]:
    return [
        StateBatch(b["first_offset"], b["last_offset"], b["delivery_state"], b["delivery_count"])
        for b in raw
    ]


def _raw(batches: list[StateBatch]) -> list[dict[str, int]]:
    return [b._asdict() for b in batches]


def encode(record: ShareRecord) -> tuple[bytes, bytes | None]:
    kind = UPDATE if isinstance(record.value, Update) else SNAPSHOT
    group_id, topic_id, partition = record.key
    key_body = {"group_id": group_id, "topic_id": topic_id, "partition": partition}
    key = struct.pack(">h", kind) + encode_data(_SCHEMAS[kind] + "Key", KEY_VERSION, key_body)
    value = record.value
    if value is None:
        return key, None
    body: dict[str, Any]
    if isinstance(value, Update):
        body = {
            "snapshot_epoch": value.snapshot_epoch,
            "leader_epoch": value.leader_epoch,
            "start_offset": value.start_offset,
            "delivery_complete_count": value.delivery_complete_count,
            "state_batches": _raw(value.batches),
        }
    else:
        body = {
            "snapshot_epoch": value.snapshot_epoch,
            "state_epoch": value.state_epoch,
            "leader_epoch": value.leader_epoch,
            "start_offset": value.start_offset,
            "delivery_complete_count": value.delivery_complete_count,
            "create_timestamp": value.create_timestamp,
            "write_timestamp": value.write_timestamp,
            "state_batches": _raw(value.batches),
        }
    name = _SCHEMAS[kind] + "Value"
    return key, struct.pack(">h", VALUE_VERSION) + encode_data(name, VALUE_VERSION, body)


def decode(key: bytes, value: bytes | None) -> ShareRecord | None:
    """The record of a key/value pair; None for a record type this broker does not know."""
    (kind,) = struct.unpack_from(">h", key)
    if kind not in _SCHEMAS:
        return None
    k = decode_data(_SCHEMAS[kind] + "Key", KEY_VERSION, key[2:])
    record_key = (k["group_id"], bytes(k["topic_id"]), k["partition"])
    if value is None:
        return ShareRecord(record_key, None)
    (version,) = struct.unpack_from(">h", value)
    v = decode_data(_SCHEMAS[kind] + "Value", version, value[2:])
    batches = _batches(v["state_batches"])
    count = v.get("delivery_complete_count", -1)
    if kind == UPDATE:
        update = Update(v["snapshot_epoch"], v["leader_epoch"], v["start_offset"], count, batches)
        return ShareRecord(record_key, update)
    state = ShareState(
        snapshot_epoch=v["snapshot_epoch"],
        state_epoch=v["state_epoch"],
        leader_epoch=v["leader_epoch"],
        start_offset=v["start_offset"],
        delivery_complete_count=count,
        create_timestamp=v["create_timestamp"],
        write_timestamp=v["write_timestamp"],
        batches=batches,
    )
    return ShareRecord(record_key, state)
