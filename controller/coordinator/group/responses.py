"""The answers JoinGroup and SyncGroup give, now or when a rebalance ends."""

from __future__ import annotations

from ferrolog.controller.coordinator.group.state import Group, Member
from ferrolog.protocol.messages import JoinGroupResponse, JoinGroupResponseMember, SyncGroupResponse

NONE = 0


def join_response(
    error: int,
    member_id: str = "",
    group: Group | None = None,
    members: list[JoinGroupResponseMember] | None = None,
) -> JoinGroupResponse:
    return {
        "throttle_time_ms": 0,
        "error_code": error,
        "generation_id": group.generation if group is not None and error == NONE else -1,
        "protocol_type": group.protocol_type if group is not None else None,
        "protocol_name": group.protocol if group is not None and error == NONE else None,
        "leader": (group.leader or "") if group is not None and error == NONE else "",
        "skip_assignment": False,
        "member_id": member_id,
        "members": members or [],
    }


def member_list(group: Group) -> list[JoinGroupResponseMember]:
    return [
        {
            "member_id": m.member_id,
            "group_instance_id": m.group_instance_id,
            "metadata": m.metadata(group.protocol),
        }
        for m in group.members.values()
    ]


def reply_join(group: Group, member: Member) -> None:
    reply, member.join_reply = member.join_reply, None
    if reply is not None:
        members = member_list(group) if group.leader == member.member_id else []
        reply(join_response(NONE, member.member_id, group, members))


def sync_response(
    error: int, group: Group | None = None, assignment: bytes = b""
) -> SyncGroupResponse:
    return {
        "throttle_time_ms": 0,
        "error_code": error,
        "protocol_type": group.protocol_type if group is not None else None,
        "protocol_name": group.protocol if group is not None else None,
        "assignment": assignment,
    }
