"""Committed offsets and group administration: OffsetCommit, OffsetFetch, OffsetDelete,
DeleteGroups, and offset retention. Pure functions of the shard; every change is a record in
the outbox, applied when replayed."""

from __future__ import annotations

import struct
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import cast

from ferrolog import errors
from ferrolog.controller.coordinator.group import (
    consumer_records,
    share_records,
    streams_offsets,
    streams_records,
)
from ferrolog.controller.coordinator.group.records import (
    GroupRecord,
    OffsetRecord,
    OffsetValue,
    Record,
)
from ferrolog.controller.coordinator.group.shard import GroupShard, Write
from ferrolog.controller.coordinator.group.state import Group, GroupState
from ferrolog.protocol.messages import (
    OffsetCommitRequest,
    OffsetCommitRequestTopic,
    OffsetCommitResponse,
    OffsetCommitResponsePartition,
    OffsetCommitResponseTopic,
    OffsetDeleteRequestTopic,
    OffsetDeleteResponse,
    OffsetDeleteResponsePartition,
    OffsetDeleteResponseTopic,
    OffsetFetchRequestTopic,
    OffsetFetchResponsePartitions,
    OffsetFetchResponseTopics,
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestTopic,
    TxnOffsetCommitResponse,
)

NONE = 0
CONSUMER_PROTOCOL = "consumer"


# OffsetCommit v9 is the first a KIP-848 member may commit with (its member epoch).
CONSUMER_GROUP_COMMIT_VERSION = 9


def validate_consumer_commit(group: Group, member_epoch: int, member_id: str, version: int) -> int:
    """Kafka's checks of a commit to a KIP-848 consumer group: from outside the group (epoch
    < 0) only while it is empty; a member commits with v9+ and its current member epoch
    (STALE_MEMBER_EPOCH otherwise, ahead or behind, as Kafka)."""
    cg = group.consumer
    assert cg is not None
    if member_epoch < 0 and not cg.members:
        return NONE
    member = cg.members.get(member_id)
    if member is None:
        return errors.UnknownMemberIdError.code
    if member.classic is not None:
        # A classic member (online migration) commits as in a classic group: any version,
        # its member epoch as the generation.
        if member_epoch != member.member_epoch:
            return errors.IllegalGenerationError.code
        return NONE
    if version < CONSUMER_GROUP_COMMIT_VERSION:
        return errors.UnsupportedVersionError.code
    # Kafka answers STALE_MEMBER_EPOCH for an epoch ahead as well as behind (the consumer
    # refreshes its epoch by heartbeating and commits again).
    if member_epoch != member.member_epoch:
        return errors.StaleMemberEpochError.code
    return NONE


def validate_fetch(group: Group | None, member_epoch: int, member_id: str | None) -> int:
    """OffsetFetch v9 of a consumer group member (Kafka's validateOffsetFetch): without a
    member id (admin clients, epoch -1) anything goes; a member must be known and current."""
    if group is not None and group.streams is not None:
        return streams_offsets.validate_fetch(group.streams, member_epoch, member_id)
    if group is None or group.consumer is None or member_id is None:
        return NONE
    if member_epoch < 0 and not member_id:
        return NONE
    member = group.consumer.members.get(member_id)
    if member is None:
        return errors.UnknownMemberIdError.code
    if member_epoch != member.member_epoch:
        return errors.StaleMemberEpochError.code
    return NONE


def validate_commit(
    group: Group | None,
    generation: int,
    member_id: str,
    instance_id: str | None,
    version: int = CONSUMER_GROUP_COMMIT_VERSION,
    partitions: Iterable[tuple[str, int]] = (),
) -> int:
    """Kafka's classic checks: a commit from outside the group (generation < 0, no member) is
    allowed only while the group has no members; a member must be current."""
    if group is None:
        return NONE if generation < 0 else errors.IllegalGenerationError.code
    if group.share is not None:
        return errors.GroupIdNotFoundError.code  # Kafka: "Group <g> is not a consumer group."
    if group.state == GroupState.DEAD:
        return errors.CoordinatorNotAvailableError.code
    if group.consumer is not None:
        return validate_consumer_commit(group, generation, member_id, version)
    if group.streams is not None:
        sg = group.streams
        return streams_offsets.validate_commit(sg, generation, member_id, version, partitions)
    if generation < 0 and not member_id and instance_id is None:
        return NONE if group.is_empty() else errors.UnknownMemberIdError.code
    error: int = group.member_error(member_id, instance_id)
    if error != NONE:
        return error
    if generation != group.generation:
        return errors.IllegalGenerationError.code
    if group.state == GroupState.COMPLETING_REBALANCE:
        return errors.RebalanceInProgressError.code
    return NONE


