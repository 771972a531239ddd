"""Share groups (KIP-932): consumption by Kafka 4.4's own share consumer, ferrolog against
Apache Kafka 4.4 on this machine, side by side in one run.

    python -m bench.share_bench [--records 1000000] [--sizes 100,1024] [--members 1,3,6]
                                [--partitions 6] [--rounds 1] [--ack-samples 300]
                                [--out bench/results/share-latest.md]

For each broker, a fresh single node with share groups on; for each record size a topic of
`--partitions` partitions (6; thousands for the scale rows) filled by confluent-kafka; for
each member count a new share group (reading from the earliest record) consumed by
`ShareConsumerPerformance --threads N` (implicit acknowledgement: every record accepted, the
acknowledgements riding on the next fetch) until all records are read. Reported: records/s
and MB/s as the tool measures them (from its start, group join included, to the last record),
the broker's CPU seconds (process tree, from /proc) per GB consumed, and its CPU while idle
for `IDLE_S` right after (what keeping the group's share-partitions costs: ferrolog's lock
sweep, Kafka's timers). With several rounds, medians.

Then the acknowledgement latency: a raw-protocol member acquires one record at a time
(ShareFetch v2, record_limit) and accepts it with a ShareAcknowledge, timed from request to
answer (which comes once the share-partition's new state is written), `--ack-samples` times."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from confluent_kafka import Producer
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
    ResourceType,
)

from bench.harness import brokers, kafka_dist, procstat

# Seconds of idle broker CPU measured after each consumption.
IDLE_S = 5.0
# The same group settings on both brokers: members heartbeat every 200 ms, so a join costs
# both about the same.
SETTINGS = {
    "group.initial.rebalance.delay.ms": "0",
    "group.share.min.heartbeat.interval.ms": "100",
    "group.share.heartbeat.interval.ms": "200",
    "offsets.topic.num.partitions": "4",
    "share.coordinator.state.topic.num.partitions": "4",
}


def start(kind: str) -> brokers.Broker:
    broker = brokers.make(kind)
    broker.overrides = dict(SETTINGS)
    broker.prepare()
    broker.spawn()
    brokers.wait_port(broker.port, 120, broker.proc)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.handlers.features_tools import finalized

    # Both format a new cluster with share.version finalized: wait until it answers so.
    deadline = time.monotonic() + 60
    while True:
        try:
            assert finalized(broker.bootstrap)[1]["share.version"][1] >= 1
            return broker
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def fill(bootstrap: str, size: int, records: int, partitions: int) -> str:
    topic = f"share-bench-{size}-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(120)
    producer = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1 << 20, "acks": 1}
    )
    value = b"x" * size
    for i in range(records):
        while True:
            try:
                producer.produce(topic, value, partition=i % partitions)
                break
            except BufferError:
                producer.poll(0.05)
    assert producer.flush(120) == 0
    return topic


def new_group(bootstrap: str) -> str:
    group = f"share-bench-{uuid.uuid4().hex[:8]}"
    entry = ConfigEntry(
        "share.auto.offset.reset", "earliest", incremental_operation=AlterConfigOpType.SET
    )
    resource = ConfigResource(ResourceType.GROUP, group, incremental_configs=[entry])
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.incremental_alter_configs([resource])[resource].result(60)
    return group


def consume(broker: brokers.Broker, topic: str, records: int, members: int) -> dict[str, float]:
    group = new_group(broker.bootstrap)
    # The tool's --timeout is how long it waits without a record: Kafka 4.4 took over 30 s to
    # deliver the first records of a 1,000-partition topic's new share group.
    command = [
        "java", "-Xmx512M", "-cp", kafka_dist.classpath(kafka_dist.KAFKA4),
        "org.apache.kafka.tools.ShareConsumerPerformance",
        "--bootstrap-server", broker.bootstrap, "--topic", topic, "--group", group,
        "--num-records", str(records), "--threads", str(members), "--timeout", "120000",
    ]  # fmt: skip
    cpu_before = sum(procstat.cpu_seconds(p) for p in broker.pids)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    cpu = sum(procstat.cpu_seconds(p) for p in broker.pids) - cpu_before
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    idle_before = sum(procstat.cpu_seconds(p) for p in broker.pids)
    time.sleep(IDLE_S)
    idle = sum(procstat.cpu_seconds(p) for p in broker.pids) - idle_before
    header, *rows = [line for line in done.stdout.splitlines() if line.strip()]
    names = [n.strip() for n in header.split(",")]
    values = [v.strip() for v in rows[-1].split(",")]
    row = dict(zip(names, values, strict=False))
    consumed = float(row["data.consumed.in.MB"]) * 1024 * 1024
    return {
        "records_per_s": float(row["nMsg.sec"]),
        "mb_per_s": float(row["MB.sec"]),
        "records": float(row["data.consumed.in.nMsg"]),
        "cpu_s_per_gb": cpu / (consumed / 1e9) if consumed else float("nan"),
        "idle_cpu_percent": 100 * idle / IDLE_S,
    }


def ack_latency(bootstrap: str, samples: int) -> dict[str, float]:
    """ShareAcknowledge round trips in ms: p50, p99 and max of `samples`."""
    from tests.groups.share_tools import ACCEPT, Member, acquired, connect, find_coordinator

    topic = fill(bootstrap, 100, samples, 1)
    group = new_group(bootstrap)
    conn = connect(bootstrap, "share-bench")
    times: list[float] = []
    try:
        find_coordinator(conn, group)
        member = Member(conn, group, topic)
        member.join()
        while len(times) < samples:
            answer = member.fetch(max_records=1, version=2, share_acquire_mode=1)
            for first, last, _ in acquired(answer):
                began = time.perf_counter()
                reply = member.acknowledge([(first, last, [ACCEPT])])
                times.append(time.perf_counter() - began)
                codes = [p["error_code"] for t in reply["responses"] for p in t["partitions"]]
                assert (reply["error_code"], codes) == (0, [0]), reply
    finally:
        conn.close()
    times.sort()
    ms = [t * 1000 for t in times]
    p99 = ms[min(len(ms) - 1, len(ms) * 99 // 100)]
    return {"p50": ms[len(ms) // 2], "p99": p99, "max": ms[-1]}


def run(args: argparse.Namespace) -> tuple[list[dict[str, Any]], dict[str, dict[str, float]]]:
    results: list[dict[str, Any]] = []
    latency: dict[str, dict[str, float]] = {}
    for kind in ("ferrolog", "kafka4"):
        broker = start(kind)
        try:
            for size in args.sizes:
                topic = fill(broker.bootstrap, size, args.records, args.partitions)
                for members in args.members:
                    samples = [
                        consume(broker, topic, args.records, members) for _ in range(args.rounds)
                    ]
                    result = {
                        key: statistics.median(s[key] for s in samples) for key in samples[0]
                    }
                    results.append({"broker": kind, "size": size, "members": members, **result})
                    print(results[-1], flush=True)
            if args.ack_samples:
                latency[kind] = ack_latency(broker.bootstrap, args.ack_samples)
                print(kind, latency[kind], flush=True)
        finally:
            broker.cleanup()
    return results, latency


def report(
    results: list[dict[str, Any]], latency: dict[str, dict[str, float]], args: argparse.Namespace
) -> str:
    by = {(r["broker"], r["size"], r["members"]): r for r in results}
    lines = [
        "# Share groups: ShareConsumerPerformance, ferrolog vs Kafka 4.4",
        "",
        f"`python -m bench.share_bench --records {args.records} --sizes "
        f"{','.join(map(str, args.sizes))} --members {','.join(map(str, args.members))} "
        f"--partitions {args.partitions} --rounds {args.rounds} --ack-samples "
        f"{args.ack_samples}`, {time.strftime('%Y-%m-%d')}, "
        "one run on this machine (2 cores, shared). Records/s as the tool measures them (group "
        f"join included); broker CPU from /proc, per GB consumed, and idle for {IDLE_S:.0f} s "
        "right after (% of one core).",
        "",
        "| size | members | ferrolog rec/s | Kafka rec/s | ratio | ferrolog CPU s/GB | "
        "Kafka CPU s/GB | ratio | ferrolog idle CPU | Kafka idle CPU |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in args.sizes:
        for members in args.members:
            f, k = by[("ferrolog", size, members)], by[("kafka4", size, members)]
            lines.append(
                f"| {size} B | {members} | {f['records_per_s']:,.0f} | "
                f"{k['records_per_s']:,.0f} | {f['records_per_s'] / k['records_per_s']:.2f}x | "
                f"{f['cpu_s_per_gb']:.1f} | {k['cpu_s_per_gb']:.1f} | "
                f"{f['cpu_s_per_gb'] / k['cpu_s_per_gb']:.2f}x | "
                f"{f['idle_cpu_percent']:.1f} % | {k['idle_cpu_percent']:.1f} % |"
            )
    if set(latency) == {"ferrolog", "kafka4"}:
        f, k = latency["ferrolog"], latency["kafka4"]
        lines += [
            "",
            f"ShareAcknowledge round trip, {args.ack_samples} acknowledgements of one record "
            "each (the answer waits for the state write), ms:",
            "",
            "| | ferrolog | Kafka | ratio |",
            "|---|---|---|---|",
            *(
                f"| {q} | {f[q]:.2f} | {k[q]:.2f} | {f[q] / k[q]:.2f}x |"
                for q in ("p50", "p99", "max")
            ),
        ]
    return "\n".join(lines) + "\n"


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--sizes", type=_ints, default=[100, 1024])
    parser.add_argument("--members", type=_ints, default=[1, 3, 6])
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--ack-samples", type=int, default=300)
    parser.add_argument("--out", type=Path, default=Path("bench/results/share-latest.md"))
    args = parser.parse_args(argv)
    text = report(*run(args), args)
    args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
