"""Every API and version ferrolog advertises against what Apache Kafka 4 advertises (issue
14): one fresh broker of each, an ApiVersions v4 request to both, and a table of the ranges
side by side, with the supported and finalized features of both.

    python -m bench.api_versions_table [--out bench/results/api-versions-latest.md] [--kafka 4.4.0]

Kafka runs in KRaft mode, so its table holds the APIs a KRaft broker serves to clients (the
controller-only APIs are not listed by a broker); ferrolog's is what a client of its only
listener sees."""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path
from typing import Any

from ferrolog.client.connection import Connection
from ferrolog.protocol.messages import Apis, ApiVersionsRequest, ApiVersionsResponse
from ferrolog.protocol.schemas import REQUESTS

from bench.harness import brokers, kafka_dist

# Why Kafka serves an API that ferrolog does not (the file must say, issue 30). An API that
# only Kafka serves and that is missing here shows up as "no reason recorded".
_KRAFT = "KRaft's own (ferrolog's controller is elected through ZooKeeper)"
_SHARE = "share groups (KIP-932): issue 31"
_STREAMS = "streams groups (KIP-1071): issue 31"
KAFKA_ONLY_REASONS: dict[int, str] = {
    55: _KRAFT,  # DescribeQuorum
    64: _KRAFT,  # UnregisterBroker
    76: _SHARE,
    77: _SHARE,
    78: _SHARE,
    79: _SHARE,
    80: _KRAFT,  # AddRaftVoter
    81: _KRAFT,  # RemoveRaftVoter
    83: _SHARE,  # the share coordinator's state APIs
    84: _SHARE,
    85: _SHARE,
    86: _SHARE,
    87: _SHARE,
    88: _STREAMS,
    89: _STREAMS,
    90: _SHARE,  # share group offsets
    91: _SHARE,
    92: _SHARE,
    93: _STREAMS,
    94: _KRAFT,  # UnregisterController
}


def advertised(bootstrap: str) -> ApiVersionsResponse:
    host, _, port = bootstrap.rpartition(":")
    conn = Connection(host, int(port), 10, "api-versions-table")
    try:
        body: ApiVersionsRequest = {
            "client_software_name": "ferrolog-bench",
            "client_software_version": "1",
        }
        return conn.request(Apis.API_VERSIONS, 4, body)
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


def remark(key: int, ours: tuple[int, int] | None, theirs: tuple[int, int] | None) -> str:
    if ours is None and theirs is not None:
        return KAFKA_ONLY_REASONS.get(key, "no reason recorded")
    if ours is not None and theirs is not None and ours[1] < theirs[1]:
        return "behind Kafka"
    return ""


def show(r: tuple[int, int] | None) -> str:
    return f"{r[0]}-{r[1]}" if r else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("bench/results/api-versions-latest.md"))
    parser.add_argument("--kafka", default="4.4.0", help="the Apache Kafka release to compare")
    args = parser.parse_args()
    kafka_dist.fetch(args.kafka)
    answers: dict[str, dict[str, Any]] = {}
    for broker in (
        brokers.Ferrolog("ferrolog", "ferrolog", "native"),
        brokers.KafkaKRaft("kafka4", "kraft", args.kafka),
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
        f"| {key} | {name(key)} | {show(a)} | {show(b)} | {compare(a, b)} | {remark(key, a, b)} |"
        for key in sorted(ours.keys() | theirs.keys())
        for a, b in [(ours.get(key), theirs.get(key))]
    ]
    counts = {
        what: sum(compare(ours.get(k), theirs.get(k)) == what for k in ours.keys() | theirs.keys())
        for what in ("same", "differs", "Kafka only", "ferrolog only")
    }
    text = "\n".join(
        [
            f"# ApiVersions: ferrolog vs Apache Kafka {args.kafka} (KRaft)",
            "",
            f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC;"
            " `python -m bench.api_versions_table`; ApiVersions v4 to a fresh broker of each.",
            "",
            ", ".join(f"{what}: {n}" for what, n in counts.items()),
            "",
            f"- ferrolog features: {features(answers['ferrolog'])}",
            f"- Kafka features: {features(answers['kafka4'])}",
            "",
            "| key | API | ferrolog | Kafka | | why |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    )
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
