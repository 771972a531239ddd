"""ShareFetch and ShareAcknowledge (KIP-932) as the partition leader answers them: share
session epochs, records acquired with their delivery counts, acknowledgements by the member
holding the records only, releases on a closed session, and Kafka's errors for requests that
are out of order or malformed.

FERROLOG_SHARE_BOOTSTRAP=host:port runs the same tests against another broker (Kafka 4.4
with `share_tools.SHARE_SETTINGS`)."""

from __future__ import annotations

import os
import time
import uuid

import pytest
from confluent_kafka.admin import AdminClient
from ferrolog.client.connection import Connection
from ferrolog.embedded import EmbeddedBroker

from tests.groups.conftest import create_topic, produce
from tests.groups.share_tools import (
    ACCEPT,
    INVALID_RECORD_STATE,
    REJECT,
    RELEASE,
    Member,
    acquired,
    earliest,
    fetch_until_acquired,
    find_coordinator,
    partition_codes,
)
from tests.metrics.scraping import scrape
from tests.waiting import wait_until

pytestmark = pytest.mark.native

NONE, INVALID_REQUEST = 0, 42
SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH = 122, 123


@pytest.fixture
def bootstrap(share_bootstrap: str) -> str:
    return share_bootstrap


@pytest.fixture
def conn(share_conn: Connection) -> Connection:
    return share_conn


def ready_member(bootstrap: str, conn: Connection, records: int) -> Member:
    """A member of a new group, joined to a new one-partition topic holding `records`."""
    topic = create_topic(bootstrap, partitions=1)
    produce(bootstrap, topic, per_partition=records, partitions=1)
    group = f"share-{uuid.uuid4().hex[:8]}"
    find_coordinator(conn, group)
    earliest(bootstrap, group)
    member = Member(conn, group, topic)
    member.join()
    return member


def test_session_epochs_and_request_checks(conn: Connection, bootstrap: str) -> None:
    member = ready_member(bootstrap, conn, records=3)
    assert member.acknowledge([(0, 0, [ACCEPT])], epoch=0)["error_code"] == (
        INVALID_SHARE_SESSION_EPOCH
    )
    assert member.acknowledge([(0, 0, [ACCEPT])], epoch=4)["error_code"] == (
        SHARE_SESSION_NOT_FOUND
    )
    # A new session cannot carry acknowledgements.
    assert member.fetch(acks=[(0, 0, [ACCEPT])])["error_code"] == INVALID_REQUEST
    first = fetch_until_acquired(member)
    assert first["acquisition_lock_timeout_ms"] > 0
    assert member.acknowledge([(0, 0, [ACCEPT])], epoch=member.epoch + 5)["error_code"] == (
        INVALID_SHARE_SESSION_EPOCH
    )
    no_member = dict(member.__dict__)
    stranger = Member.__new__(Member)
    stranger.__dict__.update(no_member, id="")
    assert stranger.fetch()["error_code"] == INVALID_REQUEST


def test_acquire_acknowledge_and_redeliver(conn: Connection, bootstrap: str) -> None:
    member = ready_member(bootstrap, conn, records=10)
    answer = fetch_until_acquired(member)
    assert acquired(answer) == [(0, 9, 1)]
    (records,) = [p["records"] for t in answer["responses"] for p in t["partitions"]]
    assert records
    # Accept 0-4, release 5-7, reject 8-9 (one type per offset for the last ones).
    answer = member.acknowledge([(0, 4, [ACCEPT]), (5, 7, [RELEASE]), (8, 9, [REJECT, REJECT])])
    assert answer["error_code"] == NONE
    assert partition_codes(answer) == [NONE]
    # Done records cannot be acknowledged again; below the start offset they are skipped.
    answer = member.acknowledge([(8, 8, [ACCEPT])])
    assert partition_codes(answer) == [INVALID_RECORD_STATE]
    answer = member.acknowledge([(0, 0, [ACCEPT])])
    assert partition_codes(answer) == [NONE]
    # Malformed batches: backwards, and a type count that fits neither one nor the range.
    answer = member.acknowledge([(3, 2, [ACCEPT])])
    assert partition_codes(answer) == [INVALID_REQUEST]
    answer = member.acknowledge([(5, 7, [ACCEPT, ACCEPT])])
    assert partition_codes(answer) == [INVALID_REQUEST]
    # The released ones come back, counted.
    answer = fetch_until_acquired(member)
    assert acquired(answer) == [(5, 7, 2)]
    # Piggybacked on the next fetch: accepted, and nothing is left.
    answer = member.fetch(acks=[(5, 7, [ACCEPT])])
    assert partition_codes(answer, "acknowledge_error_code") == [NONE]
    assert acquired(answer) == []


def test_another_member_cannot_acknowledge_and_a_closed_session_releases(
    conn: Connection, bootstrap: str
) -> None:
    holder = ready_member(bootstrap, conn, records=4)
    assert acquired(fetch_until_acquired(holder)) == [(0, 3, 1)]
    other = Member(conn, holder.group, holder.topic)
    other.join()
    assert acquired(other.fetch()) == []
    answer = other.acknowledge([(0, 3, [ACCEPT])])
    assert partition_codes(answer) == [INVALID_RECORD_STATE]
    # The holder leaves its session (epoch -1): what it held goes to the other member.
    closed = holder.acknowledge([(0, 0, [ACCEPT])], epoch=-1)
    assert partition_codes(closed) == [NONE]
    deadline = time.monotonic() + 30
    while not (got := acquired(other.fetch())):
        assert time.monotonic() < deadline
    assert got == [(1, 3, 2)]


def test_share_partition_metrics(
    conn: Connection, bootstrap: str, request: pytest.FixtureRequest
) -> None:
    if os.environ.get("FERROLOG_SHARE_BOOTSTRAP"):
        pytest.skip("reads ferrolog's /metrics")
    broker: EmbeddedBroker = request.getfixturevalue("share_broker")
    member = ready_member(bootstrap, conn, records=10)
    assert acquired(fetch_until_acquired(member)) == [(0, 9, 1)]
    tags = (("group", member.group), ("partition", "0"), ("topic", member.topic))
    samples = scrape(broker)
    assert samples[("kafka_server_sharepartitionmetrics_inflightmessagecount", tags)] == 10
    assert samples[("kafka_server_sharepartitionmetrics_inflightbatchcount", tags)] >= 1
    assert samples[("kafka_server_sharepartitionmetrics_acquisitionlocktimeout_total", tags)] == 0
    assert samples[("kafka_sharegroup_lag", tags)] == 10
    # Acknowledged past the start offset (0 is still held): out of the lag already.
    assert partition_codes(member.acknowledge([(1, 9, [ACCEPT])])) == [NONE]
    samples = scrape(broker)
    assert samples[("kafka_sharegroup_lag", tags)] == 1
    assert samples[("kafka_server_sharepartitionmetrics_inflightmessagecount", tags)] == 10
    assert partition_codes(member.acknowledge([(0, 0, [ACCEPT])])) == [NONE]
    samples = scrape(broker)
    assert samples[("kafka_server_sharepartitionmetrics_inflightmessagecount", tags)] == 0
    assert samples[("kafka_sharegroup_lag", tags)] == 0
    # A deleted topic's share-partitions are forgotten.
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.delete_topics([member.topic])[member.topic].result(30)
    gauge = ("kafka_server_sharepartitionmetrics_inflightmessagecount", tags)
    wait_until(lambda: gauge not in scrape(broker), 10, what="the share-partition forgotten")
