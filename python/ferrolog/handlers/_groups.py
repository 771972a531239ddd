"""What the group-API handlers share: the broker's group coordinator and the client host
Kafka reports for a member ("/<address>")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers.context import RequestContext

if TYPE_CHECKING:
    from ferrolog.controller.coordinator.api import GroupCoordinatorApi


def coordinator(ctx: RequestContext) -> GroupCoordinatorApi:
    coordinator = ctx.broker.group_coordinator
    if coordinator is None:
        raise RuntimeError("the broker has no group coordinator")
    return coordinator


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
