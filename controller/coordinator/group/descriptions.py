"""What DescribeGroups, ListGroups and the Consumer-, Share- and StreamsGroupDescribe APIs tell
of a group: classic groups as Kafka's classic coordinator describes them, the groups of the new
protocols as its group coordinator does (they are Dead to DescribeGroups, which has no shape
for them)."""

from __future__ import annotations

from typing import Any

from ferrolog import errors
from ferrolog.controller.coordinator.group.consumer_state import NO_TOPICS, Partitions, Topics
from ferrolog.controller.coordinator.group.offsets import CONSUMER_PROTOCOL, NONE
from ferrolog.controller.coordinator.group.state import Group, GroupState
from ferrolog.controller.coordinator.group.streams_records import task_ids
from ferrolog.controller.coordinator.group.streams_topology import InternalTopic
from ferrolog.protocol.messages import (
    ConsumerGroupDescribeResponseAssignment,
    ConsumerGroupDescribeResponseDescribedGroup,
    DescribeGroupsResponseDescribedGroup,
    DescribeGroupsResponseDescribedGroupMember,
    ListGroupsResponseListedGroup,
    ShareGroupDescribeResponseDescribedGroup,
    StreamsGroupDescribeResponseDescribedGroup,
    StreamsGroupDescribeResponseSubtopology,
    StreamsGroupDescribeResponseTopicInfo,
)


def describe(group: Group | None, group_id: str) -> DescribeGroupsResponseDescribedGroup:
    """Raises GroupIdNotFoundError, with Kafka's message, for a group that does not exist or is
    a KIP-848 consumer group (its clients use ConsumerGroupDescribe for those); DescribeGroups
    before v6 answers either as a Dead group without an error."""
    if group is None:
        raise errors.GroupIdNotFoundError(f"Group {group_id} not found.")
    if group.group_type != "classic":
        raise errors.GroupIdNotFoundError(f"Group {group_id} is not a classic group.")
    stable = group.state == GroupState.STABLE
    members: list[DescribeGroupsResponseDescribedGroupMember] = [
        {
            "member_id": m.member_id,
            "group_instance_id": m.group_instance_id,
            "client_id": m.client_id,
            "client_host": m.client_host,
            "member_metadata": m.metadata(group.protocol) if stable else b"",
            "member_assignment": m.assignment if stable else b"",
        }
        for m in group.members.values()
    ]
    return {
        "error_code": NONE,
        "error_message": None,
        "group_id": group_id,
        "group_state": group.state.value,
        "protocol_type": group.protocol_type or "",
        "protocol_data": (group.protocol or "") if stable else "",
        "members": members,
        "authorized_operations": -2147483648,
    }


def describe_error(
    group_id: str, code: int, message: str | None = None, state: str = ""
) -> DescribeGroupsResponseDescribedGroup:
    """DescribeGroups' answer for a group it could not describe."""
    return {
        "error_code": code,
        "error_message": message,
        "group_id": group_id,
        "group_state": state,
        "protocol_type": "",
        "protocol_data": "",
        "members": [],
        "authorized_operations": -2147483648,
    }


def list_entry(group: Group) -> ListGroupsResponseListedGroup:
    """As Kafka: a KIP-848 group is of type "consumer" with protocol type "consumer", a
    share group of type and protocol type "share"."""
    if group.share is not None:
        return {
            "group_id": group.group_id,
            "protocol_type": SHARE_PROTOCOL,
            "group_state": group.share.state().value,
            "group_type": "share",
        }
    if group.streams is not None:
        return {
            "group_id": group.group_id,
            "protocol_type": "streams",
            "group_state": streams_state_name(group),
            "group_type": "streams",
        }
    if group.consumer is not None:
        return {
            "group_id": group.group_id,
            "protocol_type": CONSUMER_PROTOCOL,
            "group_state": consumer_state_name(group),
            "group_type": "consumer",
        }
    return {
        "group_id": group.group_id,
        "protocol_type": group.protocol_type or "",
        "group_state": group.state.value,
        "group_type": "classic",
    }


def consumer_state_name(group: Group) -> str:
    cg = group.consumer
    assert cg is not None
    return "Dead" if group.state == GroupState.DEAD else cg.state().value


CLASSIC_MEMBER, CONSUMER_MEMBER = 0, 1
SHARE_PROTOCOL = "share"


