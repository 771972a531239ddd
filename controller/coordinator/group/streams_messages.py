"""What a StreamsGroupHeartbeat carries in and out (Kafka 4.4's messages): the service's checks
of a request, the topology and owned tasks read from it, and the answer written back, with
the partitions each member's endpoint serves (interactive queries)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ferrolog import errors
from ferrolog.controller.cluster.topics import is_internal, validate_topic_name
from ferrolog.controller.coordinator.group import streams_records
from ferrolog.controller.coordinator.group.consumer import blank
from ferrolog.controller.coordinator.group.consumer_state import Topics
from ferrolog.controller.coordinator.group.state import GroupSettings
from ferrolog.controller.coordinator.group.streams_state import (
    StreamsGroup,
    StreamsMember,
    Tasks,
    TaskSet,
)
from ferrolog.protocol.messages import (
    StreamsGroupHeartbeatRequest,
    StreamsGroupHeartbeatResponse,
)

LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2
# Whether the caller may create the named (internal) topics.
MayCreate = Callable[[Sequence[str]], bool]


class StreamsHeartbeatCall(StreamsGroupHeartbeatRequest):
    """A StreamsGroupHeartbeat with what the coordinator needs from its header."""

    client_id: str | None


def error_response(
    code: int, message: str | None = None, member_id: str = "", epoch: int = 0
) -> StreamsGroupHeartbeatResponse:
    return {
        "throttle_time_ms": 0,
        "error_code": code,
        "error_message": message,
        "member_id": member_id,
        "member_epoch": epoch,
        "heartbeat_interval_ms": 0,
        "task_offset_interval_ms": 0,
        "status": None,
        "active_tasks": None,
        "standby_tasks": None,
        "warmup_tasks": None,
        "endpoint_information_epoch": 0,
        "partitions_by_user_endpoint": None,
    }


def validate(req: StreamsGroupHeartbeatRequest) -> tuple[int, str] | None:
    """Kafka's throwIfStreamsGroupHeartbeatRequestIsInvalid, with its messages."""
    invalid = errors.InvalidRequestError.code
    topology = req.get("topology")
    if topology is not None and any(s["source_topic_regex"] for s in topology["subtopologies"]):
        return invalid, "Regular expressions for source topics are not supported yet."
    for name, value in (
        ("MemberId", req["member_id"]),
        ("GroupId", req["group_id"]),
        ("InstanceId", req.get("instance_id")),
        ("RackId", req.get("rack_id")),
    ):
        if blank(value) or (name in ("MemberId", "GroupId") and not value):
            return invalid, f"{name} can't be empty."
    epoch = req["member_epoch"]
    lists = [req.get(k) for k in ("active_tasks", "standby_tasks", "warmup_tasks")]
    if epoch == 0:
        if req["rebalance_timeout_ms"] == -1:
            return invalid, "RebalanceTimeoutMs must be provided in first request."
        for kind, tasks in zip(("Active", "Standby", "Warmup"), lists, strict=True):
            if tasks is None or tasks:
                return invalid, f"{kind}Tasks must be empty when (re-)joining."
        if topology is None:
            return invalid, "Topology must be non-null when (re-)joining."
    elif epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        if req.get("instance_id") is None:
            return invalid, "InstanceId can't be null."
    elif epoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        return invalid, f"MemberEpoch is {epoch}, but must be greater than or equal to -2."
    if any(t is None for t in lists) and any(t is not None for t in lists):
        return invalid, "If one task-type is non-null, all must be non-null."
    if epoch != 0 and topology is not None:
        return invalid, "Topology can only be provided when (re-)joining."
    for s in topology["subtopologies"] if topology is not None else []:
        for t in s["state_changelog_topics"]:
            if t["partitions"]:
                return errors.StreamsInvalidTopologyError.code, (
                    f"Changelog topic {t['name']} must have an undefined partition count, but "
                    f"it is set to {t['partitions']}."
                )
    return None


def owned_tasks(req: StreamsGroupHeartbeatRequest) -> TaskSet | None:
    lists = [req.get(k) for k in ("active_tasks", "standby_tasks", "warmup_tasks")]
    if any(t is None for t in lists):
        return None
    active, standby, warmup = (streams_records.tasks_of(t) for t in lists)  # type: ignore[arg-type]
    return TaskSet(active, standby, warmup)


def take_metadata(member: StreamsMember, req: StreamsHeartbeatCall, host: str) -> bool:
    """Takes the member's metadata from the request; whether a change bumps the epoch (for a
    static member only its topology epoch, rack, tags and process count)."""
    before = (member.topology_epoch, member.rack_id, dict(member.client_tags), member.process_id)
    other = (
        member.instance_id,
        member.rebalance_timeout_ms,
        member.user_endpoint,
        member.client_id,
    )
    other_host = member.client_host
    if req.get("instance_id") is not None:
        member.instance_id = req.get("instance_id")
    if req.get("rack_id") is not None:
        member.rack_id = req.get("rack_id")
    if req["rebalance_timeout_ms"] != -1:
        member.rebalance_timeout_ms = req["rebalance_timeout_ms"]
    topology = req.get("topology")
    if topology is not None:
        member.topology_epoch = topology["epoch"]
    member.client_id = req.get("client_id") or ""
    member.client_host = host
    if req.get("process_id") is not None:
        member.process_id = req.get("process_id") or ""
    tags = req.get("client_tags")
    if tags is not None:
        member.client_tags = {t["key"]: t["value"] for t in tags}
    endpoint = endpoint_of(req)
    if req["member_epoch"] == 0 or endpoint is not None:
        member.user_endpoint = endpoint
    after = (member.topology_epoch, member.rack_id, member.client_tags, member.process_id)
    relevant = after != before
    if member.instance_id is not None:
        return relevant
    new_other = (
        member.instance_id,
        member.rebalance_timeout_ms,
        member.user_endpoint,
        member.client_id,
    )
    return relevant or new_other != other or member.client_host != other_host


