"""ListGroups (key 16), v0-5: the groups this broker coordinates, filtered by state (v4+)
and type (v5+: "classic", or "consumer" for KIP-848 groups)."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers._groups import coordinator
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, ListGroupsRequest, ListGroupsResponse

API_KEY = ApiKey.LIST_GROUPS
MIN_VERSION = 0
MAX_VERSION = 5


async def handle(ctx: RequestContext, request: ListGroupsRequest) -> ListGroupsResponse:
    states = {s.lower() for s in request.get("states_filter") or []}
    types = {t.lower() for t in request.get("types_filter") or []}
    listed, loading = coordinator(ctx).list_groups()
    groups = [
        g
        for g in listed
        if (not states or g["group_state"].lower() in states)
        and (not types or g["group_type"] in types)
    ]
    # As Kafka: DESCRIBE on the cluster lists every group, else those the principal may
    # DESCRIBE.
    if not ctx.authorize_cluster(AclOperation.DESCRIBE):
        visible = ctx.authorized(
            AclOperation.DESCRIBE, ResourceType.GROUP, [g["group_id"] for g in groups]
        )
        groups = [g for g in groups if g["group_id"] in visible]
    code = errors.CoordinatorLoadInProgressError.code if loading else 0
    return {"throttle_time_ms": 0, "error_code": code, "groups": groups}
