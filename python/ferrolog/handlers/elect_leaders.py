"""ElectLeaders (key 43), v0-2: preferred-leader and unclean (KIP-460) elections.

In cluster mode the request goes to the controller through ZooKeeper
(`/admin/preferred_replica_election` as Kafka's ZK-mode tools did, and ferrolog's own
`/ferrolog/unclean_leader_election`); the handler then waits, up to the request's timeout,
until each partition is led by its preferred replica or, for an unclean election, by a live
replica: the first live in-sync one if there is one, else the first live replica (losing
whatever only the old ISR had). A partition with a live leader needs no unclean election
(ELECTION_NOT_NEEDED)."""

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

    live = controller.brokers()
    unclean = election_type == UNCLEAN
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
        replicas = topic.assignment[partition]
        preferred = replicas[0]
        if unclean and state.leader in live:
            results[(name, partition)] = errors.ElectionNotNeededError(
                f"{state.leader} leads {name}-{partition}"
            )
        elif unclean and not any(b in live for b in replicas):
            results[(name, partition)] = errors.EligibleLeadersNotAvailableError(
                f"no replica of {name}-{partition} is alive"
            )
        elif not unclean and state.leader == preferred:
            results[(name, partition)] = errors.ElectionNotNeededError(
                f"{preferred} already leads {name}-{partition}"
            )
        elif not unclean and (preferred not in live or preferred not in state.isr):
            results[(name, partition)] = errors.PreferredLeaderNotAvailableError(
                f"preferred replica {preferred} is not alive and in sync"
            )
        else:
            to_elect.add((name, partition))

    def elected(name: str, partition: int) -> bool:
        state = controller.partition_states(name).get(partition)
        topic = controller.topic(name)
        if state is None or topic is None:
            return False
        if unclean:
            return bool(state.leader in controller.brokers())
        return bool(state.leader == topic.assignment[partition][0])

    store = ctx.broker.store
    if to_elect and isinstance(store, ZkStore):
        await store.request_elections(to_elect, unclean=unclean)
        deadline = time.monotonic() + int(request.get("timeout_ms", 60000)) / 1000
        pending = set(to_elect)
        while pending and time.monotonic() < deadline:
            for name, partition in list(pending):
                if elected(name, partition):
                    pending.discard((name, partition))
                    results[(name, partition)] = None
            if pending:
                await asyncio.sleep(0.05)
        for key in pending:
            results[key] = errors.RequestTimedOutError("the election did not finish in time")
    else:
        no_cluster = (
            errors.EligibleLeadersNotAvailableError
            if unclean
            else errors.PreferredLeaderNotAvailableError
        )
        for key in to_elect:
            results[key] = no_cluster("no cluster to elect in")

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
