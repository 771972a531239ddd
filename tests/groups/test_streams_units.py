"""A streams group's state machine on one shard, without a broker: static members that leave
for a moment and come back under a new member id keep their tasks, a second instance id is
refused while the first holds it, and a member that never gives up a revoked task is fenced at
its rebalance timeout."""

from __future__ import annotations

from typing import Any

import pytest
from ferrolog import errors
from ferrolog.controller.coordinator.group import streams
from ferrolog.controller.coordinator.group.consumer_state import Topics
from ferrolog.controller.coordinator.group.shard import GroupShard
from ferrolog.controller.coordinator.group.state import GroupSettings

from tests.groups.streams_raw import word_count

TOPICS = {
    "words": (b"\x01" * 16, 4),
    "app-counts-repartition": (b"\x02" * 16, 4),
    "app-counts-changelog": (b"\x03" * 16, 4),
}
VIEW = Topics(by_name=TOPICS.get, by_id=lambda topic_id: None, ids=dict)
SETTINGS = GroupSettings(streams_initial_rebalance_delay_ms=0, streams_assignment_interval_ms=0)
EVERY = {"0": [0, 1, 2, 3], "1": [0, 1, 2, 3]}
# What each shard's operations wrote, in order.
WRITTEN: dict[int, list[Any]] = {}


def request(member: str, epoch: int, owned: dict[str, list[int]] | None, **fields: Any) -> Any:
    lists = (
        None
        if owned is None
        else [{"subtopology_id": s, "partitions": p} for s, p in owned.items()]
    )
    body = {
        "group_id": "app",
        "member_id": member,
        "member_epoch": epoch,
        "endpoint_information_epoch": 0,
        "instance_id": None,
        "rack_id": None,
        "rebalance_timeout_ms": 5000 if epoch == 0 else -1,
        "topology": word_count("app", "words") if epoch == 0 else None,
        "active_tasks": lists,
        "standby_tasks": None if lists is None else [],
        "warmup_tasks": None if lists is None else [],
        "process_id": member if epoch == 0 else None,
        "user_endpoint": None,
        "client_tags": None,
        "task_offsets": None,
        "task_end_offsets": None,
        "shutdown_application": False,
        "client_id": "c",
    }
    return {**body, **fields}


class Thread:
    """One member as a Kafka Streams thread drives it: epoch and owned tasks as answered."""

    def __init__(self, shard: GroupShard, member: str, instance: str | None = None) -> None:
        self.shard, self.member, self.instance = shard, member, instance
        # A static member's Kafka Streams instance keeps its process id in its state directory.
        self.process = instance or member
        self.epoch, self.owned = 0, {}

    def beat(self, now: int, **fields: Any) -> Any:
        owned = self.owned if self.epoch == 0 or fields.pop("report", True) else None
        if self.epoch == 0:
            fields["process_id"] = self.process
        body = request(self.member, self.epoch, owned, instance_id=self.instance, **fields)
        answer = streams.heartbeat(self.shard, body, now, VIEW, "/h").response
        for write in self.shard.take_outbox():
            WRITTEN.setdefault(id(self.shard), []).extend(write.records)
        self.epoch = answer["member_epoch"]
        if answer["active_tasks"] is not None:
            self.owned = {
                t["subtopology_id"]: sorted(t["partitions"]) for t in answer["active_tasks"]
            }
        return answer


def shard() -> GroupShard:
    return GroupShard(0, SETTINGS, topics=VIEW)


def test_a_static_member_back_under_a_new_id_keeps_its_tasks() -> None:
    s = shard()
    first = Thread(s, "m1", instance="i1")
    first.beat(0)
    assert first.owned == EVERY
    epoch = first.epoch
    left = first.beat(2, member_epoch=-2)
    assert (left["error_code"], left["member_epoch"]) == (0, -2)
    back = Thread(s, "m2", instance="i1")
    answer = back.beat(3)
    assert answer["error_code"] == 0
    assert back.owned == EVERY
    sg = streams.streams_group(s, "app")
    assert list(sg.members) == ["m2"]
    assert sg.group_epoch == epoch  # nothing moved: no rebalance
    # A coordinator that loads what was written has the member, its tasks and its target.
    loaded = shard()
    for record in WRITTEN[id(s)]:
        loaded.replay(record, 4)
    again = streams.streams_group(loaded, "app")
    assert list(again.members) == ["m2"]
    assert again.target == sg.target
    assert again.members["m2"].active == sg.members["m2"].active


def test_an_instance_id_held_by_a_live_member_is_refused() -> None:
    s = shard()
    Thread(s, "m1", instance="i1").beat(0)
    with pytest.raises(errors.UnreleasedInstanceIdError):
        Thread(s, "m2", instance="i1").beat(1)


def test_a_member_that_keeps_a_revoked_task_is_fenced_at_its_rebalance_timeout() -> None:
    s = shard()
    first = Thread(s, "m1")
    first.beat(0)
    assert first.owned == EVERY
    second = Thread(s, "m2")
    second.beat(2)
    # The first is told to give up half, and never says it did.
    first.beat(3)
    assert sum(len(p) for p in first.owned.values()) == 4
    first.owned = EVERY
    first.beat(4)
    group = s.groups["app"]
    streams.tick(s, group, 3 + 4999)
    assert "m1" in group.streams.members  # type: ignore[union-attr]
    second.beat(3 + 4000)  # the second keeps its session
    streams.tick(s, group, 3 + 5001)
    assert list(group.streams.members) == ["m2"]  # type: ignore[union-attr]
    assert second.beat(3 + 5002)["error_code"] == 0
    second.beat(3 + 5003)
    assert second.owned == EVERY


def test_standby_tasks_go_to_the_other_process_and_are_promoted_in_place() -> None:
    """num.standby.replicas 1: subtopology 1 (the stateful one) has a standby of each task on
    the process that does not run it; when that process goes, the standbys become the active
    tasks without a revocation round."""
    s = GroupShard(
        0,
        GroupSettings(
            streams_initial_rebalance_delay_ms=0,
            streams_assignment_interval_ms=0,
            streams_num_standby_replicas=1,
        ),
        topics=VIEW,
    )
    first, second = Thread(s, "m1"), Thread(s, "m2")
    first.beat(0)
    second.beat(1)
    for now in range(2, 8):
        first.beat(now)
        second.beat(now)
    sg = streams.streams_group(s, "app")
    one, two = sg.members["m1"].assigned(), sg.members["m2"].assigned()
    assert sorted(one.active["0"] | two.active["0"]) == [0, 1, 2, 3]
    assert one.standby == {"1": two.active["1"]}
    assert two.standby == {"1": one.active["1"]}
    streams.leave(s, s.groups["app"], ["m2"])
    answer = first.beat(9)
    assert first.owned == EVERY, answer
    assert sg.members["m1"].assigned().standby == {}


def test_a_refused_join_leaves_an_empty_classic_group_as_it_was() -> None:
    """A heartbeat Kafka refuses changes nothing, as a coordinator write that throws appends
    nothing: a join to an empty classic group (committed offsets only) that reports a task of
    a subtopology the topology lacks leaves the group classic."""
    s = shard()
    group = s.get_or_create("app", 0)
    body = request("m1", 0, {"9": [0]})
    with pytest.raises(errors.InvalidRequestError, match="Subtopology 9 does not exist"):
        streams.heartbeat(s, body, 0, VIEW, "/h")
    assert (group.streams, group.group_type) == (None, "classic")
