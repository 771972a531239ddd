"""The group state machine without I/O: requests in, replies and records out, time given.
Covers what real clients reach only slowly: delayed initial rebalance, sync timeouts, static
members, generation fencing, offset retention and loading from records."""

from __future__ import annotations

from typing import Any

import pytest
from ferrolog import errors
from ferrolog.controller.coordinator.group import offsets, protocols, records
from ferrolog.controller.coordinator.group.shard import GroupShard
from ferrolog.controller.coordinator.group.state import GroupSettings, GroupState

SETTINGS = GroupSettings(
    min_session_timeout_ms=100,
    initial_rebalance_delay_ms=300,
    offsets_retention_ms=10_000,
)
GROUP = "g"
# Every record each shard wrote, in order: what its partition would hold.
WRITTEN: dict[int, list[records.Record]] = {}


class Box:
    """Collects the replies of one request."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    def __call__(self, value: Any) -> None:
        self.values.append(value)

    @property
    def last(self) -> Any:
        return self.values[-1]


def apply_outbox(shard: GroupShard, now: int, error: int = 0) -> list[records.Record]:
    """What the I/O layer does: append (succeeds or fails), replay, call back; the records
    round-trip through Kafka's encoding, as loading would read them."""
    written = []
    while shard.outbox:
        for write in shard.take_outbox():
            for r in write.records:
                decoded = records.decode(records.encode_key(r), records.encode_value(r))
                assert decoded == r
                written.append(r)
                WRITTEN.setdefault(id(shard), []).append(r)
                if not error and write.replay:
                    shard.replay(r, now)
            write.on_done(error)
    return written


def join(shard: GroupShard, now: int, member_id: str = "", version: int = 3, **kw: Any) -> Box:
    box = Box()
    req = {
        "group_id": GROUP,
        "session_timeout_ms": kw.pop("session", 1000),
        "rebalance_timeout_ms": kw.pop("rebalance", 2000),
        "member_id": member_id,
        "group_instance_id": kw.pop("instance", None),
        "protocol_type": kw.pop("protocol_type", "consumer"),
        "protocols": kw.pop("protocols", [{"name": "range", "metadata": b"m"}]),
        "version": version,
        "client_id": "c",
    }
    protocols.join(shard, req, now, box, "/127.0.0.1")
    apply_outbox(shard, now)
    return box


def sync(
    shard: GroupShard, now: int, member_id: str, generation: int, assignments: Any = ()
) -> Box:
    box = Box()
    req = {
        "group_id": GROUP,
        "generation_id": generation,
        "member_id": member_id,
        "assignments": [{"member_id": m, "assignment": a} for m, a in assignments],
    }
    protocols.sync(shard, req, now, box)
    apply_outbox(shard, now)
    return box


def tick(shard: GroupShard, now: int) -> None:
    for group in list(shard.groups.values()):
        protocols.tick(shard, group, now)
    apply_outbox(shard, now)


def commit(
    shard: GroupShard,
    now: int,
    generation: int = -1,
    member_id: str = "",
    offset: int = 5,
    metadata: str = "",
) -> int:
    box = Box()
    req = {
        "group_id": GROUP,
        "generation_id_or_member_epoch": generation,
        "member_id": member_id,
        "topics": [
            {
                "name": "t",
                "partitions": [
                    {
                        "partition_index": 0,
                        "committed_offset": offset,
                        "committed_metadata": metadata,
                    }
                ],
            }
        ],
    }
    offsets.commit(shard, req, now, box)
    apply_outbox(shard, now)
    code: int = box.last["topics"][0]["partitions"][0]["error_code"]
    return code


def test_initial_rebalance_waits_for_more_members_then_completes() -> None:
    shard = GroupShard(0, SETTINGS)
    a = join(shard, 0)
    assert not a.values, "the first join waits for the initial delay"
    b = join(shard, 200)
    tick(shard, 299)
    assert not a.values
    assert not b.values
    # A member arrived during the delay: it is extended once more.
    tick(shard, 300)
    assert not a.values
    tick(shard, 600)
    assert a.last["error_code"] == b.last["error_code"] == 0
    assert a.last["generation_id"] == 1
    leader = a.last["leader"]
    assert len(a.last["members"] if a.last["member_id"] == leader else b.last["members"]) == 2


