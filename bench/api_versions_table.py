"""Every API and version ferrolog advertises against what Apache Kafka 4 advertises (issue
14): one fresh broker of each, an ApiVersions v4 request to both, and a table of the ranges
side by side, with the supported and finalized features of both.

    python -m bench.api_versions_table [--out bench/results/api-versions-latest.md]

Kafka runs in KRaft mode, so its table holds the APIs a KRaft broker serves to clients (the
controller-only APIs are not listed by a broker); ferrolog's is what a client of its only
listener sees."""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path
from typing import Any

from ferrolog.connection import Connection
from ferrolog.protocol.schemas import REQUESTS

from bench.harness import brokers, kafka_dist

API_VERSIONS = 18


def advertised(bootstrap: str) -> dict[str, Any]:
    host, _, port = bootstrap.rpartition(":")
    conn = Connection(host, int(port), 10, "api-versions-table")
    try:
        body = {"client_software_name": "ferrolog-bench", "client_software_version": "1"}
        return conn.request(API_VERSIONS, 4, body)
    finally:
        conn.close()


def ranges(response: dict[str, Any]) -> dict[int, tuple[int, int]]:
    return {k["api_key"]: (k["min_version"], k["max_version"]) for k in response["api_keys"]}


def features(response: dict[str, Any]) -> str:
    supported = ", ".join(
        f"{f['name']} {f['min_version']}-{f['max_version']}"
        for f in response.get("supported_features", [])
    )
    finalized = ", ".join(
        f"{f['name']} {f['max_version_level']}" for f in response.get("finalized_features", [])
    )
    return f"supported: {supported or 'none'}; finalized: {finalized or 'none'}"


def name(key: int) -> str:
    request = REQUESTS.get(key)
    return request[0].removesuffix("Request") if request else f"(api {key}, not in our schemas)"


def compare(ours: tuple[int, int] | None, theirs: tuple[int, int] | None) -> str:
    if ours == theirs:
        return "same"
    if ours is None:
        return "Kafka only"
    if theirs is None:
        return "ferrolog only"
    return "differs"


def show(r: tuple[int, int] | None) -> str:
    return f"{r[0]}-{r[1]}" if r else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("bench/results/api-versions-latest.md"))
    args = parser.parse_args()
    kafka_dist.fetch(kafka_dist.KAFKA4)
    answers: dict[str, dict[str, Any]] = {}
    for broker in (
        brokers.Ferrolog("ferrolog", "ferrolog", "native"),
        brokers.KafkaKRaft("kafka4", "kraft", kafka_dist.KAFKA4),
    ):
        try:
            broker.prepare()
            broker.spawn()
            brokers.wait_port(broker.port, 120, broker.proc)
            answers[broker.name] = advertised(broker.bootstrap)
        finally:
            broker.stop()
            broker.cleanup()
    ours, theirs = ranges(answers["ferrolog"]), ranges(answers["kafka4"])
    rows = [
        f"| {key} | {name(key)} | {show(ours.get(key))} | {show(theirs.get(key))} |"
        f" {compare(ours.get(key), theirs.get(key))} |"
        for key in sorted(ours.keys() | theirs.keys())
    ]
    counts = {
        what: sum(compare(ours.get(k), theirs.get(k)) == what for k in ours.keys() | theirs.keys())
        for what in ("same", "differs", "Kafka only", "ferrolog only")
    }
    text = "\n".join(
        [
            f"# ApiVersions: ferrolog vs Apache Kafka {kafka_dist.KAFKA4} (KRaft)",
            "",
            f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC;"
            " `python -m bench.api_versions_table`; ApiVersions v4 to a fresh broker of each.",
            "",
            ", ".join(f"{what}: {n}" for what, n in counts.items()),
            "",
            f"- ferrolog features: {features(answers['ferrolog'])}",
            f"- Kafka features: {features(answers['kafka4'])}",
            "",
            "| key | API | ferrolog | Kafka | |",
            "|---|---|---|---|---|",
            *rows,
            "",
        ]
    )
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
