"""Raw Kafka-protocol requests of the transaction APIs, for the tests that need to see (or
send) exactly what a client would: epochs, error codes, stray transactional batches."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import ferrolog_native
from ferrolog import errors
from ferrolog.client.connection import Connection

from tests.waiting import wait_until

T = TypeVar("T")

FIND_COORDINATOR, INIT_PRODUCER_ID, ADD_PARTITIONS, ADD_OFFSETS, END_TXN = 10, 22, 24, 25, 26
WRITE_TXN_MARKERS, TXN_OFFSET_COMMIT = 27, 28
PRODUCE, LIST_OFFSETS = 0, 2


class Client:
    def __init__(self, bootstrap: str) -> None:
        host, _, port = bootstrap.rpartition(":")
        self.conn = Connection(host, int(port), 20, "txn-test")

    def request(self, api_key: int, version: int, body: dict[str, Any]) -> dict[str, Any]:
        return self.conn.request(api_key, version, body)

    def init(self, txn_id: str, producer: tuple[int, int] = (-1, -1), timeout: int = 60000) -> Any:
        r = self.request(
            INIT_PRODUCER_ID,
            4,
            {
                "transactional_id": txn_id,
                "transaction_timeout_ms": timeout,
                "producer_id": producer[0],
                "producer_epoch": producer[1],
            },
        )
        return r["error_code"], (r["producer_id"], r["producer_epoch"])

    def add(
        self, txn_id: str, producer: tuple[int, int], topic: str, *parts: int
    ) -> dict[int, int]:
        r = self.request(
            ADD_PARTITIONS,
            3,
            {
                "v3_and_below_transactional_id": txn_id,
                "v3_and_below_producer_id": producer[0],
                "v3_and_below_producer_epoch": producer[1],
                "v3_and_below_topics": [{"name": topic, "partitions": list(parts)}],
            },
        )
        (t,) = r["results_by_topic_v3_and_below"]
        return {p["partition_index"]: p["partition_error_code"] for p in t["results_by_partition"]}

    def end(self, txn_id: str, producer: tuple[int, int], commit: bool, version: int = 3) -> int:
        r = self.request(
            END_TXN,
            version,
            {
                "transactional_id": txn_id,
                "producer_id": producer[0],
                "producer_epoch": producer[1],
                "committed": commit,
            },
        )
        return int(r["error_code"])

    def end_v2(
        self, txn_id: str, producer: tuple[int, int], commit: bool
    ) -> tuple[int, tuple[int, int]]:
        """EndTxn v5 (transaction version 2): the error code and the producer id and epoch
        to go on with."""
        r = self.request(
            END_TXN,
            5,
            {
                "transactional_id": txn_id,
                "producer_id": producer[0],
                "producer_epoch": producer[1],
                "committed": commit,
            },
        )
        return int(r["error_code"]), (r["producer_id"], r["producer_epoch"])


def until_answered(call: Callable[[], T], retry: Callable[[T], bool], what: str) -> T:
    """`call()`'s first answer that `retry` does not reject (a coordinator loading, a leader
    not elected yet), polled as a client retries."""
    (answer,) = wait_until(lambda: [a] if not retry(a := call()) else None, what=what)
    return answer


def found(client: Client, txn_id: str) -> None:
    """FindCoordinator for the id (which creates `__transaction_state`), until its partition
    is loaded."""
    # Kafka answers COORDINATOR_NOT_AVAILABLE while it creates the topic.
    r = until_answered(
        lambda: client.request(FIND_COORDINATOR, 3, {"key": txn_id, "key_type": 1}),
        lambda a: a["error_code"] == errors.CoordinatorNotAvailableError.code,
        "a transaction coordinator",
    )
    assert r["error_code"] == 0
    assert r["node_id"] >= 0


def ready(client: Client, txn_id: str, **kw: Any) -> tuple[int, tuple[int, int]]:
    found(client, txn_id)
    not_ready = (errors.CoordinatorLoadInProgressError.code, errors.NotCoordinatorError.code)
    return until_answered(
        lambda: client.init(txn_id, **kw), lambda a: a[0] in not_ready, "the coordinator"
    )


def produce_raw(
    client: Client | Connection,
    txn_id: str | None,
    topic: str,
    producer: tuple[int, int],
    version: int,
    sequence: int = 0,
    timestamp: int | None = None,
) -> int:
    batch = ferrolog_native.build_batch(
        [(b"k", b"stray", [], int(time.time() * 1000) if timestamp is None else timestamp)],
        producer_id=producer[0],
        producer_epoch=producer[1],
        base_sequence=sequence,
        transactional=True,
    )
    body = {
        "transactional_id": txn_id,
        "acks": -1,
        "timeout_ms": 5000,
        "topic_data": [{"name": topic, "partition_data": [{"index": 0, "records": batch}]}],
    }

    def answer() -> int:
        r = client.request(PRODUCE, version, body)
        return int(r["responses"][0]["partition_responses"][0]["error_code"])

    # A topic just created may not have its leader everywhere yet (Kafka).
    leaderless = errors.NotLeaderOrFollowerError.code
    return until_answered(answer, lambda code: code == leaderless, "a leader")


def end_offset(client: Client, topic: str) -> int:
    r = client.request(
        LIST_OFFSETS,
        7,
        {
            "replica_id": -1,
            "isolation_level": 0,
            "topics": [{"name": topic, "partitions": [{"partition_index": 0, "timestamp": -1}]}],
        },
    )
    return int(r["topics"][0]["partitions"][0]["offset"])