def test_v4_join_requires_a_member_id_and_stale_generations_are_fenced() -> None:
    shard = GroupShard(0, GroupSettings(min_session_timeout_ms=100, initial_rebalance_delay_ms=0))
    first = join(shard, 0, version=4)
    assert first.last["error_code"] == errors.MemberIdRequiredError.code
    member = first.last["member_id"]
    joined = join(shard, 1, member_id=member, version=4)
    assert joined.last["generation_id"] == 1
    assert sync(shard, 2, member, 1, [(member, b"A")]).last["assignment"] == b"A"
    stale = {"group_id": GROUP, "generation_id": 0, "member_id": member}
    assert protocols.heartbeat(shard, stale, 3) == errors.IllegalGenerationError.code
    unknown = {"group_id": GROUP, "generation_id": 1, "member_id": "nobody"}
    assert protocols.heartbeat(shard, unknown, 3) == errors.UnknownMemberIdError.code
    assert commit(shard, 3, generation=0, member_id=member) == errors.IllegalGenerationError.code
    assert commit(shard, 3, generation=1, member_id="nobody") == errors.UnknownMemberIdError.code
    assert commit(shard, 3, generation=1, member_id=member, metadata="x" * 5000) == (
        errors.OffsetMetadataTooLargeError.code
    )
    # A consumer outside the group cannot commit over a live group's members.
    assert commit(shard, 3) == errors.UnknownMemberIdError.code
    assert commit(shard, 3, generation=1, member_id=member) == 0


def test_inconsistent_protocols_are_refused_without_harm() -> None:
    shard = GroupShard(0, GroupSettings(min_session_timeout_ms=100, initial_rebalance_delay_ms=0))
    a = join(shard, 0)
    assert a.last["error_code"] == 0
    for kw in (
        {"protocol_type": "connect"},
        {"protocol_type": ""},
        {"protocols": [{"name": "other", "metadata": b""}]},
    ):
        assert join(shard, 1, **kw).last["error_code"] == errors.InconsistentGroupProtocolError.code
    assert join(shard, 1, session=10).last["error_code"] == errors.InvalidSessionTimeoutError.code
    member = a.last["member_id"]
    assert sync(shard, 2, member, 1, [(member, b"x")]).last["error_code"] == 0
    assert shard.groups[GROUP].state == GroupState.STABLE


def test_a_leader_that_never_syncs_is_removed_and_the_group_moves_on() -> None:
    shard = GroupShard(0, GroupSettings(min_session_timeout_ms=100, initial_rebalance_delay_ms=0))
    a = join(shard, 0, rebalance=500)
    a_id = a.last["member_id"]
    assert sync(shard, 1, a_id, 1, [(a_id, b"x")]).last["error_code"] == 0
    b = join(shard, 2, rebalance=500)
    assert not b.values
    again = join(shard, 3, member_id=a_id, rebalance=500)
    b_id = b.last["member_id"]
    leader = again.last["leader"]
    follower = b_id if leader == a_id else a_id
    waiting = sync(shard, 4, follower, 2)
    assert not waiting.values
    # The leader never sends SyncGroup: after the rebalance timeout it is out.
    tick(shard, 600)
    assert waiting.last["error_code"] == errors.RebalanceInProgressError.code
    assert list(shard.groups[GROUP].members) == [follower]


def test_static_member_restart_keeps_its_assignment_without_rebalance() -> None:
    shard = GroupShard(0, GroupSettings(min_session_timeout_ms=100, initial_rebalance_delay_ms=0))
    a = join(shard, 0, instance="i-a")
    b_box = join(shard, 0, instance="i-b")
    assert not b_box.values
    a_id = a.last["member_id"]
    # b joined after a's rebalance completed: the group rebalances with both.
    a2 = join(shard, 1, member_id=a_id, instance="i-a")
    b_id = b_box.last["member_id"]
    leader = a2.last["leader"]
    assert leader == a_id
    sync(shard, 2, b_id, 2)
    sync(shard, 2, a_id, 2, [(a_id, b"A"), (b_id, b"B")])
    # b restarts: a new process with the same instance id and no member id.
    b2 = join(shard, 3, instance="i-b")
    new_b = b2.last["member_id"]
    assert new_b != b_id
    assert b2.last["generation_id"] == 2
    assert shard.groups[GROUP].state == GroupState.STABLE
    assert sync(shard, 4, new_b, 2).last["assignment"] == b"B"
    old = {"group_id": GROUP, "generation_id": 2, "member_id": b_id, "group_instance_id": "i-b"}
    assert protocols.heartbeat(shard, old, 5) == errors.FencedInstanceIdError.code


def test_offsets_of_empty_groups_expire_and_loading_rebuilds_the_rest() -> None:
    shard = GroupShard(0, SETTINGS)
    assert commit(shard, 1000, offset=7, metadata="m") == 0
    box = Box()
    offsets.commit(
        shard,
        {
            "group_id": "other",
            "generation_id_or_member_epoch": -1,
            "member_id": "",
            "topics": [
                {"name": "t", "partitions": [{"partition_index": 1, "committed_offset": 3}]}
            ],
        },
        2000,
        box,
    )
    apply_outbox(shard, 2000)
    log = WRITTEN[id(shard)]
    # Reloading from the records gives the same offsets.
    fresh = GroupShard(0, SETTINGS)
    for r in log:
        fresh.replay(r, 3000)
    assert offsets.fetch(fresh, GROUP, None) == offsets.fetch(shard, GROUP, None)
    assert offsets.fetch(fresh, GROUP, None)[0]["partitions"][0]["committed_offset"] == 7
    offsets.expire_offsets(shard, 11_500)
    tombstones = apply_outbox(shard, 11_500)
    assert GROUP not in shard.groups
    assert "other" in shard.groups
    assert {type(r).__name__ for r in tombstones} == {"OffsetRecord", "GroupRecord"}
    assert all(r.value is None for r in tombstones)


