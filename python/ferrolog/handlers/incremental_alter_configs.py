"""IncrementalAlterConfigs (key 44), v0-1: SET, DELETE, APPEND and SUBTRACT on a topic's
config overrides, on the dynamic configs of a broker resource (this broker's id, or "" for
the cluster default), or on a group's configs (resource type GROUP, KIP-848); the other
configs stay as they are.

APPEND and SUBTRACT apply to list-typed configs only (cleanup.policy, ...), starting from the
current value or, without one, the default: for a topic the broker default it inherits, for a
broker the table's default (as Kafka starts from its config definition's default)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ferrolog import errors
from ferrolog.config import BROKER_CONFIGS, TOPIC_CONFIGS, ConfigType
from ferrolog.config.table import GROUP_CONFIGS, ConfigDef
from ferrolog.config.values import null_topic_configs, unknown_topic_config
from ferrolog.handlers._resources import ConfigResourceType
from ferrolog.handlers.alter_configs import alter_each
from ferrolog.handlers.context import RequestContext
from ferrolog.handlers.describe_configs import (
    check_broker_name,
    check_group_name,
    check_topic_name,
)
from ferrolog.protocol.messages import (
    ApiKey,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsRequestAlterableConfig,
    IncrementalAlterConfigsRequestAlterConfigsResource,
    IncrementalAlterConfigsResponse,
)

API_KEY = ApiKey.INCREMENTAL_ALTER_CONFIGS
MIN_VERSION = 0
MAX_VERSION = 1

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def apply_operations(
    current: dict[str, str],
    configs: Sequence[IncrementalAlterConfigsRequestAlterableConfig],
    definitions: Mapping[str, ConfigDef],
    default: Callable[[str], str | None],
) -> dict[str, str]:
    """The configs after the operations, in request order. `definitions` says which are
    lists; `default(name)` is where APPEND and SUBTRACT start without a current value."""
    result = dict(current)
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
        definition = definitions.get(name)
        if definition is None and definitions is TOPIC_CONFIGS:
            raise unknown_topic_config(name)
        if definition is None or definition.type != ConfigType.LIST:
            verb = "append" if op == APPEND else "subtract"
            raise errors.InvalidConfigError(f"config value {verb} is not allowed for {name}")
        start = result.get(name, default(name) or "")
        items = [item.strip() for item in start.split(",") if item.strip()]
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
    if resource_type == ConfigResourceType.BROKER:
        broker = check_broker_name(ctx, name)

        def table_default(config: str) -> str | None:
            definition = BROKER_CONFIGS.get(config)
            return None if definition is None else definition.default

        await ctx.broker.controller.broker_configs.alter(
            broker,
            lambda current: apply_operations(current, configs, BROKER_CONFIGS, table_default),
            validate_only,
        )
        return
    if resource_type == ConfigResourceType.GROUP:
        check_group_name(name)
        # Kafka names every null value at once, before anything else.
        nulls = [
            c["name"] for c in configs if c["config_operation"] != DELETE and c["value"] is None
        ]
        if nulls:
            raise errors.InvalidConfigError(
                f"Null value not supported for group configs: {','.join(nulls)}"
            )
        defaults = ctx.broker.controller.group_configs.defaults()
        await ctx.broker.controller.group_configs.alter(
            name,
            lambda current: apply_operations(current, configs, GROUP_CONFIGS, defaults.get),
            validate_only,
        )
        return
    if resource_type != ConfigResourceType.TOPIC:
        raise errors.InvalidRequestError(f"altering resource type {resource_type} is not supported")
    check_topic_name(name)
    # The controller applies the operations to the overrides it holds, atomically with other
    # changes of the topic, so concurrent requests do not lose each other's changes.
    inherited = ctx.broker.config.topic_config({})
    await ctx.broker.controller.alter_topic_configs(
        name,
        lambda overrides: apply_operations(overrides, configs, TOPIC_CONFIGS, inherited.get),
        validate_only,
    )


async def handle(
    ctx: RequestContext, request: IncrementalAlterConfigsRequest
) -> IncrementalAlterConfigsResponse:
    resources = request.get("resources") or []
    return await alter_each(ctx, resources, bool(request.get("validate_only")), _alter)
