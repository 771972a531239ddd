"""AlterConfigs (key 33), v0-2: replaces a topic's config overrides with the given set.

Broker resources (this broker's id, or "" for the cluster default) replace that level's
dynamic broker configs, as on Kafka; the controller's `broker_configs` checks them (a static
property is refused with INVALID_REQUEST, "Cannot update these configs dynamically")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

from ferrolog import errors
from ferrolog.config.values import null_topic_configs
from ferrolog.controller.api import AclOperation
from ferrolog.handlers._acls import require_config_access
from ferrolog.handlers._resources import ConfigResourceType
from ferrolog.handlers.context import RequestContext
from ferrolog.handlers.describe_configs import (
    check_broker_name,
    check_topic_name,
)
from ferrolog.protocol.messages import (
    AlterConfigsRequest,
    AlterConfigsRequestAlterConfigsResource,
    AlterConfigsResponse,
    AlterConfigsResponseAlterConfigsResourceResponse,
    ApiKey,
    IncrementalAlterConfigsRequestAlterConfigsResource,
)

API_KEY = ApiKey.ALTER_CONFIGS
MIN_VERSION = 0
MAX_VERSION = 2

# The resources of AlterConfigs and of IncrementalAlterConfigs, which share the loop below.
Resource = TypeVar(
    "Resource",
    AlterConfigsRequestAlterConfigsResource,
    IncrementalAlterConfigsRequestAlterConfigsResource,
)


def check_config_names(configs: Sequence[Mapping[str, object]]) -> None:
    names = Counter(str(c["name"]) for c in configs)
    repeated = sorted(name for name, n in names.items() if n > 1)
    if repeated:
        raise errors.InvalidRequestError(f"duplicate config keys: {', '.join(repeated)}")


def response(
    resource: Resource, exc: errors.KafkaError | None
) -> AlterConfigsResponseAlterConfigsResourceResponse:
    return {
        "error_code": 0 if exc is None else exc.code,
        "error_message": None if exc is None else exc.message,
        "resource_type": resource["resource_type"],
        "resource_name": resource["resource_name"],
    }


def duplicates(resources: Sequence[Resource]) -> set[tuple[int, str]]:
    """Resources named more than once: Kafka refuses each such entry rather than guess an
    order."""
    counts = Counter((r["resource_type"], r["resource_name"]) for r in resources)
    return {key for key, n in counts.items() if n > 1}


async def _alter(
    ctx: RequestContext, resource: AlterConfigsRequestAlterConfigsResource, validate_only: bool
) -> None:
    resource_type, name = resource["resource_type"], resource["resource_name"]
    configs = resource.get("configs") or []
    if resource_type == ConfigResourceType.BROKER:
        broker = check_broker_name(ctx, name)
        values = {c["name"]: c["value"] for c in configs if c["value"] is not None}
        await ctx.broker.controller.broker_configs.alter(
            broker, lambda _current: values, validate_only
        )
        return
    if resource_type != ConfigResourceType.TOPIC:
        raise errors.InvalidRequestError(f"altering resource type {resource_type} is not supported")
    check_topic_name(name)

    def replace_all(_current: dict[str, str]) -> dict[str, str]:
        nulls = sorted(c["name"] for c in configs if c.get("value") is None)
        if nulls:
            raise null_topic_configs(nulls)
        return {c["name"]: c["value"] for c in configs if c["value"] is not None}

    await ctx.broker.controller.alter_topic_configs(name, replace_all, validate_only=validate_only)


async def alter_each(
    ctx: RequestContext,
    resources: Sequence[Resource],
    validate_only: bool,
    alter: Callable[[RequestContext, Resource, bool], Awaitable[None]],
) -> AlterConfigsResponse:
    """Applies `alter` to each resource of an AlterConfigs or IncrementalAlterConfigs request,
    answering each with its own error; a resource named twice, or naming a config twice, is
    refused."""
    repeated = duplicates(resources)
    results: list[AlterConfigsResponseAlterConfigsResourceResponse] = []
    for resource in resources:
        try:
            if (resource["resource_type"], resource["resource_name"]) in repeated:
                raise errors.InvalidRequestError("the resource appears more than once")
            name, kind = resource["resource_name"], resource["resource_type"]
            require_config_access(ctx, AclOperation.ALTER_CONFIGS, kind, name)
            check_config_names(resource.get("configs") or [])
            await alter(ctx, resource, validate_only)
        except errors.KafkaError as exc:
            results.append(response(resource, exc))
            continue
        results.append(response(resource, None))
    return {"throttle_time_ms": 0, "responses": results}


async def handle(ctx: RequestContext, request: AlterConfigsRequest) -> AlterConfigsResponse:
    resources = request.get("resources") or []
    return await alter_each(ctx, resources, bool(request.get("validate_only")), _alter)
