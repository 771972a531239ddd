"""What the group-API handlers share: the broker's group coordinator and the client host
Kafka reports for a member ("/<address>")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ferrolog.handlers.context import RequestContext

if TYPE_CHECKING:
    from ferrolog.controller.coordinator.group.coordinator import GroupCoordinator


def coordinator(ctx: RequestContext) -> GroupCoordinator:
    coordinator = ctx.broker.group_coordinator
    if coordinator is None:
        raise RuntimeError("the broker has no group coordinator")
    return coordinator


def client_host(ctx: RequestContext) -> str:
    host = ctx.peer.rsplit(":", 1)[0].strip("[]")
    return f"/{host}"
