"""Reading the whole cluster view from ZooKeeper (`ZkStore.read_view`), one znode at a time,
each read optionally leaving a one-shot watch so that any later change is noticed.

Partition states are most of the znodes (one per partition) and the only ones that change
often (every leader and ISR change): a watched read may be given the states known unchanged
since an earlier watched read (their watches have not fired, so they are still armed) and
reads only the others, making a re-read after a few changes cost a few round trips, not one
per partition."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError
from kazoo.protocol.states import WatchedEvent

from . import zk_paths as paths
from .base import BrokerRegistration, FinalizedFeatures, PartitionState, TopicRecord
from .view import ClusterView, TopicPartition

Watcher = Callable[[WatchedEvent], None]
# A state as read, with the zxid of its last write, by state znode path.
KnownStates = Mapping[str, tuple[PartitionState, int]]


def read_view(
    client: KazooClient, w: Watcher | None, known: KnownStates | None = None
) -> ClusterView:
    """The whole cluster metadata; every znode read with watcher `w` (None: no watches),
    except the partition states in `known`, taken from there.

    The admin request znodes are read first: a view in which the active controller has
    settled a request then holds partition states read after its decision."""
    reassignments: dict[TopicPartition, list[int]] = {}
    if client.exists(paths.REASSIGN, watch=w):
        with contextlib.suppress(NoNodeError):
            reassignments = paths.decode_reassignments(client.get(paths.REASSIGN)[0])
    preferred = _partition_set(client, paths.PREFERRED_ELECTION, w)
    unclean = _partition_set(client, paths.UNCLEAN_ELECTION, w)
    brokers, broker_epochs, sessions = read_brokers(client, w)
    topics: dict[str, TopicRecord] = {}
    states: dict[str, dict[int, PartitionState]] = {}
    zxids: dict[TopicPartition, int] = {}
    # Every topic's znodes, then every partition state, requested at once and awaited after:
    # kazoo pipelines them on its one connection, so a view of thousands of partitions costs
    # a few round trips, not one per znode.
    names = client.get_children(paths.TOPICS, watch=w)
    topic_reads = [
        (name, client.get_async(paths.topic_path(name), watch=w), _configs_async(client, name, w))
        for name in names
    ]
    state_reads = []
    for name, topic_read, config_read in topic_reads:
        try:
            data, _ = topic_read.get()
        except NoNodeError:
            continue
        topic = paths.decode_topic(name, data, config_read())
        topics[name] = topic
        states[name] = {}
        for partition in topic.assignment:
            path = paths.state_path(name, partition)
            if known is not None and path in known:
                states[name][partition], zxids[(name, partition)] = known[path]
                continue
            read = client.get_async(path, watch=w)
            state_reads.append((name, partition, read))
    for name, partition, read in state_reads:
        try:
            raw, stat = read.get()
        except NoNodeError:
            continue
        states[name][partition] = paths.decode_state(raw, stat.version)
        zxids[(name, partition)] = stat.mzxid
    controller_id = -1
    if client.exists(paths.CONTROLLER, watch=w):
        with contextlib.suppress(NoNodeError):
            controller_id = paths.decode_controller(client.get(paths.CONTROLLER)[0])
    epoch = 0
    if client.exists(paths.CONTROLLER_EPOCH):
        epoch = paths.decode_controller_epoch(client.get(paths.CONTROLLER_EPOCH)[0])
    shutting = frozenset(int(c) for c in client.get_children(paths.CONTROLLED_SHUTDOWN, watch=w))
    log_dir_events = tuple(sorted(client.get_children(paths.LOG_DIR_EVENT_NOTIFICATION, watch=w)))
    features = read_features(client, w)
    return ClusterView(
        brokers=brokers,
        broker_epochs=broker_epochs,
        topics=topics,
        states=states,
        state_zxids=zxids,
        controller_id=controller_id,
        controller_epoch=epoch,
        shutting_down=shutting,
        reassignments=reassignments,
        preferred_elections=preferred,
        unclean_elections=unclean,
        features=features,
        offline_replicas=_offline_replicas(client, w, sessions),
        log_dir_events=log_dir_events,
    )


def read_topic_states(client: KazooClient, name: str) -> dict[int, PartitionState]:
    """One topic's partition states, requested at once (none if the topic is gone)."""
    try:
        data, _ = client.get(paths.topic_path(name))
    except NoNodeError:
        return {}
    topic = paths.decode_topic(name, data, {})
    reads = [(p, client.get_async(paths.state_path(name, p))) for p in topic.assignment]
    states: dict[int, PartitionState] = {}
    for partition, read in reads:
        try:
            raw, stat = read.get()
        except NoNodeError:
            continue
        states[partition] = paths.decode_state(raw, stat.version)
    return states


def read_brokers(
    client: KazooClient, w: Watcher | None
) -> tuple[dict[int, BrokerRegistration], dict[int, int], dict[int, int]]:
    """The registered brokers, each one's epoch (its znode's czxid) and its ZooKeeper
    session, by broker id."""
    brokers: dict[int, BrokerRegistration] = {}
    epochs: dict[int, int] = {}
    sessions: dict[int, int] = {}
    for child in client.get_children(paths.BROKER_IDS, watch=w):
        try:
            data, stat = client.get(paths.broker_path(int(child)), watch=w)
        except NoNodeError:
            continue
        brokers[int(child)] = paths.decode_broker(int(child), data)
        epochs[int(child)] = stat.czxid
        sessions[int(child)] = stat.ephemeralOwner
    return brokers, epochs, sessions


def _offline_replicas(
    client: KazooClient, w: Watcher | None, sessions: Mapping[int, int]
) -> dict[int, frozenset[TopicPartition]]:
    """Each registered broker's replicas on offline log directories. A node left by a
    previous process of the broker (its session not yet expired) is ignored: the restart
    brought the directory back, as in Kafka."""
    offline: dict[int, frozenset[TopicPartition]] = {}
    for child in client.get_children(paths.OFFLINE_REPLICAS, watch=w):
        try:
            data, stat = client.get(paths.offline_replicas_path(int(child)), watch=w)
        except NoNodeError:
            continue
        if sessions.get(int(child)) == stat.ephemeralOwner:
            offline[int(child)] = frozenset(paths.decode_offline_replicas(data))
    return offline


def read_features(client: KazooClient, w: Watcher | None) -> FinalizedFeatures:
    """The finalized features of `/feature`, its version their epoch (-1: absent or
    disabled). Watched even while absent, so that its creation is noticed."""
    if client.exists(paths.FEATURE, watch=w):
        with contextlib.suppress(NoNodeError):
            data, stat = client.get(paths.FEATURE)
            enabled, levels = paths.decode_features(data)
            if enabled:
                return FinalizedFeatures(levels, stat.version)
    return FinalizedFeatures()


def _partition_set(client: KazooClient, path: str, w: Watcher | None) -> frozenset[TopicPartition]:
    if client.exists(path, watch=w):
        with contextlib.suppress(NoNodeError):
            return frozenset(paths.decode_preferred(client.get(path)[0]))
    return frozenset()


def _configs_async(
    client: KazooClient, name: str, watch: Watcher | None
) -> Callable[[], dict[str, str]]:
    """Requests the topic's config znode now (watched even while it does not exist, so its
    creation is noticed); the returned function waits for it."""
    exists = client.exists_async(paths.topic_config_path(name), watch=watch)
    read = client.get_async(paths.topic_config_path(name))

    def result() -> dict[str, str]:
        exists.get()
        try:
            return paths.decode_topic_config(read.get()[0])
        except NoNodeError:
            return {}

    return result
