"""`group.consumer.max.size`: a consumer group (KIP-848) at its most members refuses one more
with GROUP_MAX_SIZE_REACHED, whichever protocol it joins with, as Kafka's
throwIfConsumerGroupIsFull does; its members go on heartbeating, and a place that frees up is
taken by the next one. A classic group with more members is not upgraded to one."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer

from tests.groups.conftest import create_topic
from tests.groups.consumer_tools import assigned, config, heartbeat, join, upgraded_broker, wait_for
from tests.handlers.features_tools import request

pytestmark = pytest.mark.native

JOIN_GROUP = 11
GROUP_ID_NOT_FOUND, GROUP_MAX_SIZE_REACHED = 69, 81
FULL = "The consumer group has reached its maximum capacity of 2 members."


@pytest.fixture(scope="module")
def bootstrap() -> Iterator[str]:
    settings = {
        "offsets.topic.num.partitions": "1",
        "group.consumer.max.size": "2",
        "group.min.session.timeout.ms": "500",  # the classic consumers' 3 s sessions
        "group.initial.rebalance.delay.ms": "0",
    }
    with upgraded_broker(settings) as broker:
        yield broker.bootstrap_servers


def _classic_join(bootstrap: str, group: str) -> dict[str, object]:
    body = {
        "group_id": group,
        "session_timeout_ms": 10000,
        "rebalance_timeout_ms": 10000,
        "member_id": "",
        "group_instance_id": None,
        "protocol_type": "consumer",
        "protocols": [{"name": "range", "metadata": b"\x00\x01\x00\x00\x00\x00\xff\xff\xff\xff"}],
    }
    return request(bootstrap, JOIN_GROUP, 5, body)


def test_a_full_consumer_group_refuses_one_more_member(bootstrap: str) -> None:
    topic = create_topic(bootstrap, partitions=2)
    group = f"g-{uuid.uuid4().hex[:8]}"
    first, second, third = (str(uuid.uuid4()) for _ in range(3))
    assert join(bootstrap, group, topic, member_id=first)["error_code"] == 0
    assert join(bootstrap, group, topic, member_id=second)["error_code"] == 0

    refused = join(bootstrap, group, topic, member_id=third)
    assert (refused["error_code"], refused["error_message"]) == (GROUP_MAX_SIZE_REACHED, FULL)
    assert _classic_join(bootstrap, group)["error_code"] == GROUP_MAX_SIZE_REACHED
    # The members keep their places.
    again = heartbeat(bootstrap, group_id=group, member_id=first, member_epoch=2)
    assert again["error_code"] == 0, again

    left = heartbeat(bootstrap, group_id=group, member_id=second, member_epoch=-1)
    assert left["error_code"] == 0
    assert join(bootstrap, group, topic, member_id=third)["error_code"] == 0


def test_a_classic_group_larger_than_the_limit_is_not_upgraded(bootstrap: str) -> None:
    """Kafka's validateOnlineUpgrade: a consumer-protocol member joining a classic group of
    more members than group.consumer.max.size is refused, and the group stays classic."""
    topic = create_topic(bootstrap, partitions=3)
    group = f"g-{uuid.uuid4().hex[:8]}"
    classic = [Consumer(config(bootstrap, group, "classic")) for _ in range(3)]
    try:
        for c in classic:
            c.subscribe([topic])

        def each_one() -> bool:
            return all(len(assigned(c)) == 1 for c in classic)

        assert wait_for(each_one, classic, 60), [c.assignment() for c in classic]
        refused = join(bootstrap, group, topic)
        assert (refused["error_code"], refused["error_message"]) == (
            GROUP_ID_NOT_FOUND,
            f"Group {group} is not a consumer group.",
        )
        assert wait_for(each_one, classic, 5)  # the classic members keep their partitions
    finally:
        for c in classic:
            c.close()
