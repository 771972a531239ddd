"""Timeouts and expiry on a broker with short ones: `transaction.max.timeout.ms` bounds what
a producer may ask for, and a transactional id idle past `transactional.id.expiration.ms` is
removed (a tombstone in `__transaction_state`), so DescribeTransactions no longer knows it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from ferrolog import errors
from ferrolog.embedded import EmbeddedBroker

from tests.transactions.conftest import FAST_TRANSACTIONS
from tests.transactions.raw import Client, ready
from tests.waiting import wait_until

DESCRIBE_TRANSACTIONS = 65


@pytest.fixture(scope="module")
def short_broker() -> Iterator[EmbeddedBroker]:
    overrides = {
        **FAST_TRANSACTIONS,
        "transaction.max.timeout.ms": "5000",
        "transactional.id.expiration.ms": "1500",
        "transaction.remove.expired.transaction.cleanup.interval.ms": "200",
    }
    with EmbeddedBroker(overrides=overrides) as broker:
        yield broker


def test_max_timeout_and_id_expiration(short_broker: EmbeddedBroker) -> None:
    client = Client(short_broker.bootstrap_servers)
    try:
        txn_id = f"tx-{uuid.uuid4().hex[:8]}"
        code, _ = ready(client, txn_id, timeout=5001)
        assert code == errors.InvalidTransactionTimeoutError.code
        code, (producer_id, _) = ready(client, txn_id, timeout=5000)
        assert code == 0

        def state() -> int:
            r = client.request(DESCRIBE_TRANSACTIONS, 0, {"transactional_ids": [txn_id]})
            return int(r["transaction_states"][0]["error_code"])

        assert state() == 0
        wait_until(
            lambda: state() == errors.TransactionalIdNotFoundError.code,
            20,
            what="the idle id to expire",
        )
        # Expired: the id starts over with a new producer id at epoch 0.
        code, (new_id, epoch) = client.init(txn_id, timeout=5000)
        assert (code, epoch) == (0, 0)
        assert new_id != producer_id
    finally:
        client.conn.close()
