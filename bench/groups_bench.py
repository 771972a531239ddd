"""How many group members and offset commits per second one ferrolog broker sustains.

    python bench/groups_bench.py [--members 50,200] [--groups 50] [--commit-seconds 5]
                                 [--connections 16] [--partitions 1,50] [--bootstrap H:P]

Speaks the group protocol directly (asyncio, the `ferrolog.protocol` codec), so the client
does no more than a real consumer's coordinator connection would, and measures:
- one big group: N members join at once as real clients do (JoinGroup v5 with
  MEMBER_ID_REQUIRED, SyncGroup, heartbeats, rejoining on REBALANCE_IN_PROGRESS) with no
  initial rebalance delay, so the group goes through as many rebalances as the arrivals
  cause; members/s = N / time until one generation holds all N members, synced;
- many small groups: G groups of 3 members forming at once; members/s likewise;
- offset commits: C connections commit in a loop (standalone commits, each of P partitions,
  acks=all into `__consumer_offsets`); commits/s and partition offsets/s.
Prints a small table. The broker is a fresh embedded one (child process) on this machine."""

from __future__ import annotations

import argparse
import asyncio
import struct
import time
import uuid
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.embedded import EmbeddedBroker
from ferrolog.protocol import decode_response, encode_request
from ferrolog.protocol.messages import ApiKey

MEMBER_ID_REQUIRED, REBALANCE_IN_PROGRESS = 79, 27
COMMIT_TOPIC = f"groups-bench-{uuid.uuid4().hex[:6]}"
# Coordinator still loading / not yet elected: a client waits a little and retries.
NOT_READY = {14, 15, 16}


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.correlation = 0

    @classmethod
    async def open(cls, bootstrap: str) -> Connection:
        host, port = bootstrap.rsplit(":", 1)
        return cls(*await asyncio.open_connection(host, int(port)))

    async def call(self, api_key: int, version: int, body: dict[str, Any]) -> dict[str, Any]:
        self.correlation += 1
        payload = encode_request(api_key, version, self.correlation, "groups-bench", body)
        self.writer.write(struct.pack(">i", len(payload)) + payload)
        size = struct.unpack(">i", await self.reader.readexactly(4))[0]
        _, response = decode_response(api_key, version, await self.reader.readexactly(size))
        return response

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


