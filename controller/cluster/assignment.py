"""Replica assignment (Kafka's rack-unaware algorithm) and checks of given assignments: pure
functions, so every corner is a table-driven test."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ferrolog.errors import (
    InvalidPartitionsError,
    InvalidReplicaAssignmentError,
    InvalidReplicationFactorError,
)


def assign_replicas(
    brokers: Sequence[int],
    num_partitions: int,
    replication_factor: int,
    *,
    start_partition: int = 0,
    start_index: int | None = None,
    replica_shift: int | None = None,
    rng: random.Random | None = None,
) -> dict[int, list[int]]:
    """Spreads partitions round-robin over `brokers` (sorted), starting at a random broker so
    that many small topics do not all lead on the first one; followers are placed at a shift
    that grows every full round, so replica sets differ across rounds."""
    if num_partitions < 1:
        raise InvalidPartitionsError(
            f"number of partitions must be at least 1, got {num_partitions}"
        )
    if replication_factor < 1:
        raise InvalidReplicationFactorError(
            f"replication factor must be at least 1, got {replication_factor}"
        )
    ids = sorted(brokers)
    n = len(ids)
    if replication_factor > n:
        raise InvalidReplicationFactorError(
            f"replication factor {replication_factor} is larger than the {n} available brokers"
        )
    rng = rng or random.Random()
    start = rng.randrange(n) if start_index is None else start_index
    shift = rng.randrange(n) if replica_shift is None else replica_shift
    result: dict[int, list[int]] = {}
    for i in range(num_partitions):
        partition = start_partition + i
        if partition > 0 and partition % n == 0:
            shift += 1
        first = (partition + start) % n
        replicas = [ids[first]]
        for j in range(replication_factor - 1):
            replicas.append(ids[_follower_index(first, shift, j, n)])
        result[partition] = replicas
    return result


def _follower_index(first: int, shift: int, j: int, n: int) -> int:
    # Followers skip over the leader's slot: offsets 1..n-1 from it.
    return (first + 1 + (shift + j) % (n - 1)) % n


def validate_assignment(
    assignment: dict[int, list[int]],
    brokers: Sequence[int],
    *,
    start_partition: int = 0,
    replication_factor: int | None = None,
) -> None:
    """Checks a client-given assignment: partitions numbered contiguously from
    `start_partition`, every replica set non-empty, duplicate-free, of one size (or
    `replication_factor`), on known brokers. Raises InvalidReplicaAssignmentError."""
    if not assignment:
        raise InvalidReplicaAssignmentError("the replica assignment is empty")
    expected = list(range(start_partition, start_partition + len(assignment)))
    if sorted(assignment) != expected:
        raise InvalidReplicaAssignmentError(
            f"partitions must be numbered consecutively from {start_partition}"
        )
    known = set(brokers)
    sizes = {len(replicas) for replicas in assignment.values()}
    if replication_factor is not None:
        sizes.add(replication_factor)
    if len(sizes) != 1:
        raise InvalidReplicaAssignmentError("all partitions must have the same number of replicas")
    for partition, replicas in sorted(assignment.items()):
        if not replicas:
            raise InvalidReplicaAssignmentError(f"partition {partition} has no replicas")
        if len(set(replicas)) != len(replicas):
            raise InvalidReplicaAssignmentError(f"partition {partition} repeats a replica")
        unknown = [b for b in replicas if b not in known]
        if unknown:
            raise InvalidReplicaAssignmentError(
                f"partition {partition} is assigned to unknown brokers {unknown}"
            )
