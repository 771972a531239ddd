"""ConsumerGroupHeartbeat (key 68), v0-1: the KIP-848 consumer group protocol
(`group.protocol=consumer`). One request joins, heartbeats, reconciles and leaves
(`ferrolog.controller.coordinator.group.consumer`). v0 members get their id from the
coordinator, v1 members bring their own (KIP-1082).

As Kafka: the API is always advertised, and answers UNSUPPORTED_VERSION until the
`group.version` feature is finalized at 1 or more (kafka-features upgrade). Before the
coordinator sees it, the principal needs READ on the group (else GROUP_AUTHORIZATION_FAILED)
and DESCRIBE on every topic it subscribes to by name (else TOPIC_AUTHORIZATION_FAILED, without
a message), as Kafka 4.1's `KafkaApis.handleConsumerGroupHeartbeat` checks them."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.controller.coordinator.api import HeartbeatCall, consumer_heartbeat_error
from ferrolog.handlers._groups import client_host, coordinator, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse,
)

API_KEY = ApiKey.CONSUMER_GROUP_HEARTBEAT
MIN_VERSION = 0
MAX_VERSION = 1
GROUP_VERSION = "group.version"


async def handle(
    ctx: RequestContext, request: ConsumerGroupHeartbeatRequest
) -> ConsumerGroupHeartbeatResponse:
    if ctx.broker.controller.finalized_features().levels.get(GROUP_VERSION, 0) < 1:
        return consumer_heartbeat_error(errors.UnsupportedVersionError.code)
    try:
        require_group(ctx, AclOperation.READ, request["group_id"])
        names = request.get("subscribed_topic_names") or []
        if len(ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, names)) < len(set(names)):
            return consumer_heartbeat_error(errors.TopicAuthorizationFailedError.code)
        req: HeartbeatCall = {**request, "version": ctx.api_version, "client_id": ctx.client_id}
        group_coordinator = coordinator(ctx)
        invalid = group_coordinator.validate_consumer_heartbeat(req)
        if invalid is not None:
            return consumer_heartbeat_error(*invalid)
        return await group_coordinator.consumer_group_heartbeat(req, client_host(ctx))
    except errors.KafkaError as exc:
        return consumer_heartbeat_error(exc.code, str(exc) or None)
