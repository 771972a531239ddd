"""THE table of Kafka features (KIP-584) this broker supports: the levels ApiVersions reports
as `supported_features` and the only ones UpdateFeatures may finalize.

A feature's level switches client and broker behaviour cluster-wide once finalized, so a level
is listed here only when ferrolog implements everything it turns on. Names and levels are
Kafka 4.1's. What Apache Kafka itself reported (ApiVersions v4) when this table was written:

- Kafka 3.9.1 in ZooKeeper mode: no supported features, none finalized, epoch 0 (its controller
  writes an empty `/feature` znode); `kafka-features describe` prints nothing.
- Kafka 4.1.1 (KRaft): group.version 0-1, kraft.version 0-1, metadata.version 7-27 (3.3-IV3 to
  4.1-IV1), share.version 0-1, transaction.version 0-2, eligible.leader.replicas.version 0-1;
  all but kraft.version and share.version finalized at their maximum when formatted.
- Kafka 4.4.0 (KRaft): the same with metadata.version 7-33, share.version 0-2 and
  streams.version 0-1; all but kraft.version finalized at their maximum when formatted.

Kafka leaves a feature whose maximum is 0 out of `supported_features` (Kafka 3.9.1 in KRaft
mode did so for group.version and transaction.version), and ApiVersions v0-3 leave out those
whose minimum is 0 (KAFKA-17011: older clients refuse a minimum of 0); `advertised` does both.
A level of 0 means "not finalized": it is never stored.
"""

from __future__ import annotations

ELR_FEATURE = "eligible.leader.replicas.version"

# name -> (min, max) level ferrolog supports.
SUPPORTED_FEATURES: dict[str, tuple[int, int]] = {
    # 1: KIP-890 part 1, the partition leader verifies with the transaction coordinator that a
    # transactional batch's partition was added (AddPartitionsToTxn v4 verify-only). 2: KIP-890
    # part 2, which Java producers (4.0+) then use: EndTxn v5 bumps the epoch of every
    # transaction, Produce v12+ and TxnOffsetCommit v5 have the leader add the partition. As in
    # Kafka 4.4, the broker decides by each request's version; the level only tells clients.
    "transaction.version": (0, 2),
    # 1: KIP-848's consumer group protocol (ConsumerGroupHeartbeat, ConsumerGroupDescribe).
    "group.version": (0, 1),
    # 1: KIP-932 share groups (ShareGroupHeartbeat, ShareFetch, ShareAcknowledge, the share
    # coordinator). Kafka 4.4's 2 adds KIP-1191's dead-letter queues, which ferrolog does not
    # have: a 4.4 client uses share groups at 1 alike.
    "share.version": (0, 1),
    # 1: KIP-1071 streams groups (StreamsGroupHeartbeat, StreamsGroupDescribe, broker-side task
    # assignment for Kafka Streams' group.protocol=streams).
    "streams.version": (0, 1),
    # 1: KIP-966's eligible leader replicas: the controller keeps the replicas that left an ISR
    # below min.insync.replicas and elects from them when the ISR empties (controller/cluster/
    # election.py). Leaders hold the high watermark below the minimum whatever the level, as
    # Kafka 4.4's do.
    ELR_FEATURE: (0, 1),
    # The KRaft quorum's own protocol: ferrolog's metadata is in ZooKeeper (or a local file).
    "kraft.version": (0, 0),
    # metadata.version is not listed, as Kafka in ZooKeeper mode does not list it: it versions
    # the KRaft metadata log, which ferrolog does not have (a ZooKeeper-mode broker's format is
    # set by inter.broker.protocol.version). Kafka 4.1's `kafka-features describe` prints the
    # other features without it (it did so against Kafka 3.9 in ZooKeeper mode).
}


# What a new cluster starts with, as `kafka-storage format` finalizes Kafka 4.4's defaults (its
# 4.4 release version): the consumer group protocol, share and streams groups and transactions
# of KIP-890 part 2 work without a `kafka-features upgrade`, and the controller keeps eligible
# leader replicas. Written once, when the cluster's metadata is first created (ZooKeeper's
# `/feature`, or a new local store); a cluster that already exists keeps what it has, and
# `kafka-features downgrade` goes back (to transaction.version 1 for clients that cannot bump
# the epoch per transaction, say).
NEW_CLUSTER_LEVELS: dict[str, int] = {
    "group.version": 1,
    "transaction.version": 2,
    ELR_FEATURE: 1,
    "share.version": 1,
    "streams.version": 1,
}


# Levels ferrolog implements in part, while they are built: supported (reported, and
# finalizable by UpdateFeatures) only on a broker started with
# `unstable.feature.versions.enable=true`, Kafka's own switch for levels in development.
UNSTABLE_LEVELS: dict[str, int] = {}


def supported(unstable: bool = False) -> dict[str, tuple[int, int]]:
    """name -> (min, max) level this broker supports, with the unstable levels or without."""
    table = dict(SUPPORTED_FEATURES)
    if unstable:
        for name, level in UNSTABLE_LEVELS.items():
            low, high = table.get(name, (0, 0))
            table[name] = (low, max(high, level))
    return table


def advertised(api_version: int, unstable: bool = False) -> list[tuple[str, int, int]]:
    """`(name, min, max)` of the features ApiVersions `api_version` reports as supported,
    by name."""
    return [
        (name, low, high)
        for name, (low, high) in sorted(supported(unstable).items())
        if high > 0 and (low > 0 or api_version >= 4)
    ]
