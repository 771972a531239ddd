"""IncrementalAlterConfigs (key 44), v0-1: SET, DELETE, APPEND and SUBTRACT on a topic's
config overrides; the other overrides stay as they are.

APPEND and SUBTRACT apply to list-typed configs only (cleanup.policy, ...), starting from the
topic's override or, without one, the broker default it inherits. Broker resources are refused
as in AlterConfigs (no dynamic broker configs)."""

from __future__ import annotations

from collections.abc import Sequence

from ferrolog import errors
from ferrolog.config import TOPIC_CONFIGS, ConfigType
from ferrolog.config.values import null_topic_configs, unknown_topic_config
from ferrolog.handlers.alter_configs import alter_each, check_config_names, refuse_broker_change
from ferrolog.handlers.context import RequestContext
from ferrolog.handlers.describe_configs import RESOURCE_BROKER, RESOURCE_TOPIC, check_topic_name
from ferrolog.protocol.messages import (
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsRequestAlterableConfig,
    IncrementalAlterConfigsRequestAlterConfigsResource,
    IncrementalAlterConfigsResponse,
)

API_KEY = 44
MIN_VERSION = 0
MAX_VERSION = 1

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def _current_list(ctx: RequestContext, overrides: dict[str, str], name: str) -> list[str]:
    value = overrides.get(name)
    if value is None:
        value = ctx.broker.config.topic_config({}).get(name, "")
    return [item.strip() for item in value.split(",") if item.strip()]


def apply_operations(
    ctx: RequestContext,
    overrides: dict[str, str],
    configs: Sequence[IncrementalAlterConfigsRequestAlterableConfig],
) -> dict[str, str]:
    """The overrides after the operations, in request order."""
    result = dict(overrides)
    for config in configs:
        name, op, value = config["name"], config["config_operation"], config.get("value")
        if op == DELETE:
            result.pop(name, None)
            continue
        if op not in (SET, APPEND, SUBTRACT):
            raise errors.InvalidRequestError(f"unknown config operation {op} for {name}")
        if value is None:
            raise null_topic_configs([name])
        if op == SET:
            result[name] = value
            continue
        definition = TOPIC_CONFIGS.get(name)
        if definition is None:
            raise unknown_topic_config(name)
        if definition.type != ConfigType.LIST:
            verb = "append" if op == APPEND else "subtract"
            raise errors.InvalidConfigError(f"config value {verb} is not allowed for {name}")
        items = _current_list(ctx, result, name)
        change = [item.strip() for item in value.split(",") if item.strip()]
        if op == APPEND:
            items += [item for item in change if item not in items]
        else:
            items = [item for item in items if item not in change]
        result[name] = ",".join(items)
    return result


async def _alter(
    ctx: RequestContext,
    resource: IncrementalAlterConfigsRequestAlterConfigsResource,
    validate_only: bool,
) -> None:
    resource_type, name = resource["resource_type"], resource["resource_name"]
    configs = resource.get("configs") or []
    check_config_names(configs)
    if resource_type == RESOURCE_BROKER:
        # Deleting a dynamic broker config that was never set changes nothing, so it
        # succeeds, as on Kafka (kafka-reassign-partitions --verify clears the replication
        # throttles that way); anything that would set one is refused.
        sets = [c for c in configs if c["config_operation"] != DELETE]
        refuse_broker_change(ctx, name, sets)
        return
    if resource_type != RESOURCE_TOPIC:
        raise errors.InvalidRequestError(f"altering resource type {resource_type} is not supported")
    check_topic_name(name)
    # The controller applies the operations to the overrides it holds, atomically with other
    # changes of the topic, so concurrent requests do not lose each other's changes.
    await ctx.broker.controller.alter_topic_configs(
        name, lambda overrides: apply_operations(ctx, overrides, configs), validate_only
    )


async def handle(
    ctx: RequestContext, request: IncrementalAlterConfigsRequest
) -> IncrementalAlterConfigsResponse:
    resources = request.get("resources") or []
    return await alter_each(ctx, resources, bool(request.get("validate_only")), _alter)
