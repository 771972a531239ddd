"""ElectLeaders (key 43), v0-2: preferred-leader election.

In cluster mode the request goes to the controller through ZooKeeper
(`/admin/preferred_replica_election`, as Kafka's ZK-mode tools did); the handler then waits,
up to the request's timeout, until each partition is led by its preferred replica. Unclean
elections (election_type 1) are not run on request: with `unclean.leader.election.enable` set
on the topic the controller already elects out-of-sync replicas for offline partitions, so
the answer is ELECTION_NOT_NEEDED for a led partition and ELIGIBLE_LEADERS_NOT_AVAILABLE for
an offline one."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ferrolog import errors
from ferrolog.controller.store.zookeeper import ZkStore
from ferrolog.handlers.context import RequestContext

API_KEY = 43
MIN_VERSION = 0
MAX_VERSION = 2

PREFERRED, UNCLEAN = 0, 1


async def handle(ctx: RequestContext, request: dict[str, Any]) -> dict[str, Any]:
    controller = ctx.broker.controller
    election_type = int(request.get("election_type", PREFERRED))
    wanted: list[tuple[str, int]] = []
    requested = request.get("topic_partitions")
    if requested is None:
        for name, topic in sorted(controller.topics().items()):
            wanted.extend((name, p) for p in sorted(topic.assignment))
    else:
        for entry in requested:
            wanted.extend((entry["topic"], int(p)) for p in entry["partitions"])

    results: dict[tuple[str, int], errors.KafkaError | None] = {}
    to_elect: set[tuple[str, int]] = set()
    for name, partition in wanted:
        topic = controller.topic(name)
        state = controller.partition_states(name).get(partition)
        if topic is None or state is None or partition not in topic.assignment:
            results[(name, partition)] = errors.UnknownTopicOrPartitionError(
                f"{name}-{partition} does not exist"
            )
            continue
        preferred = topic.assignment[partition][0]
        if election_type == UNCLEAN:
            results[(name, partition)] = (
                errors.ElectionNotNeededError("the partition has a leader")
                if state.leader >= 0
                else errors.EligibleLeadersNotAvailableError("no eligible leader is alive")
            )
        elif state.leader == preferred:
            results[(name, partition)] = errors.ElectionNotNeededError(
                f"{preferred} already leads {name}-{partition}"
            )
        elif preferred not in controller.brokers() or preferred not in state.isr:
            results[(name, partition)] = errors.PreferredLeaderNotAvailableError(
                f"preferred replica {preferred} is not alive and in sync"
            )
        else:
            to_elect.add((name, partition))

    store = ctx.broker.store
    if to_elect and isinstance(store, ZkStore):
        await store.request_preferred_elections(to_elect)
        deadline = time.monotonic() + int(request.get("timeout_ms", 60000)) / 1000
        pending = set(to_elect)
        while pending and time.monotonic() < deadline:
            for name, partition in list(pending):
                state = controller.partition_states(name).get(partition)
                topic = controller.topic(name)
                if state and topic and state.leader == topic.assignment[partition][0]:
                    pending.discard((name, partition))
                    results[(name, partition)] = None
            if pending:
                await asyncio.sleep(0.05)
        for key in pending:
            results[key] = errors.RequestTimedOutError("the election did not finish in time")
    else:
        for key in to_elect:
            results[key] = errors.PreferredLeaderNotAvailableError("no cluster to elect in")

    by_topic: dict[str, list[dict[str, Any]]] = {}
    for (name, partition), error in results.items():
        by_topic.setdefault(name, []).append(
            {
                "partition_id": partition,
                "error_code": 0 if error is None else error.code,
                "error_message": None if error is None else error.message,
            }
        )
    return {
        "throttle_time_ms": 0,
        "error_code": 0,
        "replica_election_results": [
            {"topic": name, "partition_result": rows} for name, rows in sorted(by_topic.items())
        ],
    }
