"""Produce and consume over TLS (issue 12): one ferrolog broker and one Apache Kafka 4
(KRaft) broker, each with a single SSL listener for clients (the same CA, a 2048-bit RSA
broker certificate, TLS 1.3 as both negotiate with librdkafka), the librdkafka producer at
full speed (acks=1, 1 KiB records, spread over the topic's partitions), then a consumer
reading everything back from the start, over SSL, then the same read by one kcat process per
partition at once.

    python -m bench.tls_bench [--records 1000000] [--size 1024] [--partitions 6]
                              [--rounds 3] [--out bench/results/tls-latest.md]

The brokers alternate within each round (the first one swaps every round) and each run
starts a fresh broker, so both share the machine's noise. Reported: the median over rounds
of MB/s produced and consumed per broker, and the broker's CPU seconds (its whole process
tree, from /proc) per GB moved, with the ratios ferrolog/Kafka; for the consume, also the
client's CPU seconds per GB and how busy its Python thread was, which tell whether the
consumer rather than the broker set the pace.

Why the kcat read: one librdkafka consumer reads a broker's partitions through one connection,
whose thread receives, decrypts and parses every response, and its records then pass one by
one through a Python thread. Against ferrolog that pair sets the pace (about 400 MB/s here,
with ferrolog's broker at 0.6 CPU-s per GB), whatever the client's settings: measured side by
side on 27 Nov, a 20 ms `fetch.queue.backoff.ms` and kcat alone read at about the same rate.
A throughput goal for the broker needs readers that are not the bottleneck, so the kcat row
has one C client per partition (values written nowhere), as a broker's readers are in use.

Kafka reads its key store as the PKCS12 file keytool writes; ferrolog the PEM files of the same
key and certificate."""

from __future__ import annotations

import argparse
import datetime
import os
import resource
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.certs import PASSWORD, CertificateAuthority, Issued, java_keystore

from bench.harness import brokers, kafka_dist, procstat, workloads
from bench.harness.rdkafka_driver import consume_all, produce_max


@dataclass
class Tls:
    ca: CertificateAuthority
    cert: Issued

    def client(self) -> dict[str, object]:
        return {"security.protocol": "SSL", "ssl.ca.location": str(self.ca.ca_pem)}


class FerrologTls(brokers.Ferrolog):
    tls: Tls

    def command(self) -> list[str]:
        cmd = super().command()
        overrides = {
            "listeners": f"SSL://{self.bootstrap}",
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(self.tls.cert.keystore_pem),
            "metrics.listener": "",
        }
        for key, value in overrides.items():
            cmd += ["--override", f"{key}={value}"]
        return cmd


class KafkaTls(brokers.KafkaKRaft):
    tls: Tls

    def prepare(self) -> None:
        super().prepare()
        path = self.workdir / "server.properties"
        props = dict(line.split("=", 1) for line in path.read_text().splitlines() if line)
        controller = props["listeners"].split(",")[1]
        props.update(
            {
                "listeners": f"SSL://{self.bootstrap},{controller}",
                "advertised.listeners": f"SSL://{self.bootstrap}",
                "inter.broker.listener.name": "SSL",
                "listener.security.protocol.map": "SSL:SSL,CONTROLLER:PLAINTEXT",
                "ssl.keystore.type": "PKCS12",
                "ssl.keystore.location": str(java_keystore(self.tls.cert)),
                "ssl.keystore.password": PASSWORD,
                "ssl.key.password": PASSWORD,
                # Kafka checks at start that its inter-broker SSL client trusts its own listener.
                "ssl.truststore.type": "PKCS12",
                "ssl.truststore.location": str(self.tls.ca.java_truststore()),
                "ssl.truststore.password": PASSWORD,
            }
        )
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))


def make(name: str, tls: Tls) -> brokers.Broker:
    broker: brokers.Broker
    if name == "ferrolog":
        broker = FerrologTls("ferrolog", "ferrolog", "native")
        broker.tls = tls  # type: ignore[attr-defined]
    else:
        broker = KafkaTls("kafka4", "kraft", kafka_dist.KAFKA4)
        broker.tls = tls  # type: ignore[attr-defined]
    return broker


def cpu(broker: brokers.Broker) -> float:
    return sum(procstat.cpu_seconds(p) for root in broker.pids for p in procstat.tree(root))


