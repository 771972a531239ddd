"""The control plane's metrics at /metrics on one broker: the groups it coordinates by state,
their rebalances, and consumer lag per group and partition (committed offset against the high
watermark); the ISR and election counters of a broker that never replicates stay at zero."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.embedded import EmbeddedBroker

from tests.groups.streams_raw import Member, describe, streams_connection, tasks, word_count
from tests.groups.streams_tools import STREAMS_SETTINGS
from tests.metrics.scraping import Samples, scrape
from tests.waiting import wait_until

pytestmark = pytest.mark.native

Factory = Callable[..., EmbeddedBroker]
GROUPS = "kafka_coordinator_group_groupmetadatamanager_"
COORDINATOR = "kafka_server_groupcoordinatormetrics_"


NO_GROUPS = dict.fromkeys(
    ["preparingrebalance", "completingrebalance", "stable", "empty", "dead"], 0.0
)


def groups_by_state(samples: Samples) -> dict[str, float]:
    return {
        dict(labels)["state"]: v
        for (name, labels), v in samples.items()
        if name == f"{GROUPS}numgroups"
    }


def by_partition(samples: Samples, name: str, group: str) -> dict[int, float]:
    out = {}
    for (sample, labels), v in samples.items():
        tags = dict(labels)
        if sample == name and tags["consumergroup"] == group:
            out[int(tags["partition"])] = v
    return out


def test_groups_rebalances_and_lag(ferrolog_broker_factory: Factory) -> None:
    broker = ferrolog_broker_factory(overrides={"group.initial.rebalance.delay.ms": "0"})
    bootstrap = broker.bootstrap_servers
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("lagged", num_partitions=3, replication_factor=1)])[
        "lagged"
    ].result(20)
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(30):
        producer.produce("lagged", value=b"x", partition=i % 3)
    assert producer.flush(30) == 0
    before = scrape(broker)
    assert sum(v for (name, _), v in before.items() if name == f"{GROUPS}numgroups") == 0
    assert before[("kafka_server_groupcoordinatormetrics_grouprebalance_total", ())] == 0

    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "watched",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.subscribe(["lagged"])
        seen = 0

        def consumed_all() -> bool:
            nonlocal seen
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                seen += 1
            return seen == 30

        wait_until(consumed_all, what="the 30 records consumed")
        committed = {0: 4, 1: 10, 2: 0}
        consumer.commit(
            offsets=[TopicPartition("lagged", p, o) for p, o in committed.items()],
            asynchronous=False,
        )
        samples = scrape(broker)
        current = by_partition(samples, "kafka_consumergroup_current_offset", "watched")
        assert current == committed
        assert by_partition(samples, "kafka_consumergroup_lag", "watched") == {0: 6, 1: 0, 2: 10}
        assert groups_by_state(samples) == {**NO_GROUPS, "stable": 1}
        assert samples[(f"{GROUPS}numoffsets", ())] == 3
        assert samples[("kafka_server_groupcoordinatormetrics_grouprebalance_total", ())] == 1
        assert (
            samples[("kafka_server_groupcoordinatormetrics_groupcompletedrebalance_total", ())] == 1
        )
    finally:
        consumer.close()  # leaves the group: a rebalance that ends in Empty

    def emptied() -> Samples | None:
        samples = scrape(broker)
        return samples if groups_by_state(samples) == {**NO_GROUPS, "empty": 1} else None

    samples = wait_until(emptied, what="the group to be Empty")
    assert samples[("kafka_server_groupcoordinatormetrics_grouprebalance_total", ())] == 2
    # The lag of an empty group still counts: its offsets are what it resumes from.
    producer.produce("lagged", value=b"x", partition=1)
    assert producer.flush(30) == 0
    assert by_partition(scrape(broker), "kafka_consumergroup_lag", "watched") == {
        0: 6,
        1: 1,
        2: 10,
    }
    assert samples[("kafka_server_replicamanager_isrshrinks_total", ())] == 0
    assert samples[("kafka_server_replicamanager_isrexpands_total", ())] == 0
    assert samples[("kafka_controller_controllerstats_leaderelectionrateandtimems_count", ())] == 0


def labelled(samples: Samples, name: str, label: str) -> dict[str, float]:
    return {dict(labels)[label]: v for (sample, labels), v in samples.items() if sample == name}


def test_groups_of_each_protocol_are_counted_by_state(ferrolog_broker_factory: Factory) -> None:
    """Kafka's group-coordinator-metrics `group-count` by protocol and `streams-group-count`
    by state: a streams group counts as NotReady while its internal topics are missing, then
    Stable; it is not a classic group."""
    broker = ferrolog_broker_factory(overrides=STREAMS_SETTINGS)
    bootstrap = broker.bootstrap_servers
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("words", num_partitions=2, replication_factor=1)])[
        "words"
    ].result(20)
    conn = streams_connection(bootstrap, "app")
    try:
        member = Member(conn, "app", word_count("app", "words"))
        member.join()
        first = labelled(scrape(broker), f"{COORDINATOR}streamsgroupcount", "state")
        assert first["not_ready"] + first["assigning"] == 1, first
        member.until(lambda r: bool(tasks(r)))
        member.until(lambda r: describe(conn, "app")["group_state"] == "Stable")
        samples = scrape(broker)
        assert labelled(samples, f"{COORDINATOR}groupcount", "protocol") == {
            "classic": 0,
            "consumer": 0,
            "share": 0,
            "streams": 1,
        }
        assert labelled(samples, f"{COORDINATOR}streamsgroupcount", "state") == {
            "empty": 0,
            "not_ready": 0,
            "assigning": 0,
            "reconciling": 0,
            "stable": 1,
            "dead": 0,
        }
        assert groups_by_state(samples) == NO_GROUPS
        member.leave()
    finally:
        conn.close()
