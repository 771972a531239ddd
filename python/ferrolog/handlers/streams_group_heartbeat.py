"""StreamsGroupHeartbeat (key 88), v0-1: KIP-1071 streams groups (Kafka Streams with
`group.protocol=streams`). One request joins with the application's topology, heartbeats,
reports the tasks the member owns and leaves (`ferrolog.controller.coordinator.group.streams`).

As Kafka 4.4: the API is always advertised, and answers UNSUPPORTED_VERSION until the
`streams.version` feature is finalized at 1 or more. Before the coordinator sees it, the
principal needs READ on the group (else GROUP_AUTHORIZATION_FAILED); a topology may name no
internal and no invalid topic (STREAMS_INVALID_TOPOLOGY) and needs DESCRIBE on every topic it
names (else TOPIC_AUTHORIZATION_FAILED), as `KafkaApis.handleStreamsGroupHeartbeat` checks. The
internal topics the group lacks are created for it when the principal may CREATE them."""

from __future__ import annotations

from collections.abc import Sequence

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.controller.coordinator.api import (
    StreamsHeartbeatCall,
    streams_heartbeat_error,
    topology_refusal,
    topology_topics,
)
from ferrolog.handlers._groups import client_host, coordinator, streams_groups_enabled
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    StreamsGroupHeartbeatRequest,
    StreamsGroupHeartbeatResponse,
)

API_KEY = ApiKey.STREAMS_GROUP_HEARTBEAT
MIN_VERSION = 0
MAX_VERSION = 1


async def handle(
    ctx: RequestContext, request: StreamsGroupHeartbeatRequest
) -> StreamsGroupHeartbeatResponse:
    if not streams_groups_enabled(ctx):
        return streams_heartbeat_error(errors.UnsupportedVersionError.code)
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request["group_id"]):
        return streams_heartbeat_error(errors.GroupAuthorizationFailedError.code)
    topology = request.get("topology")
    if topology is not None:
        refusal = topology_refusal(topology)
        if refusal is not None:
            return streams_heartbeat_error(*refusal)
        names = topology_topics(topology)
        if len(ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, names)) < len(names):
            return streams_heartbeat_error(errors.TopicAuthorizationFailedError.code)

    def may_create(topics: Sequence[str]) -> bool:
        # As Kafka: CREATE on the cluster, or else on each topic.
        if ctx.authorize_cluster(AclOperation.CREATE):
            return True
        return len(ctx.authorized(AclOperation.CREATE, ResourceType.TOPIC, topics)) == len(topics)

    req: StreamsHeartbeatCall = {**request, "client_id": ctx.client_id}
    try:
        return await coordinator(ctx).streams_group_heartbeat(req, client_host(ctx), may_create)
    except errors.KafkaError as exc:
        return streams_heartbeat_error(exc.code, exc.message)
