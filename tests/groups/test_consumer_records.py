"""KIP-848 groups in `__consumer_offsets`: what the coordinator writes after each change,
replayed into a fresh shard (a coordinator loading the partition), gives the same group:
members, epochs, assignments, target; through an online upgrade from a classic group (its
offsets kept) and the downgrade back."""

from __future__ import annotations

import struct
from typing import Any

from ferrolog.controller.coordinator.group import migration, protocols, records
from ferrolog.controller.coordinator.group.consumer_state import Topics
from ferrolog.controller.coordinator.group.records import GroupValue, MemberValue, OffsetValue
from ferrolog.controller.coordinator.group.shard import GroupShard
from ferrolog.controller.coordinator.group.state import GroupSettings
from ferrolog.protocol import encode_data

TOPIC, TOPIC_ID = "t", bytes(range(16))
TOPICS = Topics(
    by_name=lambda n: (TOPIC_ID, 4) if n == TOPIC else None,
    by_id=lambda i: TOPIC if i == TOPIC_ID else None,
    ids=lambda: {TOPIC: TOPIC_ID},
)
GROUP = "g"


def shard() -> GroupShard:
    return GroupShard(0, GroupSettings(), topics=TOPICS)


def written(s: GroupShard) -> list[records.Record]:
    """The records of the outbox, through the codec (as the log holds them)."""
    out = []
    for w in s.take_outbox():
        for r in w.records:
            decoded = records.decode(records.encode_key(r), records.encode_value(r))
            assert decoded is not None
            out.append(decoded)
    return out


def replayed(log: list[records.Record]) -> GroupShard:
    s = shard()
    for r in log:
        s.replay(r, 1000)
    return s


def beat(s: GroupShard, member: str, epoch: int, **fields: Any) -> dict[str, Any]:
    req: Any = {
        "group_id": GROUP,
        "member_id": member,
        "member_epoch": epoch,
        "instance_id": None,
        "rack_id": None,
        "rebalance_timeout_ms": 30000 if epoch == 0 else -1,
        "subscribed_topic_names": [TOPIC] if epoch == 0 else None,
        "subscribed_topic_regex": None,
        "server_assignor": None,
        "topic_partitions": [] if epoch == 0 else None,
        "version": 1,
        "client_id": "c",
        **fields,
    }
    response: dict[str, Any] = dict(protocols.consumer_heartbeat(s, req, 0, TOPICS, "/h"))
    return response


def state(s: GroupShard) -> dict[str, Any]:
    group = s.group(GROUP)
    assert group is not None
    cg = group.consumer
    assert cg is not None
    return {
        "epochs": (cg.group_epoch, cg.assignment_epoch),
        "target": cg.target,
        "members": {
            m.member_id: (
                m.member_epoch,
                m.previous_member_epoch,
                m.state,
                m.assigned,
                m.pending_revocation,
                m.subscribed_topic_names,
                m.classic,
            )
            for m in cg.members.values()
        },
        "offsets": group.offsets,
    }


def test_consumer_group_records_replay_to_the_same_group() -> None:
    s = shard()
    log: list[records.Record] = []
    # A new group is at epoch 1 (as in Kafka 4.4): each join moves it on.
    assert beat(s, "a", 0)["member_epoch"] == 2
    assert beat(s, "b", 0)["member_epoch"] == 3
    # a must give up two partitions before b gets them.
    a = beat(s, "a", 2, topic_partitions=[{"topic_id": TOPIC_ID, "partitions": [0, 1, 2, 3]}])
    log += written(s)
    assert state(replayed(log)) == state(s)
    kinds = {r.kind for r in log if isinstance(r, records.ConsumerGroupRecord)}
    assert kinds == set(records.CONSUMER_GROUP_SCHEMAS)
    owned = a["assignment"]["topic_partitions"] if a["assignment"] else []
    beat(s, "a", 2, topic_partitions=owned)
    beat(s, "b", 3)
    log += written(s)
    # A heartbeat that changes nothing writes nothing.
    beat(s, "b", 3)
    assert written(s) == []
    # b leaves: its records are deleted and the group epoch moves on.
    beat(s, "b", -1)
    log += written(s)
    again = replayed(log)
    assert state(again) == state(s)
    assert set(state(again)["members"]) == {"a"}


def subscription(version: int = 1) -> bytes:
    body = {"topics": [TOPIC], "user_data": None, "owned_partitions": []}
    return struct.pack(">h", version) + encode_data("ConsumerProtocolSubscription", version, body)


def test_upgrade_and_downgrade_replay_with_the_offsets_kept() -> None:
    s = shard()
    classic_members = tuple(
        MemberValue(
            member_id=m,
            group_instance_id=None,
            client_id="c",
            client_host="/h",
            rebalance_timeout_ms=30000,
            session_timeout_ms=10000,
            subscription=subscription(),
            assignment=migration.assignment_bytes({TOPIC: ps}, subscription()),
        )
        for m, ps in (("x", {0, 1}), ("y", {2, 3}))
    )
    log: list[records.Record] = [
        records.OffsetRecord(GROUP, TOPIC, 0, OffsetValue(7, -1, "", 1)),
        records.GroupRecord(GROUP, GroupValue("consumer", 5, "range", "x", 1, classic_members)),
    ]
    for r in log:
        s.replay(r, 0)
    # A consumer-protocol member joins: the classic group of generation 5 becomes a consumer
    # group of epoch 5 (its members stable there), then 6 with the new member.
    assert beat(s, "z", 0)["error_code"] == 0
    log += written(s)
    now = state(s)
    assert now["epochs"] == (6, 6)
    assert now["members"]["x"][0] == 5
    assert now["members"]["x"][6] is not None  # a classic member
    loaded = replayed(log)
    assert state(loaded) == now
    assert loaded.groups[GROUP].members == {}  # no classic membership left over
    # The last consumer-protocol member leaves: the group is classic again, generation 6,
    # rebalancing; its members' assignments are their targets.
    beat(s, "z", -1)
    log += written(s)
    back = s.group(GROUP)
    assert back is not None
    assert back.consumer is None
    assert back.generation == 6
    assert set(back.members) == {"x", "y"}
    loaded = replayed(log)
    group = loaded.group(GROUP)
    assert group is not None
    assert group.consumer is None
    assert (group.generation, set(group.members)) == (6, {"x", "y"})
    targets = {m: migration.assignment(group.members[m].assignment) for m in group.members}
    assert targets == {m: now["target"][m] for m in ("x", "y")}
    assert group.offsets == {(TOPIC, 0): OffsetValue(7, -1, "", 1)}
