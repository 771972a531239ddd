"""Issue 35: offsets a group committed, and was told were committed, are where it resumes after
its broker stops cleanly (SIGTERM) or is killed (SIGKILL), run after run on one broker whose
`__consumer_offsets` keeps growing. FERROLOG_RESTART_RUNS=50 runs each case 50 times."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from confluent_kafka import Consumer, ConsumerGroupState
from confluent_kafka.admin import AdminClient
from ferrolog.embedded import EmbeddedBroker

from tests.groups.conftest import FAST_GROUPS, consumer_config, create_topic
from tests.groups.restart_scenario import resumes_after, runs, timeout
from tests.waiting import wait_until


@pytest.mark.timeout(2 * timeout(2, 20))
def test_committed_offsets_survive_a_restart(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    overrides = {**FAST_GROUPS, "offsets.topic.num.partitions": "50"}
    broker = ferrolog_broker_factory(overrides=overrides)
    for stop in (broker.stop, broker.kill):  # SIGTERM, then SIGKILL

        def restart(group: str, stop: Callable[[], None] = stop) -> str:
            stop()
            broker.start()
            return broker.bootstrap_servers

        for _ in range(runs(2)):
            resumes_after(broker.bootstrap_servers, restart)


def test_a_member_that_left_stays_gone_after_a_restart(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    """LeaveGroup is answered once the group's new state is in the log (as Kafka's runtime
    answers a write): a broker stopped right after a member closed does not bring the member
    back when it loads the group, where a joining consumer would wait out its session."""
    broker = ferrolog_broker_factory(overrides=FAST_GROUPS)
    bootstrap = broker.bootstrap_servers
    topic = create_topic(bootstrap, partitions=2)
    group = f"g-{uuid.uuid4().hex[:8]}"
    # A session long enough that a member brought back would still be there when described.
    consumer = Consumer(consumer_config(bootstrap, group, **{"session.timeout.ms": 30000}))
    consumer.subscribe([topic])
    wait_until(lambda: consumer.poll(0.1) is None and len(consumer.assignment()) == 2, 30)
    consumer.close()
    broker.stop()  # SIGTERM, at once
    broker.start()
    admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
    described = admin.describe_consumer_groups([group])[group].result(30)
    assert described.members == []
    assert described.state == ConsumerGroupState.EMPTY
