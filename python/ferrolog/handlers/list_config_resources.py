"""ListConfigResources (key 74), v0-1 (KIP-1142; v0 was ListClientMetricsResources): the
resources that have configs, by type, as Kafka 4.4's broker lists them. Kafka's
`kafka-configs --describe` asks it to find every group with configs, and a group that has
configs but no members.

Of the types v1 knows (topic, broker, broker logger, client metrics, group), an empty list
asks for all of them (v0: client metrics only); a type outside them answers
UNSUPPORTED_VERSION and nothing else. Listed, in Kafka's order: the groups that have configs
of their own, the client-metrics resources (ferrolog keeps none: KIP-714's client metrics are
not served), each broker as a broker logger and as a broker, and every topic. Needs
DESCRIBE_CONFIGS on the cluster."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import AclOperation
from ferrolog.handlers._resources import ConfigResourceType
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    ListConfigResourcesRequest,
    ListConfigResourcesResponse,
    ListConfigResourcesResponseConfigResource,
)

API_KEY = ApiKey.LIST_CONFIG_RESOURCES
MIN_VERSION = 0
MAX_VERSION = 1

# The types each version lists (v0: client metrics only).
_SUPPORTED = {0: (ConfigResourceType.CLIENT_METRICS,), 1: tuple(ConfigResourceType)}


def _answer(
    error: int, listed: list[ListConfigResourcesResponseConfigResource]
) -> ListConfigResourcesResponse:
    return {"throttle_time_ms": 0, "error_code": error, "config_resources": listed}


async def handle(
    ctx: RequestContext, request: ListConfigResourcesRequest
) -> ListConfigResourcesResponse:
    if not ctx.authorize_cluster(AclOperation.DESCRIBE_CONFIGS):
        return _answer(errors.ClusterAuthorizationFailedError.code, [])
    supported = _SUPPORTED[min(ctx.api_version, 1)]
    wanted = set(request.get("resource_types") or supported)
    if not wanted <= set(supported):
        return _answer(errors.UnsupportedVersionError.code, [])
    controller = ctx.broker.controller
    brokers = sorted(
        {b.node_id for b in controller.brokers().values() if b.endpoint(ctx.listener_name)}
        | {ctx.broker.node_id}
    )
    names: list[tuple[int, list[str]]] = [
        (ConfigResourceType.GROUP, sorted(controller.group_configs.all())),
        (ConfigResourceType.CLIENT_METRICS, []),
        (ConfigResourceType.BROKER_LOGGER, [str(b) for b in brokers]),
        (ConfigResourceType.BROKER, [str(b) for b in brokers]),
        (ConfigResourceType.TOPIC, sorted(controller.topics())),
    ]
    listed: list[ListConfigResourcesResponseConfigResource] = [
        {"resource_name": name, "resource_type": kind}
        for kind, found in names
        if kind in wanted
        for name in found
    ]
    return _answer(0, listed)