def test_delete_groups_refuses_live_groups() -> None:
    shard = GroupShard(0, GroupSettings(min_session_timeout_ms=100, initial_rebalance_delay_ms=0))
    a = join(shard, 0)
    codes = Box()
    offsets.delete_group(shard, GROUP, 1, codes)
    assert codes.last == errors.NonEmptyGroupError.code
    left = protocols.leave(shard, GROUP, [(a.last["member_id"], None)], 2)
    assert left == (0, [0])
    apply_outbox(shard, 2)
    assert shard.groups[GROUP].state == GroupState.EMPTY
    offsets.delete_group(shard, GROUP, 3, codes)
    apply_outbox(shard, 3)
    assert codes.last == 0
    assert GROUP not in shard.groups
    offsets.delete_group(shard, GROUP, 4, codes)
    assert codes.last == errors.GroupIdNotFoundError.code


def test_a_failed_append_answers_with_its_error_and_changes_nothing() -> None:
    shard = GroupShard(0, GroupSettings(min_session_timeout_ms=100, initial_rebalance_delay_ms=0))
    box = Box()
    request = {
        "group_id": GROUP,
        "generation_id_or_member_epoch": -1,
        "member_id": "",
        "topics": [{"name": "t", "partitions": [{"partition_index": 0, "committed_offset": 9}]}],
    }
    offsets.commit(shard, request, 0, box)
    apply_outbox(shard, 0, error=errors.NotCoordinatorError.code)
    assert box.last["topics"][0]["partitions"][0]["error_code"] == errors.NotCoordinatorError.code
    assert offsets.fetch(shard, GROUP, None) == []
    # A leader's SyncGroup whose snapshot cannot be stored: everyone waiting hears the error
    # and the group rebalances rather than hanging.
    a = join(shard, 1)
    a_id = a.last["member_id"]
    waiting = Box()
    protocols.sync(
        shard,
        {"group_id": GROUP, "generation_id": 1, "member_id": a_id, "assignments": []},
        2,
        waiting,
    )
    apply_outbox(shard, 2, error=errors.CoordinatorNotAvailableError.code)
    assert waiting.last["error_code"] == errors.CoordinatorNotAvailableError.code
    assert shard.groups[GROUP].state == GroupState.PREPARING_REBALANCE


def test_packed_offset_values_equal_the_codecs() -> None:
    from ferrolog.protocol import encode_data

    for metadata in ("", "ünïcode metadata"):
        value = records.OffsetValue(
            offset=2**40, leader_epoch=7, metadata=metadata, commit_timestamp=123
        )
        packed = records.encode_value(records.OffsetRecord("g", "t", 1, value))
        body = {"offset": 2**40, "leader_epoch": 7, "metadata": metadata, "commit_timestamp": 123}
        assert packed == b"\x00\x03" + encode_data("OffsetCommitValue", 3, body)


def test_a_full_group_refuses_new_members() -> None:
    shard = GroupShard(
        0, GroupSettings(min_session_timeout_ms=100, initial_rebalance_delay_ms=0, max_size=2)
    )
    first = join(shard, 0)
    assert first.last["error_code"] == 0
    second = join(shard, 1)
    assert not second.values, "waits for the rebalance"
    third = join(shard, 2)
    assert third.last["error_code"] == errors.GroupMaxSizeReachedError.code
    assert len(shard.groups[GROUP].members) == 2


def test_a_failed_append_is_answered_as_kafka_answers_group_clients() -> None:
    from ferrolog.controller.coordinator.group.coordinator import append_error

    native = pytest.importorskip("ferrolog_native")

    def answered(exc: BaseException) -> int:
        # The runtime gives a failed append's Kafka error code.
        return append_error(errors.from_native(exc).code)

    moved = native.KafkaNativeError(errors.NotLeaderOrFollowerError.code, "not the leader")
    assert answered(moved) == errors.NotCoordinatorError.code
    too_big = native.KafkaNativeError(errors.MessageTooLargeError.code, "too big")
    assert answered(too_big) == errors.InvalidCommitOffsetSizeError.code
    assert answered(OSError("disk gone")) == errors.CoordinatorNotAvailableError.code
    # Resigned while appending.
    assert append_error(errors.NotCoordinatorError.code) == errors.NotCoordinatorError.code
