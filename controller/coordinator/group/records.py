"""The records of `__consumer_offsets`, in Kafka's own formats, so the partitions stay
readable by Kafka's tools: a key is an int16 record type (the key schema's apiKey; offset
commits are also read under the legacy type 0) followed by the key struct, which has only
version 0; a value is an int16 version followed by the value struct, and a null value is a
tombstone.

Written: OffsetCommitKey (type 1) with OffsetCommitValue v3 (v1 when the commit carries an
explicit expire timestamp, the only version with that field), GroupMetadataKey (type 2) with
GroupMetadataValue v3, and the KIP-848 consumer group records (types 3-8:
ConsumerGroupMetadata, ...PartitionMetadata, ...MemberMetadata, ...TargetAssignmentMetadata,
...TargetAssignmentMember, ...CurrentMemberAssignment, each with value v0) and the KIP-932
share group records (types 10-15: ShareGroupMemberMetadata, ShareGroupMetadata,
...TargetAssignmentMetadata, ...TargetAssignmentMember, ...CurrentMemberAssignment,
...StatePartitionMetadata, value v0) and the KIP-1071 streams group records (types 17, 19-23:
StreamsGroupMetadata, ...MemberMetadata, ...TargetAssignmentMetadata, ...TargetAssignmentMember,
...CurrentMemberAssignment, ...Topology, value v0). Read: every version of all of them; their
newer tagged fields (e.g. Kafka 4.1's MetadataHash) are skipped."""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ferrolog.protocol import decode_data, encode_data

OFFSET_COMMIT_KEY_TYPES = (0, 1)
GROUP_METADATA_KEY_TYPE = 2
OFFSET_COMMIT_KEY_WRITTEN = 1
GROUP_METADATA_VALUE_WRITTEN = 3
OFFSET_VALUE_WRITTEN = 3
OFFSET_VALUE_WITH_EXPIRY = 1
# Every coordinator key schema has one version; the record type takes the version's place.
KEY_VERSION = 0


@dataclass(frozen=True)
class OffsetRecord:
    """A committed offset, or its tombstone (`value` None)."""

    group: str
    topic: str
    partition: int
    value: OffsetValue | None


@dataclass(frozen=True)
class OffsetValue:
    offset: int
    leader_epoch: int
    metadata: str
    commit_timestamp: int
    expire_timestamp: int = -1


@dataclass(frozen=True)
class MemberValue:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    subscription: bytes
    assignment: bytes


@dataclass(frozen=True)
class GroupValue:
    protocol_type: str
    generation: int
    protocol: str | None
    leader: str | None
    state_timestamp: int
    members: tuple[MemberValue, ...] = field(default=())


@dataclass(frozen=True)
class GroupRecord:
    """A classic group's membership after a rebalance, or its tombstone (`value` None)."""

    group: str
    value: GroupValue | None


# KIP-848 consumer group records: key type -> the schema name of key and value (without
# Key/Value). The key's version is its type; every value is version 0.
CONSUMER_GROUP_METADATA = 3
CONSUMER_GROUP_PARTITION_METADATA = 4
CONSUMER_GROUP_MEMBER_METADATA = 5
CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA = 6
CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER = 7
CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT = 8
CONSUMER_GROUP_SCHEMAS = {
    CONSUMER_GROUP_METADATA: "ConsumerGroupMetadata",
    CONSUMER_GROUP_PARTITION_METADATA: "ConsumerGroupPartitionMetadata",
    CONSUMER_GROUP_MEMBER_METADATA: "ConsumerGroupMemberMetadata",
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA: "ConsumerGroupTargetAssignmentMetadata",
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER: "ConsumerGroupTargetAssignmentMember",
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT: "ConsumerGroupCurrentMemberAssignment",
}
# KIP-932 share group records, the same way.
SHARE_GROUP_MEMBER_METADATA = 10
SHARE_GROUP_METADATA = 11
SHARE_GROUP_TARGET_ASSIGNMENT_METADATA = 12
SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER = 13
SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT = 14
SHARE_GROUP_STATE_PARTITION_METADATA = 15
SHARE_GROUP_SCHEMAS = {
    SHARE_GROUP_MEMBER_METADATA: "ShareGroupMemberMetadata",
    SHARE_GROUP_METADATA: "ShareGroupMetadata",
    SHARE_GROUP_TARGET_ASSIGNMENT_METADATA: "ShareGroupTargetAssignmentMetadata",
    SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER: "ShareGroupTargetAssignmentMember",
    SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT: "ShareGroupCurrentMemberAssignment",
    SHARE_GROUP_STATE_PARTITION_METADATA: "ShareGroupStatePartitionMetadata",
}
# KIP-1071 streams group records (type 18 was Kafka 4.0's, removed since).
STREAMS_GROUP_METADATA = 17
STREAMS_GROUP_MEMBER_METADATA = 19
STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA = 20
STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER = 21
STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT = 22
STREAMS_GROUP_TOPOLOGY = 23
STREAMS_GROUP_SCHEMAS = {
    STREAMS_GROUP_METADATA: "StreamsGroupMetadata",
    STREAMS_GROUP_MEMBER_METADATA: "StreamsGroupMemberMetadata",
    STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA: "StreamsGroupTargetAssignmentMetadata",
    STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER: "StreamsGroupTargetAssignmentMember",
    STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT: "StreamsGroupCurrentMemberAssignment",
    STREAMS_GROUP_TOPOLOGY: "StreamsGroupTopology",
}
_TYPED_SCHEMAS = {**CONSUMER_GROUP_SCHEMAS, **SHARE_GROUP_SCHEMAS, **STREAMS_GROUP_SCHEMAS}
MEMBER_KEYED = (
    CONSUMER_GROUP_MEMBER_METADATA,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    SHARE_GROUP_MEMBER_METADATA,
    SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER,
    SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    STREAMS_GROUP_MEMBER_METADATA,
    STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER,
    STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT,
)
TYPED_GROUP_VALUE_WRITTEN = 0


