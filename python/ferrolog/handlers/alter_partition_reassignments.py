"""AlterPartitionReassignments (key 45), v0: moves partitions to new replica sets.

Cluster mode only: the targets are merged into `/admin/reassign_partitions`, where the
controller picks them up (see `election.reassignment_step`: the new replicas join and catch
up, then leadership and the ISR move inside the target and the old replicas are dropped).
A null replica list cancels a pending reassignment; the partition keeps the replicas it has at
that moment (Kafka would revert to the original set). The response does not wait for the
moves, as in Kafka; ListPartitionReassignments shows progress."""

from __future__ import annotations

from typing import Any

from ferrolog import errors
from ferrolog.controller.store.zookeeper import ZkStore
from ferrolog.handlers.context import RequestContext

API_KEY = 45
MIN_VERSION = 0
MAX_VERSION = 0


async def handle(ctx: RequestContext, request: dict[str, Any]) -> dict[str, Any]:
    controller = ctx.broker.controller
    store = ctx.broker.store
    live = controller.brokers()
    pending = controller.reassignments()
    changes: dict[tuple[str, int], list[int] | None] = {}
    responses = []
    for topic in request.get("topics") or []:
        name = topic["name"]
        record = controller.topic(name)
        rows = []
        for entry in topic.get("partitions") or []:
            partition = int(entry["partition_index"])
            replicas = entry.get("replicas")
            error: errors.KafkaError | None = None
            if not isinstance(store, ZkStore):
                error = errors.InvalidRequestError("reassignment needs cluster mode")
            elif record is None or partition not in record.assignment:
                error = errors.UnknownTopicOrPartitionError(f"{name}-{partition} does not exist")
            elif replicas is None:
                if (name, partition) not in pending:
                    error = errors.NoReassignmentInProgressError(
                        f"no reassignment of {name}-{partition} is in progress"
                    )
                else:
                    changes[(name, partition)] = None
            elif not replicas or len(set(replicas)) != len(replicas):
                error = errors.InvalidReplicaAssignmentError(
                    f"replicas {replicas} are empty or repeat a broker"
                )
            elif any(b not in live for b in replicas):
                error = errors.InvalidReplicaAssignmentError(
                    f"replicas {replicas} name brokers that are not registered"
                )
            else:
                changes[(name, partition)] = [int(b) for b in replicas]
            rows.append(
                {
                    "partition_index": partition,
                    "error_code": 0 if error is None else error.code,
                    "error_message": None if error is None else error.message,
                }
            )
        responses.append({"name": name, "partitions": rows})
    if changes and isinstance(store, ZkStore):
        await store.merge_reassignments(changes)
    return {"throttle_time_ms": 0, "error_code": 0, "error_message": None, "responses": responses}