def validate_txn_commit(
    group: Group | None,
    generation: int,
    member_id: str,
    instance_id: str | None,
    partitions: Iterable[tuple[str, int]] = (),
) -> int:
    """Kafka's checks of a TxnOffsetCommit: a producer outside the group (no member id, no
    generation) may always commit; one that names its consumer's member (KIP-447) must name a
    current one."""
    if group is None:
        return NONE
    if group.share is not None:
        return errors.GroupIdNotFoundError.code
    if group.state == GroupState.DEAD:
        return errors.CoordinatorNotAvailableError.code
    if group.streams is not None:
        return streams_offsets.validate_commit(
            group.streams, generation, member_id, 0, partitions, transactional=True
        )
    if instance_id is not None:
        owner = group.static_members.get(instance_id)
        if owner is not None and owner != member_id:
            return errors.FencedInstanceIdError.code
    if group.consumer is not None:
        # A KIP-848 member's transactional commit names its member epoch as the generation.
        member = group.consumer.members.get(member_id) if member_id else None
        if member_id and member is None:
            return errors.UnknownMemberIdError.code
        if member is not None and generation >= 0 and generation != member.member_epoch:
            if member.classic is not None:
                return errors.IllegalGenerationError.code
            return errors.StaleMemberEpochError.code
        return NONE
    if member_id and member_id not in group.members:
        return errors.UnknownMemberIdError.code
    if generation >= 0 and generation != group.generation:
        return errors.IllegalGenerationError.code
    return NONE


def commit(
    shard: GroupShard,
    req: OffsetCommitRequest,
    now: int,
    reply: Callable[[OffsetCommitResponse], None],
    exists: Callable[[str, int], bool] = lambda topic, partition: True,
    version: int = CONSUMER_GROUP_COMMIT_VERSION,
) -> None:
    """Commits what passes the checks; a partition that does not exist gets
    UNKNOWN_TOPIC_OR_PARTITION, as in Kafka."""
    group_id = req["group_id"]
    error = validate_commit(
        shard.group(group_id),
        req.get("generation_id_or_member_epoch", -1),
        req.get("member_id") or "",
        req.get("group_instance_id"),
        version,
        _partitions(req.get("topics") or []),
    )
    topics = req.get("topics") or []
    retention = req.get("retention_time_ms", -1)
    _commit(shard, group_id, error, topics, retention, now, reply, exists, None)


def _partitions(
    topics: Sequence[OffsetCommitRequestTopic] | Sequence[TxnOffsetCommitRequestTopic],
) -> list[tuple[str, int]]:
    return [(t["name"], p["partition_index"]) for t in topics for p in t["partitions"]]


def commit_txn(
    shard: GroupShard,
    req: TxnOffsetCommitRequest,
    now: int,
    reply: Callable[[TxnOffsetCommitResponse], None],
    exists: Callable[[str, int], bool] = lambda topic, partition: True,
) -> None:
    """TxnOffsetCommit: the offsets are appended in the producer's transaction and stay
    pending until it ends (its marker reaches the partition)."""
    group_id = req["group_id"]
    error = validate_txn_commit(
        shard.group(group_id),
        req.get("generation_id_or_member_epoch", -1),
        req.get("member_id") or "",
        req.get("group_instance_id"),
        _partitions(req["topics"]),
    )
    producer = (req["producer_id"], req["producer_epoch"])
    # The two responses have the same fields; only their names differ.
    answer = cast(Callable[[OffsetCommitResponse], None], reply)
    _commit(shard, group_id, error, req["topics"], -1, now, answer, exists, producer)


