"""Offsets of share groups, on one shard (DescribeShareGroupOffsets, AlterShareGroupOffsets,
DeleteShareGroupOffsets): a share group's offsets are its share-partitions' start offsets, kept
by the share coordinator; the group keeps which share-partitions have state (its
ShareGroupStatePartitionMetadata record), and an empty group's may be set or deleted.

Pure functions of the shard, as `share`: they change the group and return what the share
coordinator must be asked."""

from __future__ import annotations

from collections.abc import Collection

from ferrolog import errors
from ferrolog.controller.coordinator.group.consumer_state import Topics
from ferrolog.controller.coordinator.group.shard import GroupShard
from ferrolog.controller.coordinator.group.share import InitializeState, write_changes
from ferrolog.controller.coordinator.group.share_state import ShareGroup
from ferrolog.controller.coordinator.group.state import Group


def initialized_partitions(shard: GroupShard, group_id: str) -> dict[str, list[int]]:
    """The partitions of each topic whose share state exists (what describing all of a
    group's offsets covers); none for a group that does not exist or is of another type."""
    group = shard.group(group_id)
    if group is None or group.share is None:
        return {}
    return {t: sorted(ps) for t, ps in sorted(group.share.initialized.items()) if ps}


def _empty_share_group(shard: GroupShard, group_id: str, now: int, create: bool) -> Group:
    group = shard.group(group_id)
    if group is None and create:
        group = shard.get_or_create(group_id, now)
        group.share = ShareGroup()
    if group is None:
        raise errors.GroupIdNotFoundError(f"Group {group_id} not found.")
    if group.share is None:
        raise errors.GroupIdNotFoundError(f"Group {group_id} is not a share group.")
    if group.share.members:
        raise errors.NonEmptyGroupError("The group is not empty.")
    return group


def alter_offsets(
    shard: GroupShard, group_id: str, offsets: dict[str, dict[int, int]], topics: Topics, now: int
) -> tuple[dict[str, dict[int, int]], list[InitializeState]]:
    """Kafka's alterShareGroupOffsets: an empty share group (made if none) starts the given
    partitions at the given offsets. Returns each partition's error code (0, or
    UNKNOWN_TOPIC_OR_PARTITION) and the state the share coordinator must create; raises
    GROUP_ID_NOT_FOUND or NON_EMPTY_GROUP."""
    group = _empty_share_group(shard, group_id, now, create=True)
    sg = group.share
    assert sg is not None
    codes: dict[str, dict[int, int]] = {}
    to_initialize = []
    unknown = errors.UnknownTopicOrPartitionError.code
    for name, starts in offsets.items():
        found = topics.by_name(name)
        codes[name] = {p: unknown if found is None or p >= found[1] else 0 for p in starts}
        if found is None:
            continue
        # One request per start offset of the topic (usually one: --to-earliest, ...).
        by_start: dict[int, list[int]] = {}
        for p, start in sorted(starts.items()):
            if not codes[name][p]:
                sg.initializing.setdefault(name, {})[p] = now
                sg.deleting.discard(name)
                by_start.setdefault(start, []).append(p)
        for start, ps in by_start.items():
            state = InitializeState(group_id, sg.group_epoch, found[0], name, tuple(ps), start)
            to_initialize.append(state)
    shard.write(write_changes(shard, group, []))
    return codes, to_initialize


def begin_delete_offsets(
    shard: GroupShard, group_id: str, names: list[str], topics: Topics, now: int
) -> tuple[dict[str, tuple[int, str | None]], dict[str, tuple[bytes, list[int]]]]:
    """Kafka's initiateDeleteShareGroupOffsets: of an empty share group, each topic's
    share-partitions move to deleting. Returns the topics refused (error code, message) and
    those whose state the share coordinator must delete (topic id, partitions); raises
    GROUP_ID_NOT_FOUND or NON_EMPTY_GROUP."""
    group = _empty_share_group(shard, group_id, now, create=False)
    sg = group.share
    assert sg is not None
    refused: dict[str, tuple[int, str | None]] = {}
    to_delete: dict[str, tuple[bytes, list[int]]] = {}
    if not (sg.initialized or sg.initializing or sg.deleting):
        return refused, to_delete  # as Kafka: nothing was ever initialized, nothing answered
    unknown = errors.UnknownTopicOrPartitionError.code
    for name in names:
        found = topics.by_name(name)
        if found is None:
            refused[name] = (unknown, None)
        elif name in sg.initialized:
            to_delete[name] = (found[0], sorted(sg.initialized.pop(name)))
            sg.deleting.add(name)
        elif name in sg.deleting:
            to_delete[name] = (found[0], list(range(found[1])))
        else:
            refused[name] = (unknown, "There is no offset information to delete.")
    shard.write(write_changes(shard, group, []))
    return refused, to_delete


def end_delete_offsets(shard: GroupShard, group_id: str, names: list[str]) -> None:
    """The share coordinator deleted these topics' state: they are no longer deleting."""
    group = shard.group(group_id)
    if group is None or group.share is None:
        return
    group.share.deleting.difference_update(names)
    shard.write(write_changes(shard, group, []))


def forget_topics(shard: GroupShard, names: Collection[str]) -> None:
    """Deleted topics (or deleted and created again under the same name) leave the share
    groups' state partitions: their share state went with the topic, as Kafka's
    maybeCleanupShareGroupState has it. A topic of that name is initialized anew when a
    member subscribes to it."""
    for group in shard.groups.values():
        sg = group.share
        if sg is None:
            continue
        known = set(sg.initialized) | set(sg.initializing) | sg.deleting
        gone = known & set(names)
        if not gone:
            continue
        for name in gone:
            sg.initialized.pop(name, None)
            sg.initializing.pop(name, None)
            sg.deleting.discard(name)
        shard.write(write_changes(shard, group, []))