@dataclass(frozen=True)
class TypedGroupRecord:
    """A record of a group of the new protocols: `kind` is its key type (above), `member_id`
    is set for the per-member kinds, `value` is the value struct as the codec reads and writes
    it (None: a tombstone)."""

    kind: int
    group: str
    member_id: str | None
    value: dict[str, Any] | None


class ConsumerGroupRecord(TypedGroupRecord):
    """A record of a KIP-848 consumer group (types 3-8)."""


class ShareGroupRecord(TypedGroupRecord):
    """A record of a KIP-932 share group (types 10-15)."""


class StreamsGroupRecord(TypedGroupRecord):
    """A record of a KIP-1071 streams group (types 17, 19-23)."""


Record = OffsetRecord | GroupRecord | ConsumerGroupRecord | ShareGroupRecord | StreamsGroupRecord
R = TypeVar("R", bound=TypedGroupRecord)
# What the log holds of a group of the new protocols: (record type, member id or None) -> the
# value last written.
Persisted = dict[tuple[int, str | None], dict[str, Any]]


class RecordDiff(Generic[R]):
    """The records that bring the log from what it holds of a group (`persisted`, kept up to
    date here) to new values: one per key whose value changed, a tombstone per key removed,
    in the order `put` is called."""

    def __init__(self, kind: type[R], group_id: str, persisted: Persisted) -> None:
        self._kind, self._group_id, self._persisted = kind, group_id, persisted
        self.out: list[R] = []

    def put(self, record_type: int, member_id: str | None, value: dict[str, Any] | None) -> None:
        key = (record_type, member_id)
        if value is None:
            if key in self._persisted:
                del self._persisted[key]
                self.out.append(self._kind(record_type, self._group_id, member_id, None))
        elif self._persisted.get(key) != value:
            self._persisted[key] = value
            self.out.append(self._kind(record_type, self._group_id, member_id, value))


def tombstones(
    kind: type[R], group_id: str, persisted: Persisted, order: tuple[int, ...]
) -> list[R]:
    """A tombstone for every record of the group (Kafka's createGroupTombstoneRecords): the
    members' first, then the group's, each in `order` of record types."""
    keys = sorted(persisted, key=lambda k: (k[1] is None, order.index(k[0]), k[1] or ""))
    persisted.clear()
    return [kind(record_type, group_id, member_id, None) for record_type, member_id in keys]


@functools.lru_cache(maxsize=65536)
def _offset_key(group: str, topic: str, partition: int) -> bytes:
    # The same partitions are committed over and over: their keys are encoded once.
    body = {"group": group, "topic": topic, "partition": partition}
    return struct.pack(">h", OFFSET_COMMIT_KEY_WRITTEN) + encode_data(
        "OffsetCommitKey", KEY_VERSION, body
    )


_OFFSET_V3_HEAD = struct.Struct(">hqih")


def encode_key(record: Record) -> bytes:
    if isinstance(record, OffsetRecord):
        return _offset_key(record.group, record.topic, record.partition)
    if isinstance(record, TypedGroupRecord):
        key: dict[str, Any] = {"group_id": record.group}
        if record.kind in MEMBER_KEYED:
            key["member_id"] = record.member_id
        name = _TYPED_SCHEMAS[record.kind] + "Key"
        return struct.pack(">h", record.kind) + encode_data(name, KEY_VERSION, key)
    return struct.pack(">h", GROUP_METADATA_KEY_TYPE) + encode_data(
        "GroupMetadataKey", KEY_VERSION, {"group": record.group}
    )


