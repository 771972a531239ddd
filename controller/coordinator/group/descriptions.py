"""What DescribeGroups, ListGroups and ConsumerGroupDescribe tell of a group: classic groups
as Kafka's classic coordinator describes them, KIP-848 consumer groups as its consumer group
coordinator does (a consumer group is Dead to DescribeGroups, which has no shape for it)."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.coordinator.group.consumer_state import NO_TOPICS, Partitions, Topics
from ferrolog.controller.coordinator.group.offsets import CONSUMER_PROTOCOL, NONE
from ferrolog.controller.coordinator.group.state import Group, GroupState
from ferrolog.protocol.messages import (
    ConsumerGroupDescribeResponseAssignment,
    ConsumerGroupDescribeResponseDescribedGroup,
    DescribeGroupsResponseDescribedGroup,
    DescribeGroupsResponseDescribedGroupMember,
    ListGroupsResponseListedGroup,
    ShareGroupDescribeResponseDescribedGroup,
)


def describe(group: Group | None, group_id: str) -> DescribeGroupsResponseDescribedGroup:
    """Raises GroupIdNotFoundError, with Kafka's message, for a group that does not exist or is
    a KIP-848 consumer group (its clients use ConsumerGroupDescribe for those); DescribeGroups
    before v6 answers either as a Dead group without an error."""
    if group is None:
        raise errors.GroupIdNotFoundError(f"Group {group_id} not found.")
    if group.consumer is not None or group.share is not None:
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
