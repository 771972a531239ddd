"""What Prometheus scraping costs the data path (issue 15): one ferrolog broker with
`metrics.listener` on, the librdkafka producer at full speed over every partition of the
topics (acks=1), run alternately with and without a scraper fetching `/metrics` every second
as Prometheus does (its Accept and Accept-Encoding headers: OpenMetrics, gzip), so both halves
share the machine's noise.

    python -m bench.metrics_bench [--partitions 1000] [--topics 10] [--records 4000000]
                                  [--size 100] [--rounds 5] [--out FILE]

The bench's own produce workload is `--partitions 6 --topics 1`. Prints, and writes to
`--out`, each half's median records/s, the cost as the median over rounds of
1 - scraped/unscraped (each round's halves run back to back, so a drift in the machine's load
cancels out), the broker's CPU per million records in each half, and the median time and size
of one scrape. The broker is started once, and every round writes to the same topics."""

from __future__ import annotations

import argparse
import datetime
import statistics
import threading
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness import brokers, procstat, workloads
from bench.harness.rdkafka_driver import produce_max

SCRAPE_INTERVAL_S = 1.0
# What Prometheus 2.x sends with every scrape.
PROMETHEUS_HEADERS = {
    "Accept": "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
    "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
    "Accept-Encoding": "gzip",
}


@dataclass
class Scraped(brokers.Ferrolog):
    metrics_port: int = field(default_factory=brokers.free_port)

    @property
    def metrics_url(self) -> str:
        return f"http://127.0.0.1:{self.metrics_port}/metrics"

    def command(self) -> list[str]:
        listener = f"metrics.listener=http://127.0.0.1:{self.metrics_port}"
        return [*super().command(), "--override", listener]


class Scraper(threading.Thread):
    """Fetches /metrics every second, as a Prometheus with `scrape_interval: 1s` would."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.stop = threading.Event()
        self.seconds: list[float] = []
        self.sizes: list[int] = []

    def run(self) -> None:
        while not self.stop.is_set():
            started = time.perf_counter()
            request = urllib.request.Request(self.url, headers=PROMETHEUS_HEADERS)
            with urllib.request.urlopen(request, timeout=30) as response:
                self.sizes.append(len(response.read()))
            self.seconds.append(time.perf_counter() - started)
            self.stop.wait(max(0.0, SCRAPE_INTERVAL_S - self.seconds[-1]))


def create_topics(broker: Scraped, partitions: int, count: int) -> list[str]:
    prefix = f"m{uuid.uuid4().hex[:6]}"
    topics = [f"{prefix}-{i}" for i in range(count)]
    for topic in topics:
        workloads.create_topic(broker.bootstrap, topic, partitions // count)
    return topics


@dataclass
class Half:
    rate: float  # records/s
    cpu_per_million: float  # broker CPU seconds per million records


def broker_cpu(broker: Scraped) -> float:
    return sum(procstat.cpu_seconds(pid) for pid in broker.pids)


def one_half(
    broker: Scraped, topics: list[str], args: argparse.Namespace, scraped: bool
) -> tuple[Half, Scraper]:
    scraper = Scraper(broker.metrics_url)
    if scraped:
        scraper.start()
    cpu0 = broker_cpu(broker)
    try:
        result = produce_max(
            broker.bootstrap, ",".join(topics), args.records, args.size, "1", spread=True
        )
    finally:
        scraper.stop.set()
        if scraped:
            scraper.join()
    cpu = broker_cpu(broker) - cpu0
    half = Half(result["records"] / result["seconds"], cpu / result["records"] * 1e6)
    return half, scraper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--topics", type=int, default=10)
    parser.add_argument("--records", type=int, default=4_000_000)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("bench/results/metrics-latest.md"))
    args = parser.parse_args()

    broker = Scraped("ferrolog", "ferrolog", "native")
    halves: dict[bool, list[Half]] = {False: [], True: []}
    scrape_s: list[float] = []
    scrape_bytes: list[int] = []
    try:
        broker.spawn()
        brokers.wait_port(broker.port, 120, broker.proc)
        # The same partitions every round, so each scrape reads as much as the first.
        topics = create_topics(broker, args.partitions, args.topics)
        for i in range(args.rounds):
            # Alternate which half goes first, so a drift in the machine's load is shared.
            for scraped in (False, True) if i % 2 == 0 else (True, False):
                half, scraper = one_half(broker, topics, args, scraped)
                halves[scraped].append(half)
                scrape_s += scraper.seconds
                scrape_bytes += scraper.sizes
                print(
                    f"round {i} scraped={scraped}: {half.rate:,.0f} records/s,"
                    f" {half.cpu_per_million:.2f} broker CPU s per million records"
                    + (f", {len(scraper.seconds)} scrapes" if scraped else ""),
                    flush=True,
                )
    finally:
        broker.cleanup()

    def median(scraped: bool, of: str) -> float:
        return float(statistics.median(getattr(h, of) for h in halves[scraped]))

    costs = [1 - s.rate / p.rate for p, s in zip(halves[False], halves[True], strict=True)]
    cost = statistics.median(costs)
    cpu_cost = median(True, "cpu_per_million") / median(False, "cpu_per_million") - 1
    scrape_ms = statistics.median(scrape_s) * 1000

    def runs(scraped: bool) -> str:
        return ", ".join(f"{h.rate:,.0f}" for h in halves[scraped])

    lines = [
        "# Scrape cost (issue 15)",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; `python -m bench.metrics_bench"
        f" --partitions {args.partitions} --topics {args.topics} --records {args.records}"
        f" --size {args.size} --rounds {args.rounds}`; one ferrolog broker, librdkafka producer,"
        " acks=1, records spread over every partition; scrapes with Prometheus' headers"
        " (OpenMetrics, gzip); the halves alternate within each round.",
        "",
        "| | median records/s | broker CPU s per million records | runs (records/s) |",
        "|---|---|---|---|",
        f"| no scrapes | {median(False, 'rate'):,.0f} | {median(False, 'cpu_per_million'):.2f}"
        f" | {runs(False)} |",
        f"| /metrics every {SCRAPE_INTERVAL_S:g} s | {median(True, 'rate'):,.0f}"
        f" | {median(True, 'cpu_per_million'):.2f} | {runs(True)} |",
        "",
        f"Cost of scraping: **{cost:.1%}** of throughput, the median of the rounds' paired costs"
        f" ({', '.join(f'{c:.1%}' for c in costs)}); goal: under 2 %.",
        f"Broker CPU per record: {cpu_cost:+.1%} with scrapes.",
        f"One scrape at {args.partitions} partitions: median {scrape_ms:.0f} ms,"
        f" {statistics.median(scrape_bytes) / 1024:.0f} KiB gzipped ({len(scrape_s)} scrapes).",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