def _commit(
    shard: GroupShard,
    group_id: str,
    error: int,
    request_topics: Sequence[OffsetCommitRequestTopic] | Sequence[TxnOffsetCommitRequestTopic],
    retention: int | None,
    now: int,
    reply: Callable[[OffsetCommitResponse], None],
    exists: Callable[[str, int], bool],
    producer: tuple[int, int] | None,
) -> None:
    group = shard.group(group_id)
    records: list[OffsetRecord] = []
    topics: list[OffsetCommitResponseTopic] = []
    for topic in request_topics:
        partitions: list[OffsetCommitResponsePartition] = []
        for p in topic["partitions"]:
            # As Kafka: partitions that do not exist are refused before the group is asked.
            code = error
            if not exists(topic["name"], p["partition_index"]):
                code = errors.UnknownTopicOrPartitionError.code
            metadata = p.get("committed_metadata") or ""
            if not code and len(metadata.encode()) > shard.settings.offset_metadata_max_bytes:
                code = errors.OffsetMetadataTooLargeError.code
            if not code:
                value = OffsetValue(
                    offset=p["committed_offset"],
                    leader_epoch=p.get("committed_leader_epoch", -1),
                    metadata=metadata,
                    commit_timestamp=now,
                    expire_timestamp=now + retention
                    if retention is not None and retention >= 0
                    else -1,
                )
                records.append(OffsetRecord(group_id, topic["name"], p["partition_index"], value))
            partitions.append({"partition_index": p["partition_index"], "error_code": code})
        topics.append({"name": topic["name"], "partitions": partitions})
    response: OffsetCommitResponse = {"throttle_time_ms": 0, "topics": topics}
    if not records:
        reply(response)
        return
    if group is None:
        shard.get_or_create(group_id, now)

    def done(error: int) -> None:
        if error:
            for t in topics:
                for p in t["partitions"]:
                    p["error_code"] = p["error_code"] or error
        reply(response)

    shard.write(Write(list(records), replay=True, on_done=done, producer=producer))


def fetch(
    shard: GroupShard,
    group_id: str,
    topics: Sequence[OffsetFetchRequestTopic] | None,
    require_stable: bool = False,
) -> list[OffsetFetchResponseTopics]:
    """The committed offsets of `group_id` for `topics` (None: every committed partition), as
    OffsetFetch topic entries; unknown partitions get offset -1. With `require_stable` (a
    read_committed consumer), a partition an open transaction holds an offset for answers
    UNSTABLE_OFFSET_COMMIT, and the consumer asks again."""
    group = shard.group(group_id)
    offsets = group.offsets if group is not None else {}
    if topics is None:
        wanted: dict[str, list[int]] = {}
        for topic, partition in sorted(offsets):
            wanted.setdefault(topic, []).append(partition)
    else:
        wanted = {t["name"]: list(t["partition_indexes"]) for t in topics}
    result: list[OffsetFetchResponseTopics] = []
    for topic, partitions in wanted.items():
        entries: list[OffsetFetchResponsePartitions] = []
        for partition in partitions:
            value = offsets.get((topic, partition))
            if require_stable and shard.has_pending(group_id, topic, partition):
                entries.append(
                    {
                        "partition_index": partition,
                        "committed_offset": -1,
                        "committed_leader_epoch": -1,
                        "metadata": "",
                        "error_code": errors.UnstableOffsetCommitError.code,
                    }
                )
                continue
            entries.append(
                {
                    "partition_index": partition,
                    "committed_offset": value.offset if value else -1,
                    "committed_leader_epoch": value.leader_epoch if value else -1,
                    "metadata": value.metadata if value else "",
                    "error_code": NONE,
                }
            )
        result.append({"name": topic, "partitions": entries})
    return result


def subscribed_topics(group: Group) -> set[str] | None:
    """Topics the members of a consumer-protocol group subscribe to (parsed from their
    ConsumerProtocolSubscription, or by name for KIP-848 members); None when the group's
    protocol is not `consumer`."""
    if group.consumer is not None:
        return {n for m in group.consumer.members.values() for n in m.subscribed_topic_names}
    if group.streams is not None:
        return streams_offsets.subscribed_topics(group.streams)
    if group.protocol_type != CONSUMER_PROTOCOL:
        return None
    topics: set[str] = set()
    for m in group.members.values():
        data = m.metadata(group.protocol)
        try:
            (count,) = struct.unpack_from(">i", data, 2)
            pos = 6
            for _ in range(max(count, 0)):
                (length,) = struct.unpack_from(">h", data, pos)
                topics.add(data[pos + 2 : pos + 2 + length].decode())
                pos += 2 + length
        except (struct.error, UnicodeDecodeError):
            continue
    return topics


