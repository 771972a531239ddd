"""Kafka's `kafka-transactions` tool (TransactionsCommand, of KAFKA4) against ferrolog: list,
describe and describe-producers of an open transaction, and find-hanging and abort of a
transaction that no coordinator will ever end (written on a broker with KIP-890 verification
off, the only way such a transaction can start). Skipped where Java or the Kafka jars are
absent."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Iterator

import pytest
from ferrolog.embedded import EmbeddedBroker

from bench.harness import brokers, kafka_dist
from tests.transactions.conftest import (
    FAST_TRANSACTIONS,
    create_topic,
    read_all,
    transactional_producer,
)
from tests.transactions.raw import Client, end_offset, produce_raw, ready

pytestmark = pytest.mark.skipif(
    not brokers.jars_available(),
    reason="needs java and Kafka's jars (make kafka-jars fetches them)",
)


def java(main: str, *args: str) -> str:
    run = subprocess.run(
        ["java", "-Xmx256M", "-cp", kafka_dist.classpath(kafka_dist.KAFKA4), main, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def transactions_tool(bootstrap: str, *args: str) -> list[list[str]]:
    """The rows of the tool's table output (header first), split on its tab separators."""
    out = java("org.apache.kafka.tools.TransactionsCommand", "--bootstrap-server", bootstrap, *args)
    return [[cell.strip() for cell in line.split("\t")[:-1]] for line in out.splitlines()]


def rows(table: list[list[str]]) -> list[dict[str, str]]:
    header, *body = table
    return [dict(zip(header, row, strict=True)) for row in body]


def test_list_describe_and_describe_producers(bootstrap: str, txn_id: str) -> None:
    topic = create_topic(bootstrap, partitions=2)
    producer = transactional_producer(bootstrap, txn_id)
    producer.begin_transaction()
    producer.produce(topic, value=b"open", partition=1)
    assert producer.flush(20) == 0

    listed = rows(transactions_tool(bootstrap, "list"))
    mine = [r for r in listed if r["TransactionalId"] == txn_id]
    assert [r["TransactionState"] for r in mine] == ["Ongoing"]
    producer_id = mine[0]["ProducerId"]
    # ListTransactions v2: the whole id must match the pattern (a prefix alone does not).
    matching = rows(transactions_tool(bootstrap, "list", "--transactional-id-pattern", "tx-.*"))
    assert txn_id in {r["TransactionalId"] for r in matching}
    prefix = rows(transactions_tool(bootstrap, "list", "--transactional-id-pattern", "tx-"))
    assert txn_id not in {r["TransactionalId"] for r in prefix}

    (described,) = rows(transactions_tool(bootstrap, "describe", "--transactional-id", txn_id))
    assert described["TransactionState"] == "Ongoing"
    assert (described["ProducerId"], described["ProducerEpoch"]) == (producer_id, "0")
    assert described["TopicPartitions"] == f"{topic}-1"

    (active,) = rows(
        transactions_tool(bootstrap, "describe-producers", "--topic", topic, "--partition", "1")
    )
    assert active["ProducerId"] == producer_id
    assert active["CurrentTransactionStartOffset"] == "0"

    producer.commit_transaction(30)
    (described,) = rows(transactions_tool(bootstrap, "describe", "--transactional-id", txn_id))
    assert described["TransactionState"] == "CompleteCommit"
    assert described["TopicPartitions"] == ""
    (active,) = rows(
        transactions_tool(bootstrap, "describe-producers", "--topic", topic, "--partition", "1")
    )
    assert active["CurrentTransactionStartOffset"] == "None"  # the tool's word for -1


@pytest.fixture(scope="module")
def unverified_broker() -> Iterator[EmbeddedBroker]:
    overrides = {**FAST_TRANSACTIONS, "transaction.partition.verification.enable": "false"}
    with EmbeddedBroker(overrides=overrides) as broker:
        yield broker


def test_find_hanging_and_abort(unverified_broker: EmbeddedBroker) -> None:
    bootstrap = unverified_broker.bootstrap_servers
    topic = create_topic(bootstrap)
    client = Client(bootstrap)
    try:
        stray_id = f"tx-{uuid.uuid4().hex[:8]}"
        _, stray = ready(client, stray_id)
        # A transactional batch with no AddPartitionsToTxn, an hour old: no coordinator
        # knows of it, so nothing will ever end it.
        hour_ago = int(time.time() * 1000) - 3_600_000
        assert produce_raw(client, stray_id, topic, stray, 9, timestamp=hour_ago) == 0
    finally:
        client.conn.close()
    later = transactional_producer(bootstrap, f"tx-{uuid.uuid4().hex[:8]}")
    later.begin_transaction()
    later.produce(topic, value=b"after")
    later.commit_transaction(30)
    assert read_all(bootstrap, topic, "read_committed") == []  # the stray holds the LSO

    (hanging,) = rows(transactions_tool(bootstrap, "find-hanging", "--broker-id", "0"))
    assert (hanging["Topic"], hanging["Partition"]) == (topic, "0")
    assert hanging["ProducerId"] == str(stray[0])
    assert hanging["StartOffset"] == "0"

    transactions_tool(
        bootstrap, "abort", "--topic", topic, "--partition", "0", "--start-offset", "0"
    )
    assert read_all(bootstrap, topic, "read_committed", 1) == ["after"]
    assert rows(transactions_tool(bootstrap, "find-hanging", "--broker-id", "0")) == []
    client = Client(bootstrap)
    try:
        assert end_offset(client, topic) == 4  # stray, after, its COMMIT, the ABORT
    finally:
        client.conn.close()


def test_kafkas_formatter_reads_the_transaction_log(bootstrap: str, txn_id: str) -> None:
    """`__transaction_state` holds Kafka's TransactionLogKey/Value records: Kafka's own
    TransactionLogMessageFormatter decodes every state the id went through."""
    topic = create_topic(bootstrap)
    producer = transactional_producer(bootstrap, txn_id)
    producer.begin_transaction()
    producer.produce(topic, value=b"x")
    producer.commit_transaction(30)
    out = java(
        "org.apache.kafka.tools.consumer.ConsoleConsumer",
        "--bootstrap-server", bootstrap,
        "--topic", "__transaction_state",
        "--from-beginning",
        "--timeout-ms", "5000",
        "--formatter", "org.apache.kafka.tools.consumer.TransactionLogMessageFormatter",
    )  # fmt: skip
    decoder, pos, states = json.JSONDecoder(), 0, []
    while (start := out.find("{", pos)) >= 0:
        record, pos = decoder.raw_decode(out, start)
        if record["key"]["data"]["transactionalId"] == txn_id:
            states.append(record["value"]["data"]["transactionStatus"])
            partitions = record["value"]["data"]["transactionPartitions"]
    # States 0, 1, 2 and 4 on disk; Kafka 4.4's formatter prints their names.
    assert states == ["Empty", "Ongoing", "PrepareCommit", "CompleteCommit"]
    assert partitions == []
