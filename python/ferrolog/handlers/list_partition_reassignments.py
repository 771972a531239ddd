"""ListPartitionReassignments (key 46), v0: the pending reassignments, with the replicas each
partition has now and those being added and removed."""

from __future__ import annotations

from typing import Any

from ferrolog.handlers.context import RequestContext

API_KEY = 46
MIN_VERSION = 0
MAX_VERSION = 0


async def handle(ctx: RequestContext, request: dict[str, Any]) -> dict[str, Any]:
    controller = ctx.broker.controller
    pending = controller.reassignments()
    requested = request.get("topics")
    wanted: set[tuple[str, int]] | None = None
    if requested is not None:
        wanted = {(t["name"], int(p)) for t in requested for p in t["partition_indexes"]}
    by_topic: dict[str, list[dict[str, Any]]] = {}
    for (name, partition), target in sorted(pending.items()):
        if wanted is not None and (name, partition) not in wanted:
            continue
        record = controller.topic(name)
        if record is None or partition not in record.assignment:
            continue
        current = record.assignment[partition]
        state = controller.partition_states(name).get(partition)
        isr = state.isr if state is not None else []
        by_topic.setdefault(name, []).append(
            {
                "partition_index": partition,
                "replicas": list(current),
                # Still joining: not yet in the replica set or not yet caught up.
                "adding_replicas": [b for b in target if b not in current or b not in isr],
                "removing_replicas": [b for b in current if b not in target],
            }
        )
    return {
        "throttle_time_ms": 0,
        "error_code": 0,
        "error_message": None,
        "topics": [{"name": n, "partitions": rows} for n, rows in sorted(by_topic.items())],
    }
