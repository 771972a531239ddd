"""Streams groups (KIP-1071) through the raw protocol, step by step as Kafka Streams' consumer
speaks it: a join with a word count's topology gets the missing internal topics created and
then its tasks; a second member gets half of them only once the first gave them up; leaving
and session expiry move the group on; what the coordinator wrote brings the group back after
a restart; and the other group APIs treat a streams group as Kafka 4.4 does.

FERROLOG_STREAMS_BOOTSTRAP=host:port runs the same assertions against another broker (Kafka
4.4 with `streams_tools.STREAMS_SETTINGS`)."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
    ResourceType,
)
from ferrolog.client.connection import Connection
from ferrolog.embedded import EmbeddedBroker
from ferrolog.protocol.messages import ApiKey

from tests.groups.streams_raw import (
    ASSIGNMENT_DELAYED,
    MISSING_INTERNAL_TOPICS,
    MISSING_SOURCE_TOPICS,
    Member,
    describe,
    statuses,
    streams_connection,
    tasks,
    word_count,
)
from tests.groups.streams_tools import STREAMS_SETTINGS
from tests.handlers.features_tools import SAFE_DOWNGRADE, UPGRADE, finalized, update

pytestmark = pytest.mark.native

GROUP_ID_NOT_FOUND, INVALID_REQUEST, FENCED_MEMBER_EPOCH = 69, 42, 110
STREAMS_INVALID_TOPOLOGY, UNSUPPORTED_VERSION, STALE_MEMBER_EPOCH = 130, 35, 113
NON_EMPTY_GROUP, UNKNOWN_MEMBER_ID = 68, 25


@pytest.fixture(scope="module")
def streams_broker() -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker(overrides=STREAMS_SETTINGS) as broker:
        yield broker


@pytest.fixture
def bootstrap(request: pytest.FixtureRequest) -> str:
    external = os.environ.get("FERROLOG_STREAMS_BOOTSTRAP")
    if external:
        return external
    broker: EmbeddedBroker = request.getfixturevalue("streams_broker")
    return broker.bootstrap_servers


@pytest.fixture
def app() -> str:
    return f"app-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def source(bootstrap: str) -> str:
    name = f"words-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, 4, 1)])[name].result(30)
    return name


@pytest.fixture
def conn(bootstrap: str, app: str) -> Iterator[Connection]:
    connection = streams_connection(bootstrap, app)
    yield connection
    connection.close()


def has_tasks(response: dict[str, Any]) -> bool:
    return bool(response["error_code"] == 0 and tasks(response))


def running(conn: Connection, app: str, source: str) -> Member:
    """A member that joined a word count's group and holds tasks."""
    member = Member(conn, app, word_count(app, source))
    member.join()
    member.until(has_tasks)
    return member


def count(response: dict[str, Any]) -> int:
    """How many active tasks a heartbeat's answer gives (0 when it gives none or no list)."""
    return sum(len(ps) for ps in (tasks(response) or {}).values())