def endpoint_of(req: StreamsGroupHeartbeatRequest) -> tuple[str, int] | None:
    endpoint = req.get("user_endpoint")
    return (endpoint["host"], endpoint["port"]) if endpoint is not None else None


def stored_topology(topology: Any) -> dict[str, Any]:
    """The request's topology as the StreamsGroupTopology record keeps it."""
    return {
        "epoch": topology["epoch"],
        "subtopologies": [
            {
                "subtopology_id": s["subtopology_id"],
                "source_topics": list(s["source_topics"]),
                "source_topic_regex": list(s["source_topic_regex"]),
                "state_changelog_topics": [_topic_info(t) for t in s["state_changelog_topics"]],
                "repartition_sink_topics": list(s["repartition_sink_topics"]),
                "repartition_source_topics": [
                    _topic_info(t) for t in s["repartition_source_topics"]
                ],
                "copartition_groups": [
                    {
                        "source_topics": list(g["source_topics"]),
                        "source_topic_regex": list(g["source_topic_regex"]),
                        "repartition_source_topics": list(g["repartition_source_topics"]),
                    }
                    for g in s["copartition_groups"]
                ],
            }
            for s in topology["subtopologies"]
        ],
    }


def _topic_info(t: Any) -> dict[str, Any]:
    return {
        "name": t["name"],
        "partitions": t["partitions"],
        "replication_factor": t["replication_factor"],
        "topic_configs": [{"key": c["key"], "value": c["value"]} for c in t["topic_configs"]],
    }


def task_offsets(raw: Any) -> dict[tuple[str, int], int]:
    return {(t["subtopology_id"], t["partition"]): t["offset"] for t in raw or []}


def _task_ids(tasks: Tasks) -> list[Any]:
    return streams_records.task_ids(tasks)


def response(
    settings: GroupSettings,
    group_id: str,
    sg: StreamsGroup,
    member: StreamsMember,
    req: StreamsGroupHeartbeatRequest,
    topics: Topics,
    with_tasks: bool,
) -> StreamsGroupHeartbeatResponse:
    out = error_response(0, None, member.member_id, member.member_epoch)
    out["heartbeat_interval_ms"] = settings.streams(group_id, "heartbeat.interval.ms")
    out["task_offset_interval_ms"] = settings.streams(group_id, "task.offset.interval.ms")
    out["acceptable_recovery_lag"] = settings.streams(group_id, "acceptable.recovery.lag")
    out["endpoint_information_epoch"] = sg.endpoint_epoch
    if with_tasks:
        assigned = member.assigned()
        out["active_tasks"] = _task_ids(assigned.active)
        out["standby_tasks"] = _task_ids(assigned.standby)
        out["warmup_tasks"] = _task_ids(assigned.warmup)
    if req["endpoint_information_epoch"] != sg.endpoint_epoch:
        out["partitions_by_user_endpoint"] = _endpoints(sg, topics)
    return out


def _endpoints(sg: StreamsGroup, topics: Topics) -> list[Any]:
    """Which partitions each member with an endpoint serves (interactive queries): task p of
    a subtopology is partition p of each of its input topics that has one."""
    configured = sg.configured
    subtopologies = configured.subtopologies if configured is not None else None
    out = []
    for m in sg.members.values():
        if m.user_endpoint is None:
            continue
        held = m.assigned()
        sides = []
        for tasks in (held.active, {**held.standby, **held.warmup}):
            by_topic: dict[str, set[int]] = {}
            for s, ps in tasks.items():
                sub = (subtopologies or {}).get(s)
                for topic in sub.input_topics() if sub is not None else ():
                    found = topics.by_name(topic)
                    count = found[1] if found is not None else 0
                    by_topic.setdefault(topic, set()).update(p for p in ps if p < count)
            sides.append(
                [{"topic": t, "partitions": sorted(ps)} for t, ps in sorted(by_topic.items())]
            )
        host, port = m.user_endpoint
        out.append(
            {
                "user_endpoint": {"host": host, "port": port},
                "active_partitions": sides[0],
                "standby_partitions": sides[1],
            }
        )
    return out


def topology_topics(topology: Any) -> list[str]:
    """Every topic a topology names: sources, repartition sinks and sources, changelogs."""
    names: set[str] = set()
    for s in topology["subtopologies"]:
        names.update(s["source_topics"])
        names.update(s["repartition_sink_topics"])
        names.update(t["name"] for t in s["repartition_source_topics"])
        names.update(t["name"] for t in s["state_changelog_topics"])
    return sorted(names)


def topology_refusal(topology: Any) -> tuple[int, str] | None:
    """KafkaApis' checks of a topology before the coordinator sees it: no internal topics,
    only valid topic names (STREAMS_INVALID_TOPOLOGY, with Kafka's messages)."""
    names = topology_topics(topology)
    code = errors.StreamsInvalidTopologyError.code
    internal = [n for n in names if is_internal(n)]
    if internal:
        used = ",".join(internal)
        return (
            code,
            f"Use of Kafka internal topics {used} in a Kafka Streams topology is prohibited.",
        )
    invalid = []
    for name in names:
        try:
            validate_topic_name(name)
        except errors.KafkaError:
            invalid.append(name)
    if invalid:
        return code, f"Topic names {','.join(invalid)} are not valid topic names."
    return None
