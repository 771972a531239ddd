"""FindCoordinator (key 10), v0-6: the broker leading the key's partition of its internal
topic (key type 0, a group: `__consumer_offsets`; key type 1, a transactional id:
`__transaction_state`), creating that topic on first use as Kafka does. v4 batches several
keys; v5 only tells that the client knows TRANSACTION_ABORTABLE, which this API never answers.
v6's key type 2 asks brokers for a share coordinator (`group:topicId:partition`, KIP-932,
`__share_group_state`): as Kafka, only with CLUSTER_ACTION (CLUSTER_AUTHORIZATION_FAILED for
every key otherwise), and INVALID_REQUEST for a malformed key or before v6."""

from __future__ import annotations

from ferrolog import errors
from ferrolog.controller.api import (
    CONSUMER_OFFSETS,
    SHARE_GROUP_STATE,
    TRANSACTION_STATE,
    AclOperation,
    ResourceType,
)
from ferrolog.controller.coordinator.api import (
    coordinator_key,
    parse_coordinator_key,
    partition_for,
)
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    FindCoordinatorResponseCoordinator,
)

API_KEY = ApiKey.FIND_COORDINATOR
MIN_VERSION = 0
MAX_VERSION = 6

GROUP_KEY = 0
TRANSACTION_KEY = 1
SHARE_KEY = 2
SHARE_KEY_VERSION = 6
TOPICS = {
    GROUP_KEY: CONSUMER_OFFSETS,
    TRANSACTION_KEY: TRANSACTION_STATE,
    SHARE_KEY: SHARE_GROUP_STATE,
}


def _error(key: str, exc: errors.KafkaError) -> FindCoordinatorResponseCoordinator:
    return {
        "key": key,
        "node_id": -1,
        "host": "",
        "port": -1,
        "error_code": exc.code,
        "error_message": exc.message,
    }


async def _find(ctx: RequestContext, key: str, key_type: int) -> FindCoordinatorResponseCoordinator:
    def error(exc: errors.KafkaError) -> FindCoordinatorResponseCoordinator:
        return _error(key, exc)

    hashed = key
    if key_type == SHARE_KEY:
        if ctx.api_version < SHARE_KEY_VERSION:
            return error(errors.InvalidRequestError(None))
        try:
            # Hashed in its canonical form, as Kafka re-formats the parsed key.
            hashed = coordinator_key(*parse_coordinator_key(key))
        except ValueError:
            return error(errors.InvalidRequestError(None))
    name = TOPICS.get(key_type)
    if name is None:
        return error(errors.InvalidRequestError(f"unknown coordinator key type {key_type}"))
    # As Kafka: DESCRIBE on the group or the transactional id.
    if key_type == GROUP_KEY and not ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, key):
        return error(errors.GroupAuthorizationFailedError())
    if key_type == TRANSACTION_KEY and not ctx.authorize(
        AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key
    ):
        return error(errors.TransactionalIdAuthorizationFailedError())
    controller = ctx.broker.controller
    try:
        topic = await controller.ensure_internal_topic(name)
    except errors.KafkaError as exc:
        return error(errors.CoordinatorNotAvailableError(f"cannot create {name}: {exc}"))
    partition = partition_for(hashed, len(topic.assignment))
    state = controller.partition_states(name).get(partition)
    broker = controller.brokers().get(state.leader) if state is not None else None
    if broker is None:
        return error(errors.CoordinatorNotAvailableError(f"{name}-{partition} has no leader"))
    # The coordinator's address on the client's listener, as Metadata gives it.
    endpoint = broker.endpoint(ctx.listener_name)
    if endpoint is None:
        return error(
            errors.CoordinatorNotAvailableError(
                f"broker {broker.node_id} has no listener {ctx.listener_name}"
            )
        )
    return {
        "key": key,
        "node_id": broker.node_id,
        "host": endpoint.host,
        "port": endpoint.port,
        "error_code": 0,
        "error_message": None,
    }


async def handle(ctx: RequestContext, request: FindCoordinatorRequest) -> FindCoordinatorResponse:
    key_type = request.get("key_type", GROUP_KEY)
    if ctx.api_version >= 4:
        keys = request.get("coordinator_keys") or []
        if key_type == SHARE_KEY and not ctx.authorize_cluster(AclOperation.CLUSTER_ACTION):
            # Brokers ask for share coordinators: the whole request is refused.
            found = [_error(key, errors.ClusterAuthorizationFailedError()) for key in keys]
        else:
            found = [await _find(ctx, key, key_type) for key in keys]
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
