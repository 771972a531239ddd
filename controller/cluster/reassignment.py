"""Partition reassignment (AlterPartitionReassignments, `/admin/reassign_partitions`): which
targets a request may ask for, how a move proceeds step by step, and how far it has come.
Pure functions, no I/O: the single-node and the cluster controller apply what they return."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from ferrolog.controller.cluster.assignment import validate_assignment
from ferrolog.controller.cluster.election import NO_LEADER
from ferrolog.controller.store.base import PartitionState, TopicRecord
from ferrolog.controller.store.view import TopicPartition
from ferrolog.errors import (
    InvalidReplicationFactorError,
    KafkaError,
    NoReassignmentInProgressError,
    UnknownTopicOrPartitionError,
)


def check(
    targets: Mapping[TopicPartition, Sequence[int] | None],
    topics: Mapping[str, TopicRecord],
    pending: Mapping[TopicPartition, Sequence[int]],
    brokers: Collection[int],
    allow_replication_factor_change: bool = True,
) -> dict[TopicPartition, KafkaError | list[int] | None]:
    """Each requested target, checked as Kafka's controller checks it: the partition exists;
    None (cancel) needs a pending move (NO_REASSIGNMENT_IN_PROGRESS); replicas are non-empty,
    without repeats and on registered brokers (INVALID_REPLICA_ASSIGNMENT); unless allowed
    (AlterPartitionReassignments v1, KIP-1092), as many as the partition has, or as the pending
    move's target has (INVALID_REPLICATION_FACTOR). Returns per partition the error, or the
    accepted target (None: cancel)."""
    out: dict[TopicPartition, KafkaError | list[int] | None] = {}
    for (name, partition), target in targets.items():
        topic = topics.get(name)
        try:
            if topic is None or partition not in topic.assignment:
                raise UnknownTopicOrPartitionError(f"{name}-{partition} does not exist")
            if target is None:
                if (name, partition) not in pending:
                    raise NoReassignmentInProgressError(
                        f"no reassignment of {name}-{partition} is in progress"
                    )
                out[(name, partition)] = None
                continue
            replicas = [int(b) for b in target]
            validate_assignment({partition: replicas}, sorted(brokers), start_partition=partition)
            current = pending.get((name, partition), topic.assignment[partition])
            if not allow_replication_factor_change and len(replicas) != len(current):
                raise InvalidReplicationFactorError(
                    f"The replication factor is changed from {len(current)} to {len(replicas)}"
                )
        except KafkaError as exc:
            out[(name, partition)] = exc
            continue
        out[(name, partition)] = replicas
    return out


def step(
    current: Sequence[int],
    target: Sequence[int],
    state: PartitionState,
    live: Collection[int],
    controller_epoch: int,
) -> tuple[list[int] | None, PartitionState | None, bool]:
    """One step of moving a partition from replicas `current` to `target` (Kafka's ZK-mode
    scheme): first the assignment grows to target + old replicas under a new leader epoch,
    so the new ones start following; once every target replica is in the ISR, leadership and
    ISR move inside the target (new epoch) and the assignment shrinks to the target.
    Returns (new assignment or None, new state or None, finished)."""
    target = list(target)
    if list(current) == target:
        return None, None, True
    union = target + [b for b in current if b not in target]
    if not all(b in state.isr for b in target):
        if list(current) == union:
            return None, None, False
        # A new epoch tells the leader its replica set grew (it must accept the new
        # replicas' fetches) and the new replicas whom to follow.
        grown = replace(
            state, leader_epoch=state.leader_epoch + 1, controller_epoch=controller_epoch
        )
        return union, grown, False
    isr = [b for b in target if b in state.isr]
    if state.leader in target and state.leader in live:
        leader = state.leader
    else:
        leader = next((b for b in target if b in isr and b in live), NO_LEADER)
    moved = replace(
        state,
        leader=leader,
        leader_epoch=state.leader_epoch + 1,
        isr=isr,
        controller_epoch=controller_epoch,
    )
    return target, moved, True


def progress(
    current: Sequence[int], target: Sequence[int], isr: Collection[int]
) -> tuple[list[int], list[int]]:
    """(adding, removing) of a pending move, as ListPartitionReassignments reports them:
    target replicas still joining (not yet assigned, or not yet caught up into the ISR) and
    assigned replicas that will be dropped."""
    adding = [b for b in target if b not in current or b not in isr]
    removing = [b for b in current if b not in target]
    return adding, removing
