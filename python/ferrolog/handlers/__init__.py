"""Request handlers, one module per API (named after it), and THE table that dispatches to
them: `HANDLERS`, built from the explicit imports below, so the route from the dispatcher to
a handler reads here.

A handler module declares, once, the API it serves and the versions it implements (`API_KEY`,
`MIN_VERSION`, `MAX_VERSION`, each version's every field) and defines
`async def handle(ctx, request) -> response` (see `context.py`). The advertised table
(`ferrolog.api_versions`) is derived from these declarations; adding an API means writing its
module and listing it here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ferrolog.handlers import (
    add_offsets_to_txn,
    add_partitions_to_txn,
    alter_client_quotas,
    alter_configs,
    alter_partition_reassignments,
    alter_replica_log_dirs,
    alter_share_group_offsets,
    alter_user_scram_credentials,
    api_versions,
    consumer_group_describe,
    consumer_group_heartbeat,
    create_acls,
    create_delegation_token,
    create_partitions,
    create_topics,
    delete_acls,
    delete_groups,
    delete_records,
    delete_share_group_offsets,
    delete_share_group_state,
    delete_topics,
    describe_acls,
    describe_client_quotas,
    describe_cluster,
    describe_configs,
    describe_delegation_token,
    describe_groups,
    describe_log_dirs,
    describe_producers,
    describe_share_group_offsets,
    describe_topic_partitions,
    describe_transactions,
    describe_user_scram_credentials,
    elect_leaders,
    end_txn,
    expire_delegation_token,
    find_coordinator,
    heartbeat,
    incremental_alter_configs,
    init_producer_id,
    initialize_share_group_state,
    join_group,
    leave_group,
    list_config_resources,
    list_groups,
    list_partition_reassignments,
    list_transactions,
    metadata,
    offset_commit,
    offset_delete,
    offset_fetch,
    read_share_group_state,
    read_share_group_state_summary,
    renew_delegation_token,
    sasl_authenticate,
    sasl_handshake,
    share_group_describe,
    share_group_heartbeat,
    streams_group_describe,
    streams_group_heartbeat,
    sync_group,
    txn_offset_commit,
    update_features,
    write_share_group_state,
)
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey

# A handler takes its request's TypedDict and returns its response's (ferrolog.protocol.messages);
# the table only needs to know it takes a decoded body and returns a mapping to encode.
HandleFn = Callable[[RequestContext, Any], Awaitable[Mapping[str, object]]]


class HandlerModule(Protocol):
    """What mypy checks of every module listed below."""

    API_KEY: ApiKey
    MIN_VERSION: int
    MAX_VERSION: int

    async def handle(self, ctx: RequestContext, request: Any) -> Mapping[str, object]: ...


@dataclass(frozen=True)
class Handler:
    api_key: int
    handle: HandleFn
    min_version: int
    max_version: int
    module: str


def table(*modules: HandlerModule) -> dict[int, Handler]:
    """The handlers of `modules` by API key; two modules claiming one key is a bug."""
    handlers: dict[int, Handler] = {}
    for module in modules:
        name = getattr(module, "__name__", repr(module))
        key = module.API_KEY
        if key in handlers:
            raise RuntimeError(f"API key {key} handled by {handlers[key].module} and {name}")
        handlers[key] = Handler(key, module.handle, module.MIN_VERSION, module.MAX_VERSION, name)
    return handlers


HANDLERS: dict[int, Handler] = table(
    add_offsets_to_txn,
    add_partitions_to_txn,
    alter_client_quotas,
    alter_configs,
    alter_partition_reassignments,
    alter_replica_log_dirs,
    alter_share_group_offsets,
    alter_user_scram_credentials,
    api_versions,
    consumer_group_describe,
    consumer_group_heartbeat,
    create_acls,
    create_delegation_token,
    create_partitions,
    create_topics,
    delete_acls,
    delete_groups,
    delete_records,
    delete_share_group_offsets,
    delete_share_group_state,
    delete_topics,
    describe_acls,
    describe_client_quotas,
    describe_cluster,
    describe_configs,
    describe_delegation_token,
    describe_groups,
    describe_log_dirs,
    describe_producers,
    describe_share_group_offsets,
    describe_topic_partitions,
    describe_transactions,
    describe_user_scram_credentials,
    elect_leaders,
    end_txn,
    expire_delegation_token,
    find_coordinator,
    heartbeat,
    incremental_alter_configs,
    init_producer_id,
    initialize_share_group_state,
    join_group,
    leave_group,
    list_config_resources,
    list_groups,
    list_partition_reassignments,
    list_transactions,
    metadata,
    offset_commit,
    offset_delete,
    offset_fetch,
    read_share_group_state,
    read_share_group_state_summary,
    renew_delegation_token,
    sasl_authenticate,
    sasl_handshake,
    share_group_describe,
    share_group_heartbeat,
    streams_group_describe,
    streams_group_heartbeat,
    sync_group,
    txn_offset_commit,
    update_features,
    write_share_group_state,
)
