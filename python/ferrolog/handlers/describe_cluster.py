"""DescribeCluster (key 60), v0-2: the brokers, the controller and the cluster id.

Only brokers answer here: a v1 request that asks for the controller endpoints gets
MISMATCHED_ENDPOINT_TYPE, as a Kafka broker's listener would give. v2's
`include_fenced_brokers` asks for fenced brokers too (KIP-1073); under ZooKeeper a broker is
listed once it has registered and gone once its session ends, so none is ever fenced and the
list is the same either way (`is_fenced` false)."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.handlers._acls import NOT_REQUESTED, cluster_operations
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeClusterRequest,
    DescribeClusterResponse,
    DescribeClusterResponseDescribeClusterBroker,
)

API_KEY = ApiKey.DESCRIBE_CLUSTER
MIN_VERSION = 0
MAX_VERSION = 2

ENDPOINT_BROKER = 1
ENDPOINT_CONTROLLER = 2


def _error(exc: errors.KafkaError) -> DescribeClusterResponse:
    return {
        "throttle_time_ms": 0,
        "error_code": exc.code,
        "error_message": exc.message,
        "endpoint_type": ENDPOINT_BROKER,
        "cluster_id": "",
        "controller_id": -1,
        "brokers": [],
        "cluster_authorized_operations": NOT_REQUESTED,
    }


async def handle(ctx: RequestContext, request: DescribeClusterRequest) -> DescribeClusterResponse:
    endpoint = request.get("endpoint_type", ENDPOINT_BROKER) if ctx.api_version >= 1 else 1
    if endpoint == ENDPOINT_CONTROLLER:
        return _error(
            errors.MismatchedEndpointTypeError(
                "this is a broker endpoint; ferrolog has no separate controller endpoints"
            )
        )
    if endpoint != ENDPOINT_BROKER:
        return _error(errors.UnsupportedEndpointTypeError(f"unknown endpoint type {endpoint}"))
    registered = ctx.broker.controller.brokers()
    # Each broker's endpoint on the client's listener, as Metadata gives them.
    brokers: list[DescribeClusterResponseDescribeClusterBroker] = [
        {"broker_id": b.node_id, "host": e.host, "port": e.port, "rack": b.rack, "is_fenced": False}
        for b in sorted(registered.values(), key=lambda b: b.node_id)
        if (e := b.endpoint(ctx.listener_name)) is not None
    ]
    if ctx.broker.node_id not in registered:
        # Between start and registration a broker still knows where it is itself.
        brokers.append(
            {
                "broker_id": ctx.broker.node_id,
                "host": ctx.broker.advertised_host,
                "port": ctx.broker.advertised_port,
                "rack": None,
                "is_fenced": False,
            }
        )
        brokers.sort(key=lambda b: int(b["broker_id"]))
    include_operations = request.get("include_cluster_authorized_operations", False)
    return {
        "throttle_time_ms": 0,
        "error_code": 0,
        "error_message": None,
        "endpoint_type": ENDPOINT_BROKER,
        "cluster_id": ctx.broker.cluster_id,
        "controller_id": ctx.broker.controller.controller_id,
        "brokers": brokers,
        "cluster_authorized_operations": (
            cluster_operations(ctx) if include_operations else NOT_REQUESTED
        ),
    }