def offset_delete(
    shard: GroupShard,
    group_id: str,
    topics: list[OffsetDeleteRequestTopic],
    now: int,
    reply: Callable[[OffsetDeleteResponse], None],
) -> None:
    group = shard.group(group_id)
    if group is None or group.share is not None:
        reply({"error_code": errors.GroupIdNotFoundError.code, "throttle_time_ms": 0, "topics": []})
        return
    subscribed: set[str] = set()
    if not group.is_empty():
        found = subscribed_topics(group)
        if found is None:
            reply(
                {"error_code": errors.NonEmptyGroupError.code, "throttle_time_ms": 0, "topics": []}
            )
            return
        subscribed = found
    records = []
    out: list[OffsetDeleteResponseTopic] = []
    for t in topics:
        partitions: list[OffsetDeleteResponsePartition] = []
        for p in t["partitions"]:
            index = p["partition_index"]
            code = NONE
            if t["name"] in subscribed:
                code = errors.GroupSubscribedToTopicError.code
            elif (t["name"], index) in group.offsets:
                records.append(OffsetRecord(group_id, t["name"], index, None))
            partitions.append({"partition_index": index, "error_code": code})
        out.append({"name": t["name"], "partitions": partitions})
    response: OffsetDeleteResponse = {"error_code": NONE, "throttle_time_ms": 0, "topics": out}
    if not records:
        reply(response)
        return

    def done(error: int) -> None:
        reply({**response, "error_code": error} if error else response)

    shard.write(Write(list(records), replay=True, on_done=done))


def delete_group(shard: GroupShard, group_id: str, now: int, reply: Callable[[int], None]) -> None:
    group = shard.group(group_id)
    if group is None or group.state == GroupState.DEAD:
        reply(errors.GroupIdNotFoundError.code)
        return
    if not group.is_empty():
        reply(errors.NonEmptyGroupError.code)
        return
    records: list[Record] = [OffsetRecord(group_id, t, p, None) for (t, p) in sorted(group.offsets)]
    if group.consumer is not None:
        records.extend(consumer_records.tombstones(group_id, group.consumer))
    if group.share is not None:
        records.extend(share_records.tombstones(group_id, group.share))
    if group.streams is not None:
        records.extend(streams_records.tombstones(group_id, group.streams))
    records.append(GroupRecord(group_id, None))
    group.protocol_type = None

    def done(error: int) -> None:
        reply(error)

    shard.write(Write(records, replay=True, on_done=done))


def expire_offsets(shard: GroupShard, now: int) -> None:
    """Offsets of groups without members expire `offsets.retention.minutes` after the later
    of their commit and the group becoming empty (or at an explicit expire timestamp); a
    group left with nothing is deleted too."""
    retention = shard.settings.offsets_retention_ms
    for group in list(shard.groups.values()):
        if not group.is_empty() or group.state not in (GroupState.EMPTY,) or group.share:
            continue  # (share groups never expire: only DeleteGroups removes them)
        pending = any(group.group_id in p for p in shard.pending_txn.values())
        typed = group.consumer is not None or group.streams is not None
        if typed and not group.offsets and not pending:
            # An empty KIP-848 or streams group with nothing committed goes: its records'
            # tombstones delete it when replayed (at once when nothing of it was written).
            gone: list[Record] = []
            if group.consumer is not None:
                gone.extend(consumer_records.tombstones(group.group_id, group.consumer))
            if group.streams is not None:
                gone.extend(streams_records.tombstones(group.group_id, group.streams))
            if gone:
                shard.write(Write(list(gone), replay=True))
            else:
                group.state = GroupState.DEAD
                del shard.groups[group.group_id]
            continue
        expired = []
        for (topic, partition), value in group.offsets.items():
            if value.expire_timestamp >= 0:
                deadline = value.expire_timestamp
            else:
                deadline = max(value.commit_timestamp, group.state_timestamp) + retention
            if deadline <= now:
                expired.append(OffsetRecord(group.group_id, topic, partition, None))
        if not expired:
            continue
        records: list[Record] = list(expired)
        if len(expired) == len(group.offsets):
            records.append(GroupRecord(group.group_id, None))
            group.protocol_type = None
        shard.write(Write(records, replay=True))


def delete_topics(shard: GroupShard, topics: Collection[str]) -> None:
    """`topics` were deleted: every group's committed offsets of them go (Kafka's
    `onPartitionsDeleted`), so that a topic created again under the same name is not read from
    an offset of the old one."""
    for group in list(shard.groups.values()):
        gone: list[Record] = [
            OffsetRecord(group.group_id, topic, partition, None)
            for topic, partition in group.offsets
            if topic in topics
        ]
        if gone:
            shard.write(Write(gone, replay=True))
