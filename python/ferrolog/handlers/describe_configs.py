"""DescribeConfigs (key 32), v1-4: topic, broker and group configs with their sources; the
broker resource "" is the cluster default, which lists the dynamic defaults only, as on Kafka.
A group (resource type GROUP, KIP-848) lists its consumer group configs, its own values or the
broker's defaults, whether or not the group exists, as on Kafka.

The values, sources and synonyms come from the config table (`BrokerConfig.describe_topic`
and `describe_broker`); this module filters and shapes them per request: only the asked-for
keys, synonyms only when asked (v1+), documentation only when asked (v3+)."""

from __future__ import annotations

from collections.abc import Iterable

from ferrolog import errors
from ferrolog.config import ConfigEntry
from ferrolog.controller.api import AclOperation, validate_topic_name
from ferrolog.handlers._acls import require_config_access
from ferrolog.handlers._resources import ConfigResourceType
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import (
    ApiKey,
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    DescribeConfigsResponseDescribeConfigsResourceResult,
    DescribeConfigsResponseDescribeConfigsResult,
)

API_KEY = ApiKey.DESCRIBE_CONFIGS
MIN_VERSION = 1
MAX_VERSION = 4


def check_topic_name(name: str) -> None:
    """Kafka's topic-name rule; the empty name (default topic resource) is not a topic."""
    if not name:
        raise errors.InvalidRequestError("default topic resources are not allowed")
    validate_topic_name(name)


def check_broker_name(ctx: RequestContext, name: str) -> int | None:
    """A broker resource is this broker's id, or "" for the cluster-wide defaults (None)."""
    if name == "":
        return None
    try:
        broker_id = int(name)
    except ValueError:
        raise errors.InvalidRequestError(f"broker resource name {name!r} is not an id") from None
    if broker_id != ctx.broker.node_id:
        raise errors.InvalidRequestError(
            f"unexpected broker id: expected {ctx.broker.node_id} or an empty string, got {name}"
        )
    return broker_id


def _row(
    entry: ConfigEntry, synonyms: bool, documentation: bool
) -> DescribeConfigsResponseDescribeConfigsResourceResult:
    return {
        "name": entry.name,
        "value": entry.value,
        "read_only": entry.read_only,
        "config_source": int(entry.source),
        "is_sensitive": entry.sensitive,
        "synonyms": [
            {"name": s.name, "value": None if entry.sensitive else s.value, "source": int(s.source)}
            for s in entry.synonyms
        ]
        if synonyms
        else [],
        "config_type": int(entry.type),
        "documentation": entry.doc if documentation else None,
    }


def check_group_name(name: str) -> None:
    """Kafka's rule for a group resource: a name, not the default."""
    if not name:
        raise errors.InvalidRequestError("Default group resources are not allowed.")


async def _entries(ctx: RequestContext, resource_type: int, name: str) -> Iterable[ConfigEntry]:
    if resource_type == ConfigResourceType.TOPIC:
        check_topic_name(name)
        record = ctx.broker.controller.topic(name)
        if record is None:
            raise errors.UnknownTopicOrPartitionError(f"topic {name} does not exist")
        return ctx.broker.config.describe_topic(record.configs)
    if resource_type == ConfigResourceType.BROKER:
        if check_broker_name(ctx, name) is None:
            return ctx.broker.config.describe_default()
        return ctx.broker.config.describe_broker()
    if resource_type == ConfigResourceType.GROUP:
        if not name:
            raise errors.InvalidRequestError("Group name must not be empty")
        return ctx.broker.config.describe_group(ctx.broker.controller.group_configs.current(name))
    raise errors.InvalidRequestError(f"describing resource type {resource_type} is not supported")


async def handle(ctx: RequestContext, request: DescribeConfigsRequest) -> DescribeConfigsResponse:
    synonyms = bool(request.get("include_synonyms", False))
    documentation = bool(request.get("include_documentation", False))
    results: list[DescribeConfigsResponseDescribeConfigsResult] = []
    for resource in request.get("resources") or []:
        resource_type, name = resource["resource_type"], resource["resource_name"]
        keys = resource.get("configuration_keys")
        result: DescribeConfigsResponseDescribeConfigsResult = {
            "resource_type": resource_type,
            "resource_name": name,
            "error_code": 0,
            # Kafka answers "" (its generated default), not null, when there is no error.
            "error_message": "",
            "configs": [],
        }
        try:
            require_config_access(ctx, AclOperation.DESCRIBE_CONFIGS, resource_type, name)
            entries = await _entries(ctx, resource_type, name)
        except errors.KafkaError as exc:
            result.update({"error_code": exc.code, "error_message": exc.message})
        else:
            wanted = None if keys is None else set(keys)
            result["configs"] = [
                _row(entry, synonyms, documentation)
                for entry in entries
                if wanted is None or entry.name in wanted
            ]
        results.append(result)
    return {"throttle_time_ms": 0, "results": results}