def test_a_join_creates_the_internal_topics_and_then_gets_every_task(
    conn: Connection, app: str, source: str, bootstrap: str
) -> None:
    member = Member(conn, app, word_count(app, source))
    joined = member.join()
    assert joined["error_code"] == 0, joined
    assert joined["member_epoch"] >= 1
    assert tasks(joined) == {}
    assert statuses(joined).keys() & {MISSING_SOURCE_TOPICS, MISSING_INTERNAL_TOPICS}
    # Kafka may not see a topic created a moment ago yet (MISSING_SOURCE_TOPICS).
    missing = joined
    if MISSING_SOURCE_TOPICS in statuses(joined):
        missing = member.until(lambda r: MISSING_SOURCE_TOPICS not in statuses(r))
    assert statuses(missing)[MISSING_INTERNAL_TOPICS].startswith("Internal topics are missing: ")
    got = member.until(has_tasks)
    assert tasks(got) == {"0": [0, 1, 2, 3], "1": [0, 1, 2, 3]}
    admin = AdminClient({"bootstrap.servers": bootstrap})
    listed = admin.list_topics(timeout=10).topics
    for name in (f"{app}-counts-repartition", f"{app}-counts-changelog"):
        assert len(listed[name].partitions) == 4
    described = describe(conn, app)
    assert described["group_state"] == "Stable"
    assert described["assignment_epoch"] == described["group_epoch"] == member.epoch
    (m,) = described["members"]
    assert (m["member_id"], m["process_id"]) == (member.member_id, member.process)
    changelog = described["topology"]["subtopologies"][1]["state_changelog_topics"][0]
    assert (changelog["name"], changelog["partitions"]) == (f"{app}-counts-changelog", 4)
    left = member.leave()
    assert (left["error_code"], left["member_epoch"]) == (0, -1)
    assert describe(conn, app)["group_state"] == "Empty"


def test_a_second_member_gets_tasks_only_once_the_first_gave_them_up(
    conn: Connection, app: str, source: str
) -> None:
    first = running(conn, app, source)
    second = Member(conn, app, word_count(app, source))
    second.join()
    # The first is told to give up half; until it says it did, the second gets nothing.
    revoking = first.until(lambda r: 0 < count(r) < 8)
    kept = tasks(revoking)
    assert kept is not None
    assert count(revoking) == 4
    waiting = second.heartbeat(report=True)
    assert not any(tasks(waiting) or {}), waiting
    # It reports what it owns now: the second gets the rest.
    first.heartbeat(report=True)
    given = second.until(has_tasks)
    theirs = tasks(given)
    assert theirs is not None
    for s in ("0", "1"):
        assert sorted(kept.get(s, []) + theirs.get(s, [])) == [0, 1, 2, 3]
    first.until(lambda r: describe(conn, app)["group_state"] == "Stable")
    first.leave()
    second.leave()


def test_a_member_that_stops_heartbeating_leaves_and_its_tasks_move(
    conn: Connection, app: str, source: str
) -> None:
    first = running(conn, app, source)
    second = Member(conn, app, word_count(app, source))
    second.join()
    first.until(lambda r: count(r) == 4)
    first.heartbeat(report=True)
    second.until(has_tasks)
    # The second stops; after its session (1.5 s) the first gets everything back.
    every = first.until(lambda r: count(r) == 8, timeout=20)
    assert tasks(every) == {"0": [0, 1, 2, 3], "1": [0, 1, 2, 3]}
    assert [m["member_id"] for m in describe(conn, app)["members"]] == [first.member_id]
    stale = second.heartbeat()
    assert stale["error_code"] == UNKNOWN_MEMBER_ID
    first.leave()


def test_heartbeats_that_kafka_refuses_are_refused_with_its_words(
    conn: Connection, app: str, source: str
) -> None:
    member = Member(conn, app, None)
    no_topology = member.heartbeat()
    assert (no_topology["error_code"], no_topology["error_message"]) == (
        INVALID_REQUEST,
        "Topology must be non-null when (re-)joining.",
    )
    internal = Member(conn, app, word_count(app, "__consumer_offsets"))
    refused = internal.heartbeat()
    assert refused["error_code"] == STREAMS_INVALID_TOPOLOGY
    assert "Use of Kafka internal topics __consumer_offsets" in refused["error_message"]
    unknown = Member(conn, app, word_count(app, source))
    unknown.epoch = 5
    assert unknown.heartbeat()["error_code"] == GROUP_ID_NOT_FOUND
    member = Member(conn, app, word_count(app, source))
    member.join()
    later = Member(conn, app, word_count(app, f"{source}-other"))
    update = later.heartbeat()
    assert (update["error_code"], update["error_message"]) == (
        INVALID_REQUEST,
        "Topology updates are not supported yet.",
    )
    ahead = member.heartbeat(member_epoch=member.epoch + 7)
    assert ahead["error_code"] == FENCED_MEMBER_EPOCH
    member.leave()