def _join_body(group: str, member_id: str) -> dict[str, Any]:
    return {
        "group_id": group,
        "session_timeout_ms": 30_000,
        "rebalance_timeout_ms": 60_000,
        "member_id": member_id,
        "group_instance_id": None,
        "protocol_type": "consumer",
        "protocols": [{"name": "range", "metadata": b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"}],
    }


class Progress:
    """Which members of each group completed SyncGroup in which generation: a group is done
    when one generation holds all of its members."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.synced: dict[str, dict[int, set[str]]] = {}

    def record(self, group: str, generation: int, member: str) -> None:
        self.synced.setdefault(group, {}).setdefault(generation, set()).add(member)

    def done(self, group: str) -> bool:
        return any(len(m) == self.size for m in self.synced.get(group, {}).values())


async def _member(conn: Connection, group: str, progress: Progress) -> None:
    """A member as a client runs it: join (twice, for the member id), sync, heartbeat, and
    rejoin whenever the coordinator says a rebalance is in progress."""
    member_id = ""
    while True:
        joined = await conn.call(ApiKey.JOIN_GROUP, 5, _join_body(group, member_id))
        member_id = joined["member_id"]
        if joined["error_code"] == MEMBER_ID_REQUIRED:
            continue
        if joined["error_code"] in NOT_READY:
            await asyncio.sleep(0.05)
            continue
        assert joined["error_code"] == 0, joined
        generation = joined["generation_id"]
        assignments = [{"member_id": m["member_id"], "assignment": b""} for m in joined["members"]]
        synced = await conn.call(
            ApiKey.SYNC_GROUP,
            3,
            {
                "group_id": group,
                "generation_id": generation,
                "member_id": member_id,
                "group_instance_id": None,
                "assignments": assignments,
            },
        )
        if synced["error_code"] == REBALANCE_IN_PROGRESS:
            continue
        assert synced["error_code"] == 0, synced
        progress.record(group, generation, member_id)
        while not progress.done(group):
            await asyncio.sleep(0.05)
            beat = await conn.call(
                ApiKey.HEARTBEAT,
                3,
                {
                    "group_id": group,
                    "generation_id": generation,
                    "member_id": member_id,
                    "group_instance_id": None,
                },
            )
            if beat["error_code"] == REBALANCE_IN_PROGRESS:
                break
            assert beat["error_code"] == 0, beat
        else:
            return


async def rebalance(bootstrap: str, groups: int, size: int) -> float:
    """Members per second for `groups` groups of `size` members joining at once."""
    names = [f"bench-{uuid.uuid4().hex[:8]}" for _ in range(groups)]
    conns = [await Connection.open(bootstrap) for _ in range(groups * size)]
    try:
        # The coordinator's partitions exist before the clock starts.
        await conns[0].call(ApiKey.FIND_COORDINATOR, 3, {"key": names[0], "key_type": 0})
        progress = Progress(size)
        start = time.perf_counter()
        await asyncio.gather(
            *(
                _member(conns[g * size + i], names[g], progress)
                for g in range(groups)
                for i in range(size)
            )
        )
        elapsed = time.perf_counter() - start
    finally:
        await asyncio.gather(*(c.close() for c in conns))
    return groups * size / elapsed


async def commits(bootstrap: str, connections: int, partitions: int, seconds: float) -> float:
    """Offset commits (requests) per second from `connections` concurrent committers."""
    conns = [await Connection.open(bootstrap) for _ in range(connections)]
    count = 0
    deadline = time.perf_counter() + seconds

    async def committer(conn: Connection, index: int) -> None:
        nonlocal count
        group = f"commit-{index}-{uuid.uuid4().hex[:6]}"
        offset = 0
        while time.perf_counter() < deadline:
            offset += 1
            body = {
                "group_id": group,
                "generation_id_or_member_epoch": -1,
                "member_id": "",
                "group_instance_id": None,
                "topics": [
                    {
                        "name": COMMIT_TOPIC,
                        "partitions": [
                            {
                                "partition_index": p,
                                "committed_offset": offset,
                                "committed_leader_epoch": -1,
                                "committed_metadata": "",
                            }
                            for p in range(partitions)
                        ],
                    }
                ],
            }
            response = await conn.call(ApiKey.OFFSET_COMMIT, 8, body)
            code = response["topics"][0]["partitions"][0]["error_code"]
            if code in NOT_READY:
                await asyncio.sleep(0.05)
                continue
            assert code == 0, response
            count += 1

    try:
        for i, conn in enumerate(conns):
            await conn.call(ApiKey.FIND_COORDINATOR, 3, {"key": f"commit-{i}", "key_type": 0})
        start = time.perf_counter()
        await asyncio.gather(*(committer(c, i) for i, c in enumerate(conns)))
        elapsed = time.perf_counter() - start
    finally:
        await asyncio.gather(*(c.close() for c in conns))
    return count / elapsed


async def coordinator_ready(bootstrap: str) -> None:
    """Creates `__consumer_offsets` and waits until its partitions are loaded."""
    conn = await Connection.open(bootstrap)
    try:
        await conn.call(ApiKey.FIND_COORDINATOR, 3, {"key": "warm-up", "key_type": 0})
        for _ in range(600):
            if not (await conn.call(ApiKey.LIST_GROUPS, 4, {"states_filter": []}))["error_code"]:
                return
            await asyncio.sleep(0.05)
        raise RuntimeError("the group coordinator did not load in 30 s")
    finally:
        await conn.close()


async def run(args: argparse.Namespace) -> list[tuple[str, str]]:
    if args.bootstrap:
        return await measure(args, args.bootstrap)
    overrides = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "8"}
    with EmbeddedBroker(overrides=overrides) as broker:
        return await measure(args, broker.bootstrap_servers)


async def measure(args: argparse.Namespace, bootstrap: str) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    await coordinator_ready(bootstrap)
    for size in args.members:
        rate = await rebalance(bootstrap, 1, size)
        rows.append((f"1 group of {size} members joins + syncs", f"{rate:,.0f} members/s"))
    rate = await rebalance(bootstrap, args.groups, 3)
    rows.append((f"{args.groups} groups of 3 members at once", f"{rate:,.0f} members/s"))
    # Kafka refuses offsets of partitions that do not exist.
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topic = NewTopic(COMMIT_TOPIC, max(args.partitions), 1)
    await asyncio.to_thread(admin.create_topics([topic])[COMMIT_TOPIC].result, 30)
    for partitions in args.partitions:
        rate = await commits(bootstrap, args.connections, partitions, args.commit_seconds)
        rows.append(
            (
                f"OffsetCommit, {args.connections} conns, {partitions} partition(s) each",
                f"{rate:,.0f} commits/s = {rate * partitions:,.0f} offsets/s",
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ints = lambda text: [int(x) for x in text.split(",")]  # noqa: E731
    parser.add_argument("--members", type=ints, default=[50, 200])
    parser.add_argument("--groups", type=int, default=50)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--partitions", type=ints, default=[1, 50])
    parser.add_argument("--commit-seconds", type=float, default=5.0)
    parser.add_argument(
        "--bootstrap",
        help="Measure this cluster instead of a fresh ferrolog (e.g. Apache Kafka, with "
        "group.initial.rebalance.delay.ms=0, for a side-by-side figure).",
    )
    rows = asyncio.run(run(parser.parse_args()))
    width = max(len(name) for name, _ in rows)
    print(f"{'workload':<{width}}  result")
    for name, result in rows:
        print(f"{name:<{width}}  {result}")


if __name__ == "__main__":
    main()