def client_cpu() -> float:
    """CPU seconds of this process so far: the librdkafka clients run in it."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def kcat_consume(broker: brokers.Broker, tls: Tls, topic: str, partitions: int) -> dict[str, float]:
    """Every partition read from the start to its end at once, by one kcat per partition over
    SSL."""
    ssl = ("security.protocol=ssl", f"ssl.ca.location={tls.ca.ca_pem}")
    return workloads.kcat_consume(broker.bootstrap, topic, partitions, ssl)


def one_run(name: str, tls: Tls, args: argparse.Namespace) -> dict[str, float]:
    broker = make(name, tls)
    try:
        broker.prepare()
        broker.spawn()
        try:
            brokers.wait_port(broker.port, 120, broker.proc)
        except RuntimeError as exc:
            raise RuntimeError(f"{name} did not start:\n{broker.log_tail(30)}") from exc
        topic = f"tls-{uuid.uuid4().hex[:8]}"
        admin = AdminClient({"bootstrap.servers": broker.bootstrap, **tls.client()})
        admin.create_topics([NewTopic(topic, args.partitions, 1)])[topic].result(60)
        gigabytes = args.records * args.size / 1e9
        cpu0 = cpu(broker)
        produced = produce_max(
            broker.bootstrap, topic, args.records, args.size, "1", spread=True, client=tls.client()
        )
        cpu1 = cpu(broker)
        client0, thread0 = client_cpu(), time.thread_time()
        consumed = consume_all(
            broker.bootstrap, topic, args.partitions, args.records, timeout=600, client=tls.client()
        )
        client1, thread1 = client_cpu(), time.thread_time()
        cpu2 = cpu(broker)
        parallel = kcat_consume(broker, tls, topic, args.partitions)
        cpu3 = cpu(broker)
        if parallel["records"] != args.records:
            raise RuntimeError(f"kcat read {parallel['records']} of {args.records} records")
        return {
            "produce_mb_s": gigabytes * 1e3 / produced["seconds"],
            "consume_mb_s": gigabytes * 1e3 / consumed["seconds"],
            "produce_cpu_s_gb": (cpu1 - cpu0) / gigabytes,
            "consume_cpu_s_gb": (cpu2 - cpu1) / gigabytes,
            "client_consume_cpu_s_gb": (client1 - client0) / gigabytes,
            "client_consume_thread_busy": (thread1 - thread0) / consumed["seconds"],
            "kcat_consume_mb_s": gigabytes * 1e3 / parallel["seconds"],
            "kcat_consume_cpu_s_gb": (cpu3 - cpu2) / gigabytes,
            "kcat_client_cpu_s_gb": parallel["client_cpu_s"] / gigabytes,
        }
    finally:
        broker.stop()
        broker.cleanup()


ROWS = [
    ("produce_mb_s", "produce MB/s", ">= 1.5"),
    # One client connection's thread sets this pace (the module's docstring says why); the
    # consume goal is on the kcat row.
    ("consume_mb_s", "consume MB/s", "none: client-bound"),
    ("produce_cpu_s_gb", "broker CPU s/GB, produce", "<= 0.5"),
    ("consume_cpu_s_gb", "broker CPU s/GB, consume", "<= 0.5"),
    # Whether the consumer, not the broker, set the pace: its CPU per GB, and how busy the
    # Python thread that takes the records from librdkafka was (1.0: never waited).
    ("client_consume_cpu_s_gb", "client CPU s/GB, consume", ""),
    ("client_consume_thread_busy", "client's Python thread busy, consume", ""),
    ("kcat_consume_mb_s", "consume MB/s, one kcat per partition", ">= 1.5"),
    ("kcat_consume_cpu_s_gb", "broker CPU s/GB, kcat consume", "<= 0.5"),
    ("kcat_client_cpu_s_gb", "kcat CPU s/GB, all of them", ""),
]


def report(runs: dict[str, list[dict[str, float]]], args: argparse.Namespace) -> str:
    med = {
        b: {k: statistics.median(r[k] for r in rs) for k, _, _ in ROWS} for b, rs in runs.items()
    }
    lines = [
        f"# TLS produce and consume, ferrolog vs Apache Kafka {kafka_dist.KAFKA4} (KRaft)",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} cores; "
        f"{args.records:,} records of {args.size} B over {args.partitions} partitions, acks=1, "
        f"librdkafka over SSL; medians of {args.rounds} rounds.",
        "",
        "| measure | ferrolog | Kafka | ratio (ferrolog/Kafka) | goal |",
        "|---|---|---|---|---|",
    ]
    for key, label, goal in ROWS:
        f, k = med["ferrolog"][key], med["kafka4"][key]
        lines.append(f"| {label} | {f:,.2f} | {k:,.2f} | {f / k:.2f} | {goal} |")
    lines += ["", "Each round:", ""]
    for broker, rs in runs.items():
        for i, r in enumerate(rs):
            figures = ", ".join(f"{k} {v:,.1f}" for k, v in r.items())
            lines.append(f"- {broker} round {i}: {figures}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("bench/results/tls-latest.md"))
    args = parser.parse_args()
    ca = CertificateAuthority(Path(tempfile.mkdtemp(prefix="flbench-ca-")))
    tls = Tls(ca, ca.broker())
    runs: dict[str, list[dict[str, Any]]] = {"ferrolog": [], "kafka4": []}
    for i in range(args.rounds):
        for name in ("ferrolog", "kafka4") if i % 2 == 0 else ("kafka4", "ferrolog"):
            result = one_run(name, tls, args)
            runs[name].append(result)
            print(
                f"round {i} {name}: " + ", ".join(f"{k} {v:,.1f}" for k, v in result.items()),
                flush=True,
            )
    text = report(runs, args)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
