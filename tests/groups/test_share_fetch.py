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
    RENEW,
    Member,
    acquired,
    earliest,
    fetch_until_acquired,
    find_coordinator,
    partition_codes,
    set_group_config,
)
from tests.metrics.scraping import scrape
from tests.waiting import wait_until

pytestmark = pytest.mark.native

NONE, INVALID_REQUEST, UNKNOWN_SERVER_ERROR = 0, 42, -1
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


def test_record_limit_mode_acquires_no_more_than_max_records(
    conn: Connection, bootstrap: str
) -> None:
    """ShareFetch v2's record_limit acquire mode (KIP-1206): exactly MaxRecords, the rest of
    the log batch left for the next fetch, first delivery; batch_optimized takes whole
    batches."""
    member = ready_member(bootstrap, conn, records=10)
    answer = fetch_until_acquired(member, max_records=3, version=2, share_acquire_mode=1)
    assert acquired(answer) == [(0, 2, 1)]
    answer = member.fetch(max_records=4, version=2, share_acquire_mode=1)
    assert acquired(answer) == [(3, 6, 1)]
    answer = member.fetch(max_records=3, version=2, share_acquire_mode=0)
    assert acquired(answer) == [(7, 9, 1)]
    unknown = member.fetch(version=2, share_acquire_mode=2)
    # Kafka 4.4's enum lookup throws, which it answers as UNKNOWN_SERVER_ERROR.
    external = os.environ.get("FERROLOG_SHARE_BOOTSTRAP")
    assert unknown["error_code"] == (UNKNOWN_SERVER_ERROR if external else INVALID_REQUEST)


def test_renew_keeps_the_lock_and_needs_v2_and_is_renew_ack(
    conn: Connection, bootstrap: str
) -> None:
    """RENEW (KIP-1222): only in a v2 request that says IsRenewAck (else INVALID_REQUEST for
    the partition); the records stay with their holder, and ShareAcknowledge v2 answers the
    lock duration. A ShareFetch that renews fetches nothing and must ask for nothing."""
    member = ready_member(bootstrap, conn, records=5)
    first = fetch_until_acquired(member)
    assert acquired(first) == [(0, 4, 1)]
    lock_ms = first["acquisition_lock_timeout_ms"]
    assert partition_codes(member.acknowledge([(0, 4, [RENEW])])) == [INVALID_REQUEST]
    not_said = member.acknowledge([(0, 4, [RENEW])], version=2)
    assert partition_codes(not_said) == [INVALID_REQUEST]
    renewed = member.acknowledge([(0, 1, [RENEW])], version=2, renew=True)
    assert (renewed["error_code"], partition_codes(renewed)) == (NONE, [NONE])
    assert renewed["acquisition_lock_timeout_ms"] == lock_ms
    # Another member finds nothing: the records are still held.
    other = Member(member.conn, member.group, member.topic)
    other.join()
    assert acquired(other.fetch(version=2)) == []
    asks = member.fetch(acks=[(2, 2, [RENEW])], version=2, is_renew_ack=True)
    assert asks["error_code"] == INVALID_REQUEST
    # Kafka 4.4 logs why; ferrolog tells the client too, in Kafka's words.
    if not os.environ.get("FERROLOG_SHARE_BOOTSTRAP"):
        assert asks["error_message"] == (
            "maxBytes must be set to 0, minBytes must be set to 0, maxRecords must be set to 0, "
            "maxWaitMs must be set to 0, if isRenewAck is true."
        )
    zeros = {"max_bytes": 0, "min_bytes": 0, "max_wait_ms": 0, "is_renew_ack": True}
    answer = member.fetch(acks=[(2, 4, [RENEW])], max_records=0, version=2, **zeros)
    assert answer["error_code"] == NONE
    assert partition_codes(answer, "acknowledge_error_code") == [NONE]
    assert acquired(answer) == []
    # Renewed or not, they are the holder's to accept.
    assert partition_codes(member.acknowledge([(0, 3, [ACCEPT])], version=2)) == [NONE]
    # A group with share.renew.acknowledge.enable off refuses RENEW as Kafka: the record's state.
    set_group_config(bootstrap, member.group, "share.renew.acknowledge.enable", "false")

    def refused() -> bool:
        answer = member.acknowledge([(4, 4, [RENEW])], version=2, renew=True)
        return partition_codes(answer) == [INVALID_RECORD_STATE]

    wait_until(refused, 10, what="RENEW refused once the group config is applied")
