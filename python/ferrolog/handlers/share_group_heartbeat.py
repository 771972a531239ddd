"""ShareGroupHeartbeat (key 76), v1: KIP-932 share groups (`KafkaShareConsumer`). One request
joins, heartbeats and leaves (`ferrolog.controller.coordinator.group.share`); the member brings
its own id.

As Kafka 4.4: the API is always advertised, and answers UNSUPPORTED_VERSION until the
`share.version` feature is finalized at 1 or more. Before the coordinator sees it, the principal
needs READ on the group (else GROUP_AUTHORIZATION_FAILED), the member id must be set and at
most 36 characters (else INVALID_REQUEST), and DESCRIBE on every topic it subscribes to (else
TOPIC_AUTHORIZATION_FAILED), each without a message, as `KafkaApis.handleShareGroupHeartbeat`
answers them."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.controller.coordinator.api import (
    ShareHeartbeatCall,
    share_heartbeat_error,
    valid_member_id,
)
from ferrolog.handlers._groups import client_host, coordinator, share_groups_enabled
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    ShareGroupHeartbeatRequest,
    ShareGroupHeartbeatResponse,
)

API_KEY = ApiKey.SHARE_GROUP_HEARTBEAT
MIN_VERSION = 1
MAX_VERSION = 1


async def handle(
    ctx: RequestContext, request: ShareGroupHeartbeatRequest
) -> ShareGroupHeartbeatResponse:
    if not share_groups_enabled(ctx):
        return share_heartbeat_error(errors.UnsupportedVersionError.code)
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request["group_id"]):
        return share_heartbeat_error(errors.GroupAuthorizationFailedError.code)
    if not valid_member_id(request["member_id"]):
        return share_heartbeat_error(errors.InvalidRequestError.code)
    names = request.get("subscribed_topic_names") or []
    if len(ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, names)) < len(set(names)):
        return share_heartbeat_error(errors.TopicAuthorizationFailedError.code)
    req: ShareHeartbeatCall = {**request, "client_id": ctx.client_id}
    try:
        return await coordinator(ctx).share_group_heartbeat(req, client_host(ctx))
    except errors.KafkaError as exc:
        return share_heartbeat_error(exc.code, exc.message)