def test_other_group_apis_see_a_streams_group_as_kafka_does(
    conn: Connection, app: str, source: str
) -> None:
    member = running(conn, app, source)
    listed = conn.request(ApiKey.LIST_GROUPS, 5, {"states_filter": [], "types_filter": ["streams"]})
    mine = [g for g in listed["groups"] if g["group_id"] == app]
    assert mine == [
        {
            "group_id": app,
            "protocol_type": "streams",
            "group_state": "Stable",
            "group_type": "streams",
        }
    ]
    classic = conn.request(
        ApiKey.DESCRIBE_GROUPS, 6, {"groups": [app], "include_authorized_operations": False}
    )["groups"][0]
    assert (classic["error_code"], classic["group_state"]) == (GROUP_ID_NOT_FOUND, "Dead")
    consumer: Any = {
        "group_id": app,
        "member_id": str(uuid.uuid4()),
        "member_epoch": 0,
        "instance_id": None,
        "rack_id": None,
        "rebalance_timeout_ms": 30000,
        "subscribed_topic_names": [source],
        "subscribed_topic_regex": None,
        "server_assignor": None,
        "topic_partitions": [],
    }
    answer = conn.request(ApiKey.CONSUMER_GROUP_HEARTBEAT, 0, consumer)
    assert (answer["error_code"], answer["error_message"]) == (
        GROUP_ID_NOT_FOUND,
        f"Group {app} is not a consumer group.",
    )
    deleted = conn.request(ApiKey.DELETE_GROUPS, 2, {"groups_names": [app]})
    assert deleted["results"][0]["error_code"] == NON_EMPTY_GROUP
    # A member commits with its epoch; an epoch ahead of its own is stale.
    commit: Any = {
        "group_id": app,
        "generation_id_or_member_epoch": member.epoch + 1,
        "member_id": member.member_id,
        "group_instance_id": None,
        "topics": [{"name": source, "partitions": [_offset(0, 5)]}],
    }
    stale = conn.request(ApiKey.OFFSET_COMMIT, 9, commit)
    assert stale["topics"][0]["partitions"][0]["error_code"] == STALE_MEMBER_EPOCH
    commit["generation_id_or_member_epoch"] = member.epoch
    fresh = conn.request(ApiKey.OFFSET_COMMIT, 9, commit)
    assert fresh["topics"][0]["partitions"][0]["error_code"] == 0
    member.leave()
    gone = conn.request(ApiKey.DELETE_GROUPS, 2, {"groups_names": [app]})
    assert gone["results"][0]["error_code"] == 0
    assert describe(conn, app)["error_code"] == GROUP_ID_NOT_FOUND


def _offset(partition: int, offset: int) -> dict[str, Any]:
    return {
        "partition_index": partition,
        "committed_offset": offset,
        "committed_leader_epoch": -1,
        "committed_metadata": None,
    }


@pytest.mark.skipif(
    bool(os.environ.get("FERROLOG_STREAMS_BOOTSTRAP")), reason="restarts its own broker"
)
def test_a_restarted_coordinator_resumes_the_group_from_its_records(
    app: str, tmp_path: Any
) -> None:
    with EmbeddedBroker(overrides=STREAMS_SETTINGS, data_dir=tmp_path) as broker:
        source = f"words-{uuid.uuid4().hex[:8]}"
        admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
        admin.create_topics([NewTopic(source, 4, 1)])[source].result(30)
        conn = streams_connection(broker.bootstrap_servers, app)
        member = Member(conn, app, word_count(app, source))
        member.join()
        member.until(has_tasks)
        before = describe(conn, app)
        conn.close()
    with EmbeddedBroker(overrides=STREAMS_SETTINGS, data_dir=tmp_path) as broker:
        conn = streams_connection(broker.bootstrap_servers, app)
        member.conn = conn
        deadline = time.monotonic() + 30
        while (after := describe(conn, app))["error_code"] != 0:
            assert time.monotonic() < deadline, after
            time.sleep(0.1)
        for key in ("group_epoch", "assignment_epoch", "members"):
            assert after[key] == before[key], key
        # It goes on heartbeating at its epoch, with its tasks; as in Kafka, the topology is
        # configured against the topics again then (until then it is described as stored).
        resumed = member.heartbeat(report=True)
        assert (resumed["error_code"], resumed["member_epoch"]) == (0, member.epoch)
        assert ASSIGNMENT_DELAYED not in statuses(resumed)
        assert describe(conn, app) == before
        conn.close()


