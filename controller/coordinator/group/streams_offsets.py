"""Offset commits and fetches of a streams group's members (Kafka 4.4's StreamsGroup
validateOffsetCommit and validateOffsetFetch): a member commits with its member epoch; one
that is behind still may for the tasks it held at that epoch, since a Kafka Streams thread
commits what it processed before it learned of a rebalance."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ferrolog import errors
from ferrolog.controller.coordinator.group.streams_state import StreamsGroup
from ferrolog.controller.coordinator.group.streams_topology import required_topics

NONE = 0
# OffsetCommit v9 is the first that carries a member epoch.
STREAMS_GROUP_COMMIT_VERSION = 9


def validate_commit(
    sg: StreamsGroup,
    member_epoch: int,
    member_id: str,
    version: int,
    partitions: Iterable[tuple[str, int]],
    transactional: bool = False,
) -> int:
    if member_epoch < 0 and not sg.members:
        return NONE  # from outside the group (tools), while nobody runs it
    if transactional and member_epoch < 0 and not member_id:
        return NONE  # a producer that does not name its consumer
    member = sg.members.get(member_id)
    if member is None:
        return errors.UnknownMemberIdError.code
    if not transactional and version < STREAMS_GROUP_COMMIT_VERSION:
        return errors.UnsupportedVersionError.code
    if member_epoch == member.member_epoch:
        return NONE
    if member_epoch > member.member_epoch:
        return errors.StaleMemberEpochError.code
    # Behind: each partition must belong to a task it held (or is giving up) since then.
    topology = sg.topology
    for topic, partition in partitions:
        subtopology = _reading(topology, topic) if topology is not None else None
        if subtopology is None:
            return errors.StaleMemberEpochError.code
        epoch = member.active.get(subtopology, {}).get(partition)
        if epoch is None:
            epoch = member.pending_active.get(subtopology, {}).get(partition)
        if epoch is None or epoch > member_epoch:
            return errors.StaleMemberEpochError.code
    return NONE


def _reading(topology: dict[str, Any], topic: str) -> str | None:
    """The subtopology that reads `topic` (a source or repartition source topic)."""
    for s in topology["subtopologies"]:
        if topic in s["source_topics"] or any(
            t["name"] == topic for t in s["repartition_source_topics"]
        ):
            return str(s["subtopology_id"])
    return None


def validate_fetch(sg: StreamsGroup, member_epoch: int, member_id: str | None) -> int:
    if member_id is None or (member_epoch < 0 and not member_id):
        return NONE
    member = sg.members.get(member_id)
    if member is None:
        return errors.UnknownMemberIdError.code
    if member_epoch != member.member_epoch:
        return errors.StaleMemberEpochError.code
    return NONE


def subscribed_topics(sg: StreamsGroup) -> set[str]:
    """The topics whose offsets OffsetDelete keeps while the group runs: what its tasks read."""
    if sg.topology is None:
        return set()
    changelogs = {
        t["name"] for s in sg.topology["subtopologies"] for t in s["state_changelog_topics"]
    }
    return required_topics(sg.topology) - changelogs
