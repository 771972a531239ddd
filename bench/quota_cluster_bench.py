"""A quota change reaching every broker of a three-broker cluster (issue 13): Kafka's
ProducerPerformance floods a topic of three partitions, one led by each broker (acks=1,
client id `flood`), while its `producer_byte_rate` is set to 1 MiB/s, raised to 4 MiB/s and
removed, each change sent to broker 1 alone (AlterClientQuotas); the others learn it from
ZooKeeper. Each broker's bytes in (its /metrics) is read every 0.1 s.

    python -m bench.quota_cluster_bench [--phase-seconds 8] [--rounds 3] [--out FILE]

Quotas are per broker, as in Kafka: each broker holds the client to the quota on its own.
Reported per broker, as medians over rounds: how long after the change to 1 MiB/s its rate
first fell below 2 MiB/s, how long after the raise to 4 MiB/s it first rose above 2 MiB/s,
its mean rate over the first second after the raise (a client held to 1 MiB/s still sends
in bursts, so one sample above 2 MiB/s alone proves little), how long after the removal it
first rose above 8 MiB/s, and its mean rate over the second half of each phase. The brokers
measure rates over three windows of 1 s (tests/quotas/test_byte_rates.py says why)."""

from __future__ import annotations

import argparse
import datetime
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka.admin import NewTopic

from bench.harness import kafka_dist
from bench.harness.quotas import FLOOD, MIB, flood, set_quota, topic_bytes_in
from tests.cluster.harness import BrokerProcess, Cluster, ZooKeeper

TOPIC = "q3"
SAMPLE_S = 0.1
LOW, HIGH = 2 * MIB, 8 * MIB


def bytes_in(broker: BrokerProcess) -> float:
    return topic_bytes_in(broker.metrics_url, TOPIC)


@dataclass
class Round:
    changes: dict[str, float]  # what -> seconds from start
    samples: dict[int, list[tuple[float, float]]]  # node -> (seconds, bytes/s)

    def first(self, node: int, after: str, crossed: Callable[[float], bool]) -> float | None:
        """Seconds from the change `after` until the node's rate (bytes/s) first `crossed`."""
        at = self.changes[after]
        for t, rate in self.samples[node]:
            if t > at and crossed(rate):
                return t - at
        return None

    def mean(self, node: int, begin: float, end: float) -> float:
        rates = [r for t, r in self.samples[node] if begin <= t < end]
        return statistics.fmean(rates) if rates else 0.0


def one_round(cluster: Cluster, phase: float) -> Round:
    proc = flood(cluster.bootstrap, TOPIC, 4 * phase + 30)
    nodes = dict(cluster.brokers)
    try:
        while sum(bytes_in(b) for b in nodes.values()) == 0:  # the JVM starts
            time.sleep(0.05)
        start = time.monotonic()
        samples: dict[int, list[tuple[float, float]]] = {n: [] for n in nodes}
        stop = threading.Event()

        def sample() -> None:
            last = {n: (start, bytes_in(b)) for n, b in nodes.items()}
            while not stop.wait(SAMPLE_S):
                for n, b in nodes.items():
                    now, value = time.monotonic(), bytes_in(b)
                    t0, v0 = last[n]
                    samples[n].append((now - start, (value - v0) / (now - t0)))
                    last[n] = (now, value)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        changes: dict[str, float] = {}
        for at, rate, what in ((phase, MIB, "1 MiB/s"), (2 * phase, 4 * MIB, "4 MiB/s"),
                               (3 * phase, None, "removed")):  # fmt: skip
            time.sleep(max(0.0, start + at - time.monotonic()))
            set_quota(nodes[1].bootstrap, FLOOD, None if rate is None else float(rate))
            changes[what] = time.monotonic() - start
        time.sleep(max(0.0, start + 4 * phase - time.monotonic()))
        stop.set()
        sampler.join()
        return Round(changes, samples)
    finally:
        proc.kill()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phase-seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("bench/results/quota-cluster-latest.md"))
    args = parser.parse_args()
    kafka_dist.fetch(kafka_dist.KAFKA4)
    workdir = Path(tempfile.mkdtemp(prefix="flbench-quota3-"))
    zk = ZooKeeper(workdir / "zk")
    zk.start()
    cluster = Cluster(zk, workdir, 3, **{"quota.window.num": "3",
                                         "quota.window.size.seconds": "1"})  # fmt: skip
    rounds: list[Round] = []
    try:
        cluster.start()
        # One partition led by each broker: replication 1, assigned by hand.
        admin = cluster.admin()  # must outlive the futures
        topic = NewTopic(TOPIC, num_partitions=3, replica_assignment=[[1], [2], [3]])
        admin.create_topics([topic])[TOPIC].result(30)
        cluster.wait_for_leaders(TOPIC, 3)
        for i in range(args.rounds):
            rounds.append(one_round(cluster, args.phase_seconds))
            print(f"round {i} done", flush=True)
    finally:
        cluster.stop()
        zk.stop()

    phase = args.phase_seconds
    lines = [
        "# A quota change on every broker of three (issue 13)",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; `python -m "
        f"bench.quota_cluster_bench --phase-seconds {phase:g} --rounds {args.rounds}`; three "
        "ferrolog brokers and ZooKeeper, ProducerPerformance flat out over a partition led by "
        "each; every change sent to broker 1 only. Medians over rounds.",
        "",
        "| broker | to below 2 MiB/s after the 1 MiB/s quota | mean MiB/s, 1 MiB/s phase "
        "| to above 2 MiB/s after the raise | mean MiB/s, first second after the raise "
        "| mean MiB/s, 4 MiB/s phase | to above 8 MiB/s after removal | mean MiB/s, unquoted |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def med(values: list[float | None]) -> str:
        got = [v for v in values if v is not None]
        return f"{statistics.median(got):.2f} s" if len(got) == len(values) else "never"

    for node in sorted(rounds[0].samples):
        low = med([r.first(node, "1 MiB/s", lambda rate: rate < LOW) for r in rounds])
        up = med([r.first(node, "4 MiB/s", lambda rate: rate > LOW) for r in rounds])
        high = med([r.first(node, "removed", lambda rate: rate > HIGH) for r in rounds])

        def phase_mean(what: str, r: Round, n: int = node) -> float:
            at = r.changes[what]
            return r.mean(n, at + phase / 2, at + phase) / MIB

        held = statistics.median(phase_mean("1 MiB/s", r) for r in rounds)
        raised = statistics.median(phase_mean("4 MiB/s", r) for r in rounds)
        first_s = statistics.median(
            r.mean(node, r.changes["4 MiB/s"], r.changes["4 MiB/s"] + 1.0) / MIB for r in rounds
        )
        free = statistics.median(r.mean(node, phase / 2, phase) / MIB for r in rounds)
        lines.append(
            f"| {node}{' (took the changes)' if node == 1 else ''} | {low} | {held:.2f} | "
            f"{up} | {first_s:.2f} | {raised:.2f} | {high} | {free:.1f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
