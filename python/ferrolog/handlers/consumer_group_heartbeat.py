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

from collections.abc import Callable
from typing import TYPE_CHECKING

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.controller.coordinator.group import consumer
from ferrolog.handlers._groups import client_host, consumer_group_topics, coordinator, require_group
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse,
)

if TYPE_CHECKING:
    from ferrolog.controller.coordinator.group.shard import GroupShard

API_KEY = 68
MIN_VERSION = 0
MAX_VERSION = 1
GROUP_VERSION = "group.version"


async def handle(
    ctx: RequestContext, request: ConsumerGroupHeartbeatRequest
) -> ConsumerGroupHeartbeatResponse:
    if ctx.broker.controller.finalized_features().levels.get(GROUP_VERSION, 0) < 1:
        return consumer.error_response(errors.UnsupportedVersionError.code)
    try:
        require_group(ctx, AclOperation.READ, request["group_id"])
        names = request.get("subscribed_topic_names") or []
        if len(ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, names)) < len(set(names)):
            return consumer.error_response(errors.TopicAuthorizationFailedError.code)
        req: consumer.HeartbeatCall = {
            **request,
            "version": ctx.api_version,
            "client_id": ctx.client_id,
        }
        invalid = consumer.validate(req, list(coordinator(ctx).settings.consumer_assignors))
        if invalid is not None:
            return consumer.error_response(*invalid)
        topics = consumer_group_topics(ctx)
        host = client_host(ctx)

        def operation(
            shard: GroupShard, reply: Callable[[ConsumerGroupHeartbeatResponse], None]
        ) -> None:
            # The answer goes once what the heartbeat changed is in the log.
            response = consumer.heartbeat(shard, req, now_ms(), topics, host)
            shard.when_written(
                lambda error: reply(consumer.error_response(error) if error else response)
            )

        response: ConsumerGroupHeartbeatResponse = await coordinator(ctx).run(
            request["group_id"], operation
        )
    except errors.KafkaError as exc:
        return consumer.error_response(exc.code, str(exc) or None)
    return response
