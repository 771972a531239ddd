"""Fixtures of the quota tests: a broker run in this process (so a test can read the throttle
counts of its native core), and a client of the quota APIs over the wire."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ferrolog.broker import Broker, new_event_loop, serve
from ferrolog.client.connection import Connection
from ferrolog.config import BrokerConfig

DESCRIBE_CLIENT_QUOTAS, ALTER_CLIENT_QUOTAS = 48, 49
# Entity parts as Kafka's ClientQuotaEntity names them: None is the default entity.
Entity = dict[str, str | None]


class QuotaClient:
    """DescribeClientQuotas and AlterClientQuotas as a client sends them."""

    def __init__(self, bootstrap: str) -> None:
        host, _, port = bootstrap.rpartition(":")
        self.conn = Connection(host, int(port), 20, "quota-admin")

    def alter(
        self, entity: Entity, ops: dict[str, float | None], validate_only: bool = False
    ) -> tuple[int, str | None]:
        body = {
            "entries": [
                {
                    "entity": [{"entity_type": t, "entity_name": n} for t, n in entity.items()],
                    "ops": [
                        {"key": k, "value": 0.0 if v is None else v, "remove": v is None}
                        for k, v in ops.items()
                    ],
                }
            ],
            "validate_only": validate_only,
        }
        (entry,) = self.conn.request(ALTER_CLIENT_QUOTAS, 1, body)["entries"]
        return int(entry["error_code"]), entry["error_message"]

    def describe(
        self, components: list[tuple[str, int, str | None]], strict: bool = False
    ) -> tuple[int, dict[tuple[tuple[str, str | None], ...], dict[str, float]]]:
        body = {
            "components": [
                {"entity_type": t, "match_type": m, "match": n} for t, m, n in components
            ],
            "strict": strict,
        }
        r = self.conn.request(DESCRIBE_CLIENT_QUOTAS, 1, body)
        found = {
            tuple(sorted((e["entity_type"], e["entity_name"]) for e in entry["entity"])): {
                v["key"]: v["value"] for v in entry["values"]
            }
            for entry in r["entries"] or []
        }
        return int(r["error_code"]), found

    def clear(self) -> None:
        """Removes every quota."""
        _, found = self.describe([])
        for entity, values in found.items():
            assert self.alter(dict(entity), dict.fromkeys(values)) == (0, None)

    def close(self) -> None:
        self.conn.close()


@dataclass
class RunningBroker:
    broker: Broker
    bootstrap: str
    quotas: QuotaClient

    def throttles(self) -> dict[tuple[str, str, str], tuple[int, int]]:
        """(quota type, user, client-id) -> (total throttle ms, throttled responses)."""
        assert self.broker.native is not None
        return {
            (kind, user, client): (total, count)
            for kind, user, client, total, count in self.broker.native.client_quota_throttles()
        }


@pytest.fixture
def quota_broker() -> Iterator[Callable[..., RunningBroker]]:
    """Starts brokers in this process (each with the given overrides); all stop at the end."""
    stops: list[Callable[[], None]] = []

    def start(**overrides: str) -> RunningBroker:
        data = Path(tempfile.mkdtemp(prefix="ferrolog-quota-"))
        settings = {
            "listeners": "PLAINTEXT://127.0.0.1:0",
            "log.dirs": str(data),
            "metrics.listener": "",
            "group.initial.rebalance.delay.ms": "0",
            **overrides,
        }
        config = BrokerConfig(settings)
        ready = threading.Event()
        started: dict[str, Any] = {}
        stop = asyncio.Event()
        loop = new_event_loop()

        def on_ready(broker: Broker) -> None:
            started["broker"] = broker
            ready.set()

        def run() -> None:
            try:
                loop.run_until_complete(serve(config, on_ready, stop))
            except BaseException as exc:
                started["error"] = exc
            finally:
                ready.set()

        thread = threading.Thread(target=run, name="quota-broker", daemon=True)
        thread.start()
        assert ready.wait(30), "the broker did not start"
        if "error" in started:
            raise started["error"]
        broker: Broker = started["broker"]
        client = QuotaClient(broker.bootstrap)

        def halt() -> None:
            client.close()
            loop.call_soon_threadsafe(stop.set)
            thread.join(30)
            loop.close()
            shutil.rmtree(data, ignore_errors=True)

        stops.append(halt)
        return RunningBroker(broker, broker.bootstrap, client)

    yield start
    for halt in reversed(stops):
        halt()