def encode_value(record: Record) -> bytes | None:
    if record.value is None:
        return None
    if isinstance(record, TypedGroupRecord):
        name = _TYPED_SCHEMAS[record.kind] + "Value"
        version = TYPED_GROUP_VALUE_WRITTEN
        return struct.pack(">h", version) + encode_data(name, version, record.value)
    if isinstance(record, OffsetRecord):
        v = record.value
        if v.expire_timestamp < 0:
            # OffsetCommitValue v3 (offset, leaderEpoch, metadata, commitTimestamp), packed
            # directly: this is the hot path of every commit. Equal to the codec's output
            # (tested).
            metadata = v.metadata.encode()
            head = _OFFSET_V3_HEAD.pack(
                OFFSET_VALUE_WRITTEN, v.offset, v.leader_epoch, len(metadata)
            )
            return head + metadata + struct.pack(">q", v.commit_timestamp)
        version = OFFSET_VALUE_WITH_EXPIRY
        body: dict[str, Any] = {
            "offset": v.offset,
            "leader_epoch": v.leader_epoch,
            "metadata": v.metadata,
            "commit_timestamp": v.commit_timestamp,
            "expire_timestamp": v.expire_timestamp,
        }
        return struct.pack(">h", version) + encode_data("OffsetCommitValue", version, body)
    g = record.value
    body = {
        "protocol_type": g.protocol_type,
        "generation": g.generation,
        "protocol": g.protocol,
        "leader": g.leader,
        "current_state_timestamp": g.state_timestamp,
        "members": [
            {
                "member_id": m.member_id,
                "group_instance_id": m.group_instance_id,
                "client_id": m.client_id,
                "client_host": m.client_host,
                "rebalance_timeout": m.rebalance_timeout_ms,
                "session_timeout": m.session_timeout_ms,
                "subscription": m.subscription,
                "assignment": m.assignment,
            }
            for m in g.members
        ],
    }
    version = GROUP_METADATA_VALUE_WRITTEN
    return struct.pack(">h", version) + encode_data("GroupMetadataValue", version, body)


def decode(key: bytes, value: bytes | None) -> Record | None:
    """The record of a key/value pair; None for record types ferrolog does not keep (KIP-848
    regular expressions), which it skips."""
    (key_type,) = struct.unpack_from(">h", key)
    if key_type in OFFSET_COMMIT_KEY_TYPES:
        k = decode_data("OffsetCommitKey", KEY_VERSION, key[2:])
        offset_value = None
        if value is not None:
            (version,) = struct.unpack_from(">h", value)
            v = decode_data("OffsetCommitValue", version, value[2:])
            offset_value = OffsetValue(
                offset=v["offset"],
                leader_epoch=v.get("leader_epoch", -1),
                metadata=v["metadata"] or "",
                commit_timestamp=v["commit_timestamp"],
                expire_timestamp=v.get("expire_timestamp", -1),
            )
        return OffsetRecord(k["group"], k["topic"], k["partition"], offset_value)
    if key_type == GROUP_METADATA_KEY_TYPE:
        k = decode_data("GroupMetadataKey", KEY_VERSION, key[2:])
        if value is None:
            return GroupRecord(k["group"], None)
        (version,) = struct.unpack_from(">h", value)
        g = decode_data("GroupMetadataValue", version, value[2:])
        members = tuple(
            MemberValue(
                member_id=m["member_id"],
                group_instance_id=m.get("group_instance_id"),
                client_id=m["client_id"],
                client_host=m["client_host"],
                rebalance_timeout_ms=m.get("rebalance_timeout", -1),
                session_timeout_ms=m["session_timeout"],
                subscription=bytes(m["subscription"]),
                assignment=bytes(m["assignment"]),
            )
            for m in g["members"]
        )
        return GroupRecord(
            k["group"],
            GroupValue(
                protocol_type=g["protocol_type"],
                generation=g["generation"],
                protocol=g["protocol"],
                leader=g["leader"],
                state_timestamp=g.get("current_state_timestamp", -1),
                members=members,
            ),
        )
    if key_type in _TYPED_SCHEMAS:
        name = _TYPED_SCHEMAS[key_type]
        k = decode_data(name + "Key", KEY_VERSION, key[2:])
        body = None
        if value is not None:
            (version,) = struct.unpack_from(">h", value)
            body = decode_data(name + "Value", version, value[2:])
        kind: type[ConsumerGroupRecord | ShareGroupRecord | StreamsGroupRecord]
        if key_type in SHARE_GROUP_SCHEMAS:
            kind = ShareGroupRecord
        elif key_type in STREAMS_GROUP_SCHEMAS:
            kind = StreamsGroupRecord
        else:
            kind = ConsumerGroupRecord
        return kind(key_type, k["group_id"], k.get("member_id"), body)
    return None