def describe_consumer_group(
    group: Group | None, group_id: str, topics: Topics
) -> ConsumerGroupDescribeResponseDescribedGroup:
    if group is None or group.consumer is None:
        return {
            "error_code": errors.GroupIdNotFoundError.code,
            "error_message": f"Group {group_id} not found."
            if group is None
            else f"Group {group_id} is not a consumer group.",
            "group_id": group_id,
            "group_state": "",
            "group_epoch": 0,
            "assignment_epoch": 0,
            "assignor_name": "",
            "members": [],
            "authorized_operations": -2147483648,
        }
    cg = group.consumer

    def assignment(partitions: Partitions) -> ConsumerGroupDescribeResponseAssignment:
        return {
            "topic_partitions": [
                {"topic_id": found[0], "topic_name": t, "partitions": sorted(ps)}
                for t, ps in sorted(partitions.items())
                if ps and (found := topics.by_name(t)) is not None
            ]
        }

    return {
        "error_code": 0,
        "error_message": None,
        "group_id": group_id,
        "group_state": cg.state().value,
        "group_epoch": cg.group_epoch,
        "assignment_epoch": cg.assignment_epoch,
        "assignor_name": cg.assignor,
        "members": [
            {
                "member_id": m.member_id,
                "instance_id": m.instance_id,
                "rack_id": m.rack_id,
                "member_epoch": m.member_epoch,
                "client_id": m.client_id,
                "client_host": m.client_host,
                "subscribed_topic_names": sorted(m.subscribed_topic_names),
                # Kafka 4.1 reports "" for a member without a regex.
                "subscribed_topic_regex": m.subscribed_topic_regex or "",
                "assignment": assignment(m.assigned),
                "target_assignment": assignment(cg.target.get(m.member_id, {})),
                # v1 (KIP-1099): 0 for a member that speaks the classic protocol, 1 for one
                # that speaks the consumer protocol.
                "member_type": CLASSIC_MEMBER if m.classic is not None else CONSUMER_MEMBER,
            }
            for m in cg.members.values()
        ],
        "authorized_operations": -2147483648,
    }


def consumer_describe_error(
    group_id: str, code: int, message: str | None
) -> ConsumerGroupDescribeResponseDescribedGroup:
    """ConsumerGroupDescribe's answer for a group it could not look at."""
    result = describe_consumer_group(None, group_id, NO_TOPICS)
    result.update({"error_code": code, "error_message": message})
    return result


def describe_share_group(
    group: Group | None, group_id: str, topics: Topics
) -> ShareGroupDescribeResponseDescribedGroup:
    """ShareGroupDescribe's view of a share group: its epochs, assignor and members with the
    partitions each holds now."""
    if group is None or group.share is None:
        message = (
            f"Group {group_id} not found."
            if group is None
            else f"Group {group_id} is not a share group."
        )
        return share_describe_error(group_id, errors.GroupIdNotFoundError.code, message)
    sg = group.share
    return {
        "error_code": 0,
        "error_message": None,
        "group_id": group_id,
        "group_state": sg.state().value,
        "group_epoch": sg.group_epoch,
        "assignment_epoch": sg.assignment_epoch,
        "assignor_name": sg.assignor,
        "members": [
            {
                "member_id": m.member_id,
                "rack_id": m.rack_id,
                "member_epoch": m.member_epoch,
                "client_id": m.client_id,
                "client_host": m.client_host,
                "subscribed_topic_names": sorted(m.subscribed_topic_names),
                "assignment": {
                    "topic_partitions": [
                        {"topic_id": found[0], "topic_name": t, "partitions": sorted(ps)}
                        for t, ps in sorted(m.assigned.items())
                        if ps and (found := topics.by_name(t)) is not None
                    ]
                },
            }
            for m in sg.members.values()
        ],
        "authorized_operations": -2147483648,
    }


def share_describe_error(
    group_id: str, code: int, message: str | None
) -> ShareGroupDescribeResponseDescribedGroup:
    """ShareGroupDescribe's answer for a group it could not look at."""
    return {
        "error_code": code,
        "error_message": message,
        "group_id": group_id,
        "group_state": "",
        "group_epoch": 0,
        "assignment_epoch": 0,
        "assignor_name": "",
        "members": [],
        "authorized_operations": -2147483648,
    }


def streams_state_name(group: Group) -> str:
    sg = group.streams
    assert sg is not None
    return "Dead" if group.state == GroupState.DEAD else sg.state().value


