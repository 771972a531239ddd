"""FindCoordinator (key 10), v0-4: the broker leading the group's `__consumer_offsets`
partition, creating that topic on first use as Kafka does. v4 batches several keys.
Transaction coordinators (key type 1) do not exist yet: COORDINATOR_NOT_AVAILABLE, which
clients retry."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import CONSUMER_OFFSETS
from ferrolog.controller.coordinator.group.coordinator import partition_for
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    FindCoordinatorResponseCoordinator,
)

API_KEY = 10
MIN_VERSION = 0
MAX_VERSION = 4

GROUP_KEY = 0
TRANSACTION_KEY = 1


async def _find(ctx: RequestContext, key: str, key_type: int) -> FindCoordinatorResponseCoordinator:
    def error(exc: errors.KafkaError) -> FindCoordinatorResponseCoordinator:
        return {
            "key": key,
            "node_id": -1,
            "host": "",
            "port": -1,
            "error_code": exc.code,
            "error_message": exc.message,
        }

    if key_type == TRANSACTION_KEY:
        return error(errors.CoordinatorNotAvailableError("transactions are not supported yet"))
    if key_type != GROUP_KEY:
        return error(errors.InvalidRequestError(f"unknown coordinator key type {key_type}"))
    controller = ctx.broker.controller
    try:
        topic = await controller.ensure_internal_topic(CONSUMER_OFFSETS)
    except errors.KafkaError as exc:
        return error(
            errors.CoordinatorNotAvailableError(f"cannot create {CONSUMER_OFFSETS}: {exc}")
        )
    partition = partition_for(key, len(topic.assignment))
    state = controller.partition_states(CONSUMER_OFFSETS).get(partition)
    broker = controller.brokers().get(state.leader) if state is not None else None
    if broker is None:
        return error(errors.CoordinatorNotAvailableError("the group's partition has no leader"))
    return {
        "key": key,
        "node_id": broker.node_id,
        "host": broker.host,
        "port": broker.port,
        "error_code": 0,
        "error_message": None,
    }


async def handle(ctx: RequestContext, request: FindCoordinatorRequest) -> FindCoordinatorResponse:
    key_type = request.get("key_type", GROUP_KEY)
    if ctx.api_version >= 4:
        found = [await _find(ctx, key, key_type) for key in request.get("coordinator_keys") or []]
        return {"throttle_time_ms": 0, "coordinators": found}
    answer = await _find(ctx, request.get("key") or "", key_type)
    # v0-3 answer for the one key asked about in the body itself, which names no key.
    return {
        "throttle_time_ms": 0,
        "error_code": answer["error_code"],
        "error_message": answer["error_message"],
        "node_id": answer["node_id"],
        "host": answer["host"],
        "port": answer["port"],
    }