@pytest.mark.skipif(
    bool(os.environ.get("FERROLOG_STREAMS_BOOTSTRAP")), reason="changes the broker's features"
)
def test_on_for_a_new_cluster_and_off_at_streams_version_0(
    streams_broker: EmbeddedBroker, app: str, source: str
) -> None:
    """A new cluster has streams.version 1 finalized, as Kafka 4.4 formats one. Downgraded to
    0, the streams APIs answer UNSUPPORTED_VERSION, as Kafka 4.4's do then; upgraded again,
    they serve."""
    bootstrap = streams_broker.bootstrap_servers
    with EmbeddedBroker() as fresh:
        assert finalized(fresh.bootstrap_servers)[1]["streams.version"] == (1, 1)
    conn = streams_connection(bootstrap, app)
    try:
        assert update(bootstrap, [("streams.version", 0, SAFE_DOWNGRADE)])["error_code"] == 0
        try:
            member = Member(conn, app, word_count(app, source))
            answer = member.heartbeat()
            assert (answer["error_code"], answer["error_message"]) == (UNSUPPORTED_VERSION, None)
            assert describe(conn, app)["error_code"] == UNSUPPORTED_VERSION
        finally:
            assert update(bootstrap, [("streams.version", 1, UPGRADE)])["error_code"] == 0
        assert member.join()["error_code"] == 0
        member.leave()
    finally:
        conn.close()


@pytest.mark.skipif(
    bool(os.environ.get("FERROLOG_STREAMS_BOOTSTRAP")), reason="ferrolog's own behaviour"
)
def test_a_topology_on_thousands_of_partitions_is_created_and_assigned(
    conn: Connection, app: str, bootstrap: str
) -> None:
    """5,000 partitions: the two internal topics (5,000 partitions each) are created one
    request each, as together they are over the controller's 10,000-record limit for one
    CreateTopics (Kafka 4.4 sends them together, by its source, and its controller refuses
    such a batch with POLICY_VIOLATION); then 10,000 tasks go to 20 members of 4 processes, 500
    each."""
    source = f"words-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(source, 5000, 1)])[source].result(60)
    # One client heartbeats for all twenty in turn: each gets the group's longest session.
    session = ConfigEntry(
        "streams.session.timeout.ms", "60000", incremental_operation=AlterConfigOpType.SET
    )
    resource = ConfigResource(ResourceType.GROUP, app, incremental_configs=[session])
    admin.incremental_alter_configs([resource])[resource].result(30)
    members = [Member(conn, app, word_count(app, source), f"p{i % 4}") for i in range(20)]
    for m in members:
        assert m.join()["error_code"] == 0
    deadline = time.monotonic() + 60
    while sorted(sum(len(ps) for ps in m.owned.values()) for m in members) != [500] * 20:
        assert time.monotonic() < deadline, [m.owned.keys() for m in members]
        for m in members:
            answer = m.heartbeat(report=True)
            assert answer["error_code"] == 0, answer
    owned = [(s, p) for m in members for s, ps in m.owned.items() for p in ps]
    assert sorted(owned) == [(s, p) for s in ("0", "1") for p in range(5000)]
    for m in members:
        m.leave()