def describe_streams_group(
    group: Group | None, group_id: str, with_description: bool
) -> StreamsGroupDescribeResponseDescribedGroup:
    """StreamsGroupDescribe's view of a streams group: its epochs, its topology (configured,
    with the partition counts decided, once ready; else as the members sent it) and its
    members with what each holds now and is meant to hold."""
    if group is None or group.streams is None:
        message = (
            f"Streams group {group_id} not found."
            if group is None
            else f"Group {group_id} is not a streams group."
        )
        return streams_describe_error(group_id, errors.GroupIdNotFoundError.code, message)
    sg = group.streams
    configured = sg.configured
    subtopologies: list[StreamsGroupDescribeResponseSubtopology] = []
    if configured is not None and configured.ready and configured.subtopologies is not None:
        for c in configured.subtopologies.values():
            subtopologies.append(
                {
                    "subtopology_id": c.subtopology_id,
                    "source_topics": list(c.source_topics),
                    "repartition_sink_topics": list(c.repartition_sink_topics),
                    "state_changelog_topics": [_topic_info(t) for t in c.changelog_topics],
                    "repartition_source_topics": [
                        _topic_info(t) for t in c.repartition_source_topics
                    ],
                }
            )
    elif sg.topology is not None:
        for s in sorted(sg.topology["subtopologies"], key=lambda s: s["subtopology_id"]):
            subtopologies.append(
                {
                    "subtopology_id": s["subtopology_id"],
                    "source_topics": sorted(s["source_topics"]),
                    "repartition_sink_topics": sorted(s["repartition_sink_topics"]),
                    "state_changelog_topics": _stored_infos(s["state_changelog_topics"]),
                    "repartition_source_topics": _stored_infos(s["repartition_source_topics"]),
                }
            )
    members = []
    for m in sg.members.values():
        held, target = m.assigned(), sg.target.get(m.member_id)
        endpoint = m.user_endpoint
        members.append(
            {
                "member_id": m.member_id,
                "member_epoch": m.member_epoch,
                "instance_id": m.instance_id,
                "rack_id": m.rack_id,
                "client_id": m.client_id,
                "client_host": m.client_host,
                "topology_epoch": m.topology_epoch,
                "process_id": m.process_id,
                "user_endpoint": {"host": endpoint[0], "port": endpoint[1]} if endpoint else None,
                "client_tags": [{"key": k, "value": v} for k, v in sorted(m.client_tags.items())],
                "task_offsets": _task_offsets(m.task_offsets),
                "task_end_offsets": _task_offsets(m.task_end_offsets),
                "assignment": {
                    "active_tasks": task_ids(held.active),
                    "standby_tasks": task_ids(held.standby),
                    "warmup_tasks": task_ids(held.warmup),
                },
                "target_assignment": {
                    "active_tasks": task_ids(target.active) if target else [],
                    "standby_tasks": task_ids(target.standby) if target else [],
                    "warmup_tasks": task_ids(target.warmup) if target else [],
                },
                "is_classic": False,
            }
        )
    result = streams_describe_error(group_id, 0, None)
    result.update(
        {
            "group_state": streams_state_name(group),
            "group_epoch": sg.group_epoch,
            "assignment_epoch": sg.assignment_epoch,
            "topology": {"epoch": sg.topology_epoch(), "subtopologies": subtopologies},
            "members": members,  # type: ignore[typeddict-item]
            # No topology description plugin (KIP-1331): NOT_STORED when asked for.
            "topology_description_status": 1 if with_description else 0,
        }
    )
    return result


def _topic_info(t: InternalTopic) -> StreamsGroupDescribeResponseTopicInfo:
    return {
        "name": t.name,
        "partitions": t.partitions,
        "replication_factor": t.replication_factor if t.replication_factor > 0 else 0,
        "topic_configs": [{"key": k, "value": v} for k, v in sorted(t.configs)],
    }


def _stored_infos(infos: list[dict[str, Any]]) -> list[StreamsGroupDescribeResponseTopicInfo]:
    return [
        {
            "name": t["name"],
            "partitions": t["partitions"],
            "replication_factor": t["replication_factor"],
            "topic_configs": sorted(
                ({"key": c["key"], "value": c["value"]} for c in t["topic_configs"]),
                key=lambda c: c["key"],
            ),
        }
        for t in sorted(infos, key=lambda t: t["name"])
    ]


def _task_offsets(offsets: dict[tuple[str, int], int]) -> list[Any]:
    return [
        {"subtopology_id": s, "partition": p, "offset": o} for (s, p), o in sorted(offsets.items())
    ]


def streams_describe_error(
    group_id: str, code: int, message: str | None
) -> StreamsGroupDescribeResponseDescribedGroup:
    """StreamsGroupDescribe's answer for a group it could not look at."""
    return {
        "error_code": code,
        "error_message": message,
        "group_id": group_id,
        "group_state": "",
        "group_epoch": -1,
        "assignment_epoch": -1,
        "topology": None,
        "members": [],
        "authorized_operations": -2147483648,
        "topology_description": None,
        "topology_description_status": 0,
        "assignor_name": "sticky",
    }
