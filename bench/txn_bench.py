"""Transactional throughput, ferrolog against Apache Kafka 4.4 on this machine, one broker
each, run one after the other (never both at once), both at the same `transaction.version`
(2 unless told: what Kafka 4.4 formats a cluster with, so its Java producers use KIP-890
part 2; set with `kafka-features` on each broker after it starts):

- `perf`: Kafka's ProducerPerformance with `--transactional-id` and
  `--transaction-duration-ms 100` (a commit every 100 ms), records/s;
- `copier`: Kafka's TransactionalMessageCopier (consume-transform-produce, offsets committed
  in each transaction) copying an input partition to an output topic, records/s over its
  whole run (start-up included, the same for both brokers).

    python -m bench.txn_bench [--records 500000] [--size 100] [--copy 100000] [--runs 3]
                              [--transaction-version 2]

Prints each broker's median over the runs and the ratio ferrolog/Kafka (above 1: ferrolog is
faster), and writes the same table, with every run's figure, to `bench/results/txn-latest.md`.
Each run starts a fresh broker."""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import subprocess
import time
import uuid
from pathlib import Path

from confluent_kafka import Producer

from bench.harness import brokers, kafka_dist, workloads
from bench.harness.workloads import _java, _run, create_topic


def perf(bootstrap: str, records: int, size: int) -> float:
    topic = f"perf-{uuid.uuid4().hex[:6]}"
    create_topic(bootstrap, topic, 1)
    args = [
        "--topic", topic, "--num-records", str(records), "--record-size", str(size),
        "--throughput", "-1", "--transactional-id", f"perf-{uuid.uuid4().hex[:6]}",
        "--transaction-duration-ms", "100",
        "--command-property", f"bootstrap.servers={bootstrap}",
    ]  # fmt: skip
    out = _run(_java("ProducerPerformance", *args))
    res = workloads.parse_producer_performance(out)
    return float(res["records"] / res["seconds"])


def copier(bootstrap: str, records: int, size: int) -> float:
    source, sink = f"in-{uuid.uuid4().hex[:6]}", f"out-{uuid.uuid4().hex[:6]}"
    create_topic(bootstrap, source, 1)
    create_topic(bootstrap, sink, 1)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    value = b"x" * size
    for _ in range(records):
        while True:
            try:
                producer.produce(source, value=value, partition=0)
                break
            except BufferError:
                producer.poll(0.05)
    assert producer.flush(120) == 0
    args = [
        "--broker-list", bootstrap,
        "--input-topic", source, "--input-partition", "0", "--output-topic", sink,
        "--consumer-group", f"copy-{uuid.uuid4().hex[:6]}",
        "--transactional-id", f"copy-{uuid.uuid4().hex[:6]}",
        "--transaction-size", "500", "--max-messages", str(records),
        "--use-group-metadata",
    ]  # fmt: skip
    started = time.monotonic()
    command = _java("TransactionalMessageCopier", *args)
    subprocess.run(command, check=True, capture_output=True, timeout=600)
    return records / (time.monotonic() - started)


def set_transaction_version(bootstrap: str, level: int) -> None:
    """Finalizes `transaction.version` at `level`: an upgrade, else a downgrade (Kafka 4.4
    starts at 2, ferrolog at none)."""
    feature = f"transaction.version={level}"
    for verb in ("upgrade", "downgrade"):
        try:
            args = ("--bootstrap-server", bootstrap, verb, "--feature", feature)
            _run(_java("FeatureCommand", *args))
            return
        except RuntimeError:
            continue
    raise RuntimeError(f"cannot set {feature} on {bootstrap}")


def measure(kind: str, args: argparse.Namespace) -> dict[str, float]:
    broker = brokers.make(kind)
    try:
        broker.prepare()
        broker.spawn()
        brokers.wait_port(broker.port, 120, broker.proc)
        set_transaction_version(broker.bootstrap, args.transaction_version)
        return {
            "perf": perf(broker.bootstrap, args.records, args.size),
            "copier": copier(broker.bootstrap, args.copy, args.size),
        }
    finally:
        broker.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=500_000)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--copy", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--transaction-version", type=int, choices=(1, 2), default=2)
    args = parser.parse_args()
    results: dict[str, dict[str, list[float]]] = {}
    for _ in range(args.runs):
        for kind in ("ferrolog", "kafka4"):
            for name, value in measure(kind, args).items():
                results.setdefault(kind, {}).setdefault(name, []).append(value)
    lines = [
        f"# Transactional throughput, ferrolog vs Apache Kafka {kafka_dist.KAFKA4}: "
        f"{datetime.datetime.now(datetime.UTC).isoformat(timespec='seconds')}",
        "",
        f"One broker each, fresh per run, run one after the other; {args.runs} runs, medians; "
        f"transaction.version {args.transaction_version} finalized on both. "
        f"perf: ProducerPerformance, {args.records:,} records of {args.size} B, "
        "--transaction-duration-ms 100. copier: TransactionalMessageCopier, "
        f"{args.copy:,} records, 500 per transaction, start-up included. "
        f"Machine: {os.cpu_count()} cores, load average after: "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}.",
        "",
        "| workload | ferrolog (rec/s) | kafka4 (rec/s) | ratio | each run (ours / theirs) |",
        "|---|---|---|---|---|",
    ]
    print(f"{'workload':<10}{'ferrolog rec/s':>16}{'kafka rec/s':>14}{'ratio':>8}")
    for name in ("perf", "copier"):
        ours = statistics.median(results["ferrolog"][name])
        theirs = statistics.median(results["kafka4"][name])
        print(f"{name:<10}{ours:>16,.0f}{theirs:>14,.0f}{ours / theirs:>8.2f}")
        runs = " / ".join(
            ", ".join(f"{v:,.0f}" for v in results[kind][name]) for kind in ("ferrolog", "kafka4")
        )
        lines.append(f"| {name} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:.2f} | {runs} |")
    out = Path(__file__).parent / "results" / "txn-latest.md"
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
