"""What the group-API handlers share: the broker's group coordinator and the client host
Kafka reports for a member ("/<address>")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol import ZERO_UUID

if TYPE_CHECKING:
    from ferrolog.controller.coordinator.api import GroupCoordinatorApi


def coordinator(ctx: RequestContext) -> GroupCoordinatorApi:
    coordinator = ctx.broker.group_coordinator
    if coordinator is None:
        raise RuntimeError("the broker has no group coordinator")
    return coordinator


SHARE_VERSION = "share.version"
STREAMS_VERSION = "streams.version"


def share_groups_enabled(ctx: RequestContext) -> bool:
    """Whether share groups are on: `share.version` finalized at 1 or more, as Kafka 4.4."""
    return ctx.broker.controller.finalized_features().levels.get(SHARE_VERSION, 0) >= 1


def streams_groups_enabled(ctx: RequestContext) -> bool:
    """Whether streams groups are on: `streams.version` finalized at 1 or more, as Kafka 4.4."""
    return ctx.broker.controller.finalized_features().levels.get(STREAMS_VERSION, 0) >= 1


def share_offsets_refusal(
    ctx: RequestContext, group_id: str, operation: AclOperation
) -> errors.KafkaError | None:
    """Why an AlterShareGroupOffsets or DeleteShareGroupOffsets is refused as a whole, in
    Kafka 4.4's words (None: it is not)."""
    if not share_groups_enabled(ctx):
        return errors.UnsupportedVersionError("The version of API is not supported.")
    if not ctx.authorize(operation, ResourceType.GROUP, group_id):
        return errors.GroupAuthorizationFailedError("Group authorization failed.")
    if not group_id:
        return errors.InvalidGroupIdError()
    return None


def require_group(ctx: RequestContext, operation: AclOperation, group_id: str) -> None:
    """Raises GROUP_AUTHORIZATION_FAILED unless the principal may do `operation` on the
    group (READ to take part and commit, DESCRIBE to look, DELETE to delete)."""
    if not ctx.authorize(operation, ResourceType.GROUP, group_id):
        raise errors.GroupAuthorizationFailedError(f"not authorized to access group {group_id}")


def readable_topics(ctx: RequestContext, names: list[str]) -> set[str]:
    """Those of `names` the principal may READ (committing or deleting their offsets)."""
    return ctx.authorized(AclOperation.READ, ResourceType.TOPIC, names)


def client_host(ctx: RequestContext) -> str:
    host = ctx.peer.rsplit(":", 1)[0].strip("[]")
    return f"/{host}"


def topic_name(ctx: RequestContext, topic_id: bytes) -> str | None:
    """The name of the topic with `topic_id` (OffsetCommit and OffsetFetch v10 name topics by
    id, KIP-516); None for an id no topic has."""
    record = ctx.broker.controller.topic_by_id(bytes(topic_id))
    return record.name if record is not None else None


def topic_id(ctx: RequestContext, name: str) -> bytes | None:
    """The id of topic `name`; None for a topic that no longer exists."""
    record = ctx.broker.controller.topic(name)
    return record.topic_id if record is not None else None


Request = TypeVar("Request", bound=Mapping[str, Any])
Response = TypeVar("Response", bound=Mapping[str, Any])


async def by_topic_id(
    ctx: RequestContext, request: Request, commit: Callable[[Request], Awaitable[Response]]
) -> Response:
    """Serves a commit that names its topics by id (OffsetCommit v10, TxnOffsetCommit v6)
    with `commit`, which takes them by name: the answer names each topic by id again, and
    every partition of an id no topic has is answered UNKNOWN_TOPIC_ID, nothing committed."""
    named: list[dict[str, Any]] = []
    unknown: list[Mapping[str, Any]] = []
    for t in request.get("topics") or []:
        name = topic_name(ctx, t["topic_id"])
        if name is None:
            unknown.append(t)
        else:
            named.append({**t, "name": name})
    response: Any = await commit(cast(Request, {**request, "topics": named}))
    ids = {t["name"]: t["topic_id"] for t in named}
    for topic in response["topics"]:
        topic["topic_id"] = ids.get(topic.get("name", ""), ZERO_UUID)
    code = errors.UnknownTopicIdError.code
    response["topics"].extend(
        {
            "name": "",
            "topic_id": t["topic_id"],
            "partitions": [
                {"partition_index": p["partition_index"], "error_code": code}
                for p in t["partitions"]
            ],
        }
        for t in unknown
    )
    return cast(Response, response)
