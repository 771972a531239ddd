"""What Prometheus scraping costs the data path (issue 15): one ferrolog broker with
`metrics.listener` on, the librdkafka producer at full speed over every partition of several
topics (acks=1), run alternately with and without a scraper fetching `/metrics` every second,
so both halves share the machine's noise.

    python -m bench.metrics_bench [--partitions 1000] [--records 4000000] [--size 100] [--rounds 5]

Prints, and writes to `bench/results/metrics-latest.md`, each half's median records/s, the
cost (1 - scraped/unscraped), and the median time and size of one scrape at that partition
count. The broker is started once, and every round writes to the same topics."""

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

from bench.harness import brokers, workloads
from bench.harness.rdkafka_driver import produce_max

TOPICS = 10
SCRAPE_INTERVAL_S = 1.0


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
            with urllib.request.urlopen(self.url, timeout=30) as response:
                self.sizes.append(len(response.read()))
            self.seconds.append(time.perf_counter() - started)
            self.stop.wait(max(0.0, SCRAPE_INTERVAL_S - self.seconds[-1]))


def create_topics(broker: Scraped, partitions: int) -> list[str]:
    prefix = f"m{uuid.uuid4().hex[:6]}"
    topics = [f"{prefix}-{i}" for i in range(TOPICS)]
    for topic in topics:
        workloads.create_topic(broker.bootstrap, topic, partitions // TOPICS)
    return topics


def one_round(
    broker: Scraped, topics: list[str], args: argparse.Namespace, scraped: bool
) -> tuple[float, Scraper]:
    scraper = Scraper(broker.metrics_url)
    if scraped:
        scraper.start()
    try:
        result = produce_max(
            broker.bootstrap, ",".join(topics), args.records, args.size, "1", spread=True
        )
    finally:
        scraper.stop.set()
        if scraped:
            scraper.join()
    return result["records"] / result["seconds"], scraper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--records", type=int, default=4_000_000)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("bench/results/metrics-latest.md"))
    args = parser.parse_args()

    broker = Scraped("ferrolog", "ferrolog", "native")
    rates: dict[bool, list[float]] = {False: [], True: []}
    scrape_s: list[float] = []
    scrape_bytes: list[int] = []
    try:
        broker.spawn()
        brokers.wait_port(broker.port, 120, broker.proc)
        # The same partitions every round, so each scrape reads as much as the first.
        topics = create_topics(broker, args.partitions)
        for i in range(args.rounds):
            # Alternate which half goes first, so a drift in the machine's load is shared.
            for scraped in (False, True) if i % 2 == 0 else (True, False):
                rate, scraper = one_round(broker, topics, args, scraped)
                rates[scraped].append(rate)
                scrape_s += scraper.seconds
                scrape_bytes += scraper.sizes
                print(
                    f"round {i} scraped={scraped}: {rate:,.0f} records/s"
                    + (f", {len(scraper.seconds)} scrapes" if scraped else ""),
                    flush=True,
                )
    finally:
        broker.cleanup()

    plain, with_scrapes = statistics.median(rates[False]), statistics.median(rates[True])
    cost = 1 - with_scrapes / plain
    scrape_ms = statistics.median(scrape_s) * 1000
    lines = [
        "# Scrape cost (issue 15)",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; `python -m bench.metrics_bench"
        f" --partitions {args.partitions} --records {args.records} --size {args.size}"
        f" --rounds {args.rounds}`; one ferrolog broker, librdkafka producer, acks=1, records"
        " spread over every partition; the halves alternate within each round.",
        "",
        "| | median records/s | runs |",
        "|---|---|---|",
        f"| no scrapes | {plain:,.0f} | {', '.join(f'{r:,.0f}' for r in rates[False])} |",
        f"| /metrics every {SCRAPE_INTERVAL_S:g} s | {with_scrapes:,.0f} |"
        f" {', '.join(f'{r:,.0f}' for r in rates[True])} |",
        "",
        f"Cost of scraping: **{cost:.1%}** of throughput (goal: under 2 %).",
        f"One scrape at {args.partitions} partitions: median {scrape_ms:.0f} ms,"
        f" {statistics.median(scrape_bytes) / 1024:.0f} KiB ({len(scrape_s)} scrapes).",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
