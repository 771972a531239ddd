"""JoinGroup (key 11), v0-9: the classic group protocol's join phase. The answer waits for
the rebalance (see `ferrolog.controller.coordinator.group.membership`)."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.api import AclOperation
from ferrolog.controller.coordinator.group import membership, responses
from ferrolog.handlers._groups import (
    client_host,
    consumer_group_topics,
    coordinator,
    require_group,
)
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import JoinGroupRequest, JoinGroupResponse

API_KEY = 11
MIN_VERSION = 0
MAX_VERSION = 9
# v7 made the protocol name nullable; before, an error carries "".
NULLABLE_PROTOCOL_VERSION = 7


async def handle(ctx: RequestContext, request: JoinGroupRequest) -> JoinGroupResponse:
    req: membership.JoinCall = {**request, "version": ctx.api_version, "client_id": ctx.client_id}
    host = client_host(ctx)
    # A classic member joining a consumer group needs the topics (Kafka's online migration).
    topics = consumer_group_topics(ctx)
    try:
        require_group(ctx, AclOperation.READ, request["group_id"])
        response: JoinGroupResponse = await coordinator(ctx).run(
            request["group_id"],
            lambda shard, reply: membership.join(shard, req, now_ms(), reply, host, topics),
        )
    except errors.KafkaError as exc:
        response = responses.join_response(exc.code, request.get("member_id") or "")
    if ctx.api_version < NULLABLE_PROTOCOL_VERSION and response["protocol_name"] is None:
        response = {**response, "protocol_name": ""}
    return response
