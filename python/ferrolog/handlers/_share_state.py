"""What the five share-state handlers (Initialize, Read, Write, Delete, ReadSummary
ShareGroupState) share: brokers send them to the share coordinator, so each needs
CLUSTER_ACTION (else every partition is CLUSTER_AUTHORIZATION_FAILED), an empty group or
topic list is answered with no results, and each partition is asked on its own, as Kafka's
ShareCoordinatorService does, then answered per topic."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.controller.coordinator.api import ShareCoordinatorApi, SharePartitionKey, ShareState
from ferrolog.handlers.context import NATIVE_PEER, RequestContext
from ferrolog.protocol.messages import Api, ApiKey, Apis

Result = dict[str, Any]
T = TypeVar("T")
# What a handler asks of one partition: (share coordinator, key, the request's partition
# entry) -> the partition's result fields (error_code and error_message included).
PerPartition = Callable[
    [ShareCoordinatorApi, SharePartitionKey, Mapping[str, Any]], Awaitable[Result]
]


# What the native core asks (the others come only from other brokers' coordinators).
_APIS: dict[int, Api[Any, Any]] = {
    ApiKey.READ_SHARE_GROUP_STATE: Apis.READ_SHARE_GROUP_STATE,
    ApiKey.WRITE_SHARE_GROUP_STATE: Apis.WRITE_SHARE_GROUP_STATE,
}


def coordinator(ctx: RequestContext) -> ShareCoordinatorApi:
    found = ctx.broker.share_coordinator
    if found is None:
        raise RuntimeError("the broker has no share coordinator")
    return found


def failed(code: int, message: str | None = None) -> Result:
    return {"error_code": code, "error_message": message}


async def serve(
    ctx: RequestContext, request: Mapping[str, Any], per_partition: PerPartition
) -> list[dict[str, Any]]:
    """The `results` of a share-state request: each topic with each partition's answer."""
    topics: Sequence[Mapping[str, Any]] = request.get("topics") or []
    group_id = request.get("group_id") or ""
    if ctx.peer == NATIVE_PEER and ctx.broker.share_persister is not None:
        return await _from_native(ctx, request, per_partition)
    if not ctx.authorize_cluster(AclOperation.CLUSTER_ACTION):
        code = errors.ClusterAuthorizationFailedError.code
        return [
            {
                "topic_id": t["topic_id"],
                "partitions": [
                    {"partition": p["partition"], **failed(code)} for p in t["partitions"]
                ],
            }
            for t in topics
        ]
    if not group_id or not topics or any(not t["partitions"] for t in topics):
        return []
    share = coordinator(ctx)
    results = []
    for t in topics:
        topic_id = bytes(t["topic_id"])
        answers = await asyncio.gather(
            *(
                per_partition(share, (group_id, topic_id, p["partition"]), p)
                for p in t["partitions"]
            )
        )
        partitions = [
            {"partition": p["partition"], **answer}
            for p, answer in zip(t["partitions"], answers, strict=True)
        ]
        results.append({"topic_id": topic_id, "partitions": partitions})
    return results


async def _from_native(
    ctx: RequestContext, request: Mapping[str, Any], per_partition: PerPartition
) -> list[dict[str, Any]]:
    """A read or write of the native core's share-partitions (this broker leads them): asked
    of each share-partition's share coordinator, this broker's own or another's."""
    persister = ctx.broker.share_persister
    assert persister is not None
    group_id = request["group_id"]
    api = _APIS[ctx.api_key]
    results = []
    for t in request.get("topics") or []:
        topic_id = bytes(t["topic_id"])
        entries = {p["partition"]: p for p in t["partitions"]}

        async def local(
            p: int, entries: dict[int, Any] = entries, topic_id: bytes = topic_id
        ) -> Result:
            return await per_partition(coordinator(ctx), (group_id, topic_id, p), entries[p])

        answers = await persister.route(
            group_id, topic_id, list(entries), local, entries.__getitem__, api, ctx.api_version
        )
        partitions = [{"partition": p, **answers[p]} for p in entries]
        results.append({"topic_id": topic_id, "partitions": partitions})
    return results


def state_fields(state: ShareState | None) -> Result:
    """A state's fields as Read and ReadSummary answer them (a share-partition without
    state: never initialized)."""
    if state is None:
        return {
            "state_epoch": 0,
            "leader_epoch": 0,
            "start_offset": -1,
            "delivery_complete_count": -1,
        }
    return {
        "state_epoch": state.state_epoch,
        "leader_epoch": state.leader_epoch,
        "start_offset": state.start_offset,
        "delivery_complete_count": state.delivery_complete_count,
    }
