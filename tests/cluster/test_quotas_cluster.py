"""Client quotas in a three-broker cluster: a quota altered through one broker is in Kafka's
ZooKeeper layout (`/config/clients/<id>`, a `/config/changes` notification), every other
broker has it within two seconds without a restart, enforces it, and forgets it as fast once
removed; a running client's rate follows each change on every broker within a second and a
quota window; and replication is not subject to client quotas, however small the default
quota and whatever quota names the replica fetcher's client id."""

from __future__ import annotations

import bisect
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import NewTopic
from prometheus_client.parser import text_string_to_metric_families

from tests.cluster.harness import BrokerProcess, Cluster
from tests.metrics.scraping import get
from tests.quotas.conftest import Entity, QuotaClient
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]


def test_a_quota_change_reaches_every_broker(cluster: Cluster) -> None:
    first, third = cluster.brokers[1], cluster.brokers[3]
    writer = QuotaClient(first.bootstrap)
    readers = {b.node_id: QuotaClient(b.bootstrap) for b in cluster.brokers.values()}
    entity = (("client-id", "X"),)
    try:
        assert writer.alter({"client-id": "X"}, {"producer_byte_rate": 1024.0}) == (0, None)
        altered = time.monotonic()
        for node_id, reader in readers.items():
            wait_until(
                lambda r=reader: r.describe([("client-id", 0, "X")])[1].get(entity),
                timeout=max(0.1, altered + 2.0 - time.monotonic()),
                what=f"broker {node_id} to know the quota",
            )
        zk = cluster.zk_client()
        try:
            data, _ = zk.get("/config/clients/X")
            assert json.loads(data) == {"version": 1, "config": {"producer_byte_rate": "1024"}}
            changes = zk.get_children("/config/changes")
            paths = [json.loads(zk.get(f"/config/changes/{c}")[0]) for c in changes]
            assert {"version": 2, "entity_path": "clients/X"} in paths
            assert all(c.startswith("config_change_") for c in changes)
        finally:
            zk.stop()
            zk.close()
        # Enforced by a broker that did not take the change: its produce responses carry a
        # throttle.
        cluster.create_topic("quota-cluster", 3, 3)
        stats: list[dict[str, Any]] = []
        producer = Producer(
            {
                "bootstrap.servers": third.bootstrap,
                "client.id": "X",
                "statistics.interval.ms": 500,
                "stats_cb": lambda s: stats.append(json.loads(s)),
            }
        )
        throttles: dict[str, int] = {}

        def throttled() -> bool:
            producer.produce("quota-cluster", b"x" * 15_000)
            producer.flush(10)
            producer.poll(0.6)
            for s in stats:
                for b in s["brokers"].values():
                    throttles[b["name"]] = max(throttles.get(b["name"], 0), b["throttle"]["max"])
            # librdkafka names brokers `host:port/<node id>`.
            return any(v > 0 for name, v in throttles.items() if not name.endswith("/1"))

        wait_until(throttled, timeout=30, what="a throttle reported by librdkafka")
        assert writer.alter({"client-id": "X"}, {"producer_byte_rate": None}) == (0, None)
        removed = time.monotonic()
        for node_id, reader in readers.items():
            wait_until(
                lambda r=reader: r.describe([("client-id", 0, "X")]) == (0, {}),
                timeout=max(0.1, removed + 2.0 - time.monotonic()),
                what=f"broker {node_id} to forget the quota",
            )
    finally:
        writer.close()
        for reader in readers.values():
            reader.close()


KIB, MIB = 1024, 1 << 20
# The replica fetcher's client id (native/src/replica/fetcher/task.rs).
FETCHER_CLIENT_ID = "ferrolog-replica-fetcher-{}"
TINY = 1024.0  # bytes/s
# acks=all of 4 MiB over three partitions, each replicated to two followers: a follower held
# to TINY would take over an hour to copy its share.
RECORDS, RECORD = 1024, b"r" * (4 * KIB)
PRODUCE_BOUND_S = 20.0
READ_S = 3.0
# What a consumer under TINY may read from one broker before its first throttle: the quota
# over the 11 windows of 1 s the brokers measure by default (a response over it is answered
# empty, its bytes not sent).
READ_MAX = 3 * int(TINY) * 11


def scrape(broker: BrokerProcess) -> list[tuple[str, dict[str, str], float]]:
    """Every sample of the broker's /metrics: name, labels, value."""
    status, text = get(f"{broker.metrics_url}/metrics")
    assert status == 200
    return [
        (s.name, s.labels, s.value)
        for family in text_string_to_metric_families(text)
        for s in family.samples
    ]


def log_end_offsets(broker: BrokerProcess, topic: str) -> dict[int, int]:
    """The log end offset of each of the topic's replicas on the broker."""
    return {
        int(labels["partition"]): int(value)
        for name, labels, value in scrape(broker)
        if name == "kafka_log_log_logendoffset" and labels.get("topic") == topic
    }


def fetch_throttles(broker: BrokerProcess) -> dict[tuple[str, str], float]:
    """Fetch responses the broker throttled, by the (user, client id) tags Kafka meters."""
    return {
        (labels["user"], labels["client_id"]): value
        for name, labels, value in scrape(broker)
        if name == "kafka_server_fetch_throttles_total"
    }


def knows(reader: QuotaClient, entities: list[Entity]) -> bool:
    _, found = reader.describe([])
    wanted = {tuple(sorted(e.items(), key=lambda kv: kv[0])) for e in entities}
    return wanted <= set(found)


def produce_acks_all(cluster: Cluster, topic: str, partitions: int) -> dict[int, int]:
    """RECORDS with acks=all, spread evenly over the partitions; each partition's offset
    after its last record."""
    ends: dict[int, int] = {}
    errors: list[str] = []

    def delivered(err: Any, msg: Any) -> None:
        if err is not None:
            errors.append(str(err))
        else:
            ends[msg.partition()] = max(ends.get(msg.partition(), 0), msg.offset() + 1)

    producer = Producer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "client.id": "replicated-writer",
            "acks": "all",
            "linger.ms": 5,
            # A record not replicated in time fails, rather than being retried for minutes.
            "message.timeout.ms": int(PRODUCE_BOUND_S * 1000),
        }
    )
    for i in range(RECORDS):
        while True:
            try:
                producer.produce(topic, RECORD, partition=i % partitions, on_delivery=delivered)
                break
            except BufferError:
                producer.poll(0.05)
        producer.poll(0)
    assert producer.flush(PRODUCE_BOUND_S + 10) == 0
    assert errors == []
    return ends


def read_for(cluster: Cluster, topic: str, partitions: int, client_id: str) -> int:
    """The value bytes a consumer with `client_id` reads from the start in READ_S."""
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "client.id": client_id,
            "group.id": client_id,  # assigned, not subscribed: no group is joined
            "enable.auto.commit": False,
        }
    )
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    got = 0
    deadline = time.monotonic() + READ_S
    try:
        while time.monotonic() < deadline:
            msg = consumer.poll(0.1)
            if msg is not None and msg.error() is None:
                got += len(msg.value() or b"")
    finally:
        consumer.close()
    return got


def test_replication_is_not_subject_to_client_quotas(cluster: Cluster) -> None:
    """Kafka exempts replication from client quotas by who fetches (a replica id, the
    follower's broker id), not by client id: the default client quota, a quota naming the
    replica fetchers' own client id and then the default user quota (which comes before every
    client-id quota) leave acks=all and the followers at full speed, while a consumer under
    each is throttled, the fetchers' client id included."""
    topic, partitions = "replicated", 3
    cluster.create_topic(topic, partitions, 3)
    writer = QuotaClient(cluster.brokers[1].bootstrap)
    readers = {n: QuotaClient(b.bootstrap) for n, b in cluster.brokers.items()}
    produced = 0

    def set_everywhere(entities: list[Entity]) -> None:
        for entity in entities:
            assert writer.alter(entity, {"consumer_byte_rate": TINY}) == (0, None)
        for node_id, reader in readers.items():
            wait_until(
                lambda r=reader: knows(r, entities),
                timeout=10,
                what=f"broker {node_id} to know the quotas",
            )

    def replicates_in_full() -> None:
        nonlocal produced
        started = time.monotonic()
        ends = produce_acks_all(cluster, topic, partitions)
        took = time.monotonic() - started
        produced += RECORDS * len(RECORD)
        held_s = RECORDS * len(RECORD) / partitions / TINY
        assert took < PRODUCE_BOUND_S, f"acks=all took {took:.1f} s ({held_s:.0f} s if held)"
        for p in range(partitions):
            assert cluster.isr(topic, p) == [1, 2, 3]
        for node_id, broker in cluster.brokers.items():
            wait_until(
                lambda b=broker: log_end_offsets(b, topic) == ends,
                timeout=5,
                what=f"broker {node_id}'s replicas to end at {ends}",
            )

    def throttled(client_id: str, tags: tuple[str, str]) -> None:
        before = sum(fetch_throttles(b).get(tags, 0.0) for b in cluster.brokers.values())
        got = read_for(cluster, topic, partitions, client_id)
        assert got <= READ_MAX, f"{client_id} read {got} of {produced} bytes"
        after = sum(fetch_throttles(b).get(tags, 0.0) for b in cluster.brokers.values())
        assert after > before, f"no fetch of {client_id} throttled ({tags})"

    try:
        fetchers = [FETCHER_CLIENT_ID.format(n) for n in cluster.brokers]
        set_everywhere([{"client-id": None}, *({"client-id": f} for f in fetchers)])
        replicates_in_full()
        for broker in cluster.brokers.values():
            assert not [t for t in fetch_throttles(broker) if t[1] in fetchers]
        # The default client quota meters each client id on its own (user tag empty).
        throttled("plain-reader", ("", "plain-reader"))
        throttled(fetchers[0], ("", fetchers[0]))
        # Unauthenticated connections are user ANONYMOUS; the default user quota meters them
        # all together.
        set_everywhere([{"user": None}])
        replicates_in_full()
        throttled("another-reader", ("ANONYMOUS", ""))
    finally:
        writer.close()
        for reader in readers.values():
            reader.close()


FLAT = "flat"
OFFER = 8 * MIB  # bytes/s each running producer offers: eight times the quota
HIGH, LOW = float(MIB), float(256 * KIB)  # producer_byte_rate set, then lowered
WINDOWS = {"quota.window.num": "3", "quota.window.size.seconds": "1"}
# What a change may take: ZooKeeper's notification to every broker within a second, then one
# quota window for the rate to show it.
PROPAGATION_S, WINDOW_S = 1.0, 1.0
FOLLOWS_S = PROPAGATION_S + WINDOW_S
# A held client may send (quota.window.num - 1) windows of quota at once: at the start and
# each time a window expires.
BURST_S = 2.0
# The request that crosses the quota passes whole, as in Kafka; with batches of 64 KB and a
# few requests in flight, about this much.
SLACK = 512 * KIB
# Seconds from the producers' start: the quota set, lowered, removed; the end.
SET_AT, LOWER_AT, REMOVE_AT, END_AT = 3.0, 9.0, 15.0, 19.0


class FlatOut:
    """A producer offering OFFER bytes/s to one partition, its queue full whenever the broker
    holds it back (so held, as fast as the broker lets it), and when each byte was
    acknowledged (acks=1: appended by the leader, which answers a throttled request at once
    and then stops reading from the connection for the throttle time)."""

    def __init__(self, bootstrap: str, topic: str, partition: int) -> None:
        self.topic, self.partition = topic, partition
        self.producer = Producer(
            {
                "bootstrap.servers": bootstrap,
                "client.id": FLAT,
                "acks": "1",
                "linger.ms": 5,
                # Requests of at most 64 KB, a quarter second of the lowered quota: what the
                # request that crosses the quota adds, and the throttle left when it is removed.
                "batch.size": 65536,
                # About a second of the quota set: no backlog of minutes once it is removed.
                "queue.buffering.max.kbytes": 1024,
            }
        )
        self.acked: list[tuple[float, int]] = []
        self.errors: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"flat-out-{partition}")
        self._times: list[float] = []
        self._sums: list[int] = [0]

    def _delivered(self, err: Any, msg: Any) -> None:
        if err is not None:
            self.errors.append(str(err))
        else:
            self.acked.append((time.monotonic(), len(msg.value())))

    def _run(self) -> None:
        value = b"f" * (16 * KIB)
        # A bucket of a quarter second: after a throttle, no catching up on the time held.
        tokens, last = 0.0, time.monotonic()
        while not self.stop.is_set():
            now = time.monotonic()
            tokens, last = min(tokens + (now - last) * OFFER, OFFER / 4), now
            if tokens < len(value):
                self.producer.poll(0.005)
                continue
            try:
                self.producer.produce(
                    self.topic, value, partition=self.partition, on_delivery=self._delivered
                )
                tokens -= len(value)
            except BufferError:
                self.producer.poll(0.01)
            self.producer.poll(0)
        self.producer.flush(10)

    def start(self) -> None:
        self.thread.start()

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(30)
        for t, n in sorted(self.acked):
            self._times.append(t)
            self._sums.append(self._sums[-1] + n)

    def between(self, begin: float, end: float) -> int:
        """Bytes acknowledged from `begin` to `end` (after `finish`)."""
        return (
            self._sums[bisect.bisect_left(self._times, end)]
            - self._sums[bisect.bisect_left(self._times, begin)]
        )

    def first(
        self, after: float, until: float, span: float, rate_holds: Callable[[float], bool]
    ) -> float | None:
        """Seconds from `after` to the first interval of `span` s (in steps of 50 ms, before
        `until`) over which the rate (bytes/s) satisfies `rate_holds`."""
        t = after
        while t + span <= until:
            if rate_holds(self.between(t, t + span) / span):
                return t - after
            t += 0.05
        return None

    def per_second(self, begin: float, end: float) -> str:
        return " ".join(
            f"{self.between(begin + s, begin + s + 1) / MIB:.2f}" for s in range(int(end - begin))
        )


def test_a_running_clients_rate_follows_a_change_on_every_broker(
    cluster_factory: Callable[..., Cluster],
) -> None:
    """One producer per broker (a partition led by each) runs throughout while its client id's
    producer_byte_rate is set, lowered and removed through broker 1 alone; each broker's
    acknowledged bytes follow each change within a second and a quota window."""
    cluster: Cluster = cluster_factory(**WINDOWS)
    topic = "flat-out"
    admin = cluster.admin()  # must outlive the futures
    # One partition led by each broker: replication 1, assigned by hand.
    assignment = [[n] for n in sorted(cluster.brokers)]
    new = NewTopic(topic, num_partitions=len(assignment), replica_assignment=assignment)
    admin.create_topics([new])[topic].result(30)
    cluster.wait_for_leaders(topic, len(assignment))
    writer = QuotaClient(cluster.brokers[1].bootstrap)
    flats = {a[0]: FlatOut(cluster.bootstrap, topic, p) for p, a in enumerate(assignment)}
    changes: dict[str, float] = {}
    try:
        for f in flats.values():
            f.start()
        wait_until(lambda: all(p.acked for p in flats.values()), timeout=30, what="every producer")
        start = time.monotonic()
        for at, rate, what in ((SET_AT, HIGH, "set"), (LOWER_AT, LOW, "lowered"),
                               (REMOVE_AT, None, "removed")):  # fmt: skip
            time.sleep(max(0.0, start + at - time.monotonic()))
            changes[what] = time.monotonic()
            assert writer.alter({"client-id": FLAT}, {"producer_byte_rate": rate}) == (0, None)
        time.sleep(max(0.0, start + END_AT - time.monotonic()))
    finally:
        for f in flats.values():
            f.finish()
        writer.close()
    end = start + END_AT
    set_at, lowered_at, removed_at = changes["set"], changes["lowered"], changes["removed"]
    for node_id, f in flats.items():
        seen = f"broker {node_id}, MiB each second: {f.per_second(start, end)}"
        assert f.errors == [], seen
        assert f.between(set_at - 2, set_at) / 2 > OFFER / 2, seen
        # Held: the burst the quota allows at once spent, the rate falls below twice the quota.
        held = f.first(set_at, lowered_at, 0.25, lambda rate: rate < 2 * HIGH)
        assert held is not None, f"never held; {seen}"
        assert held <= FOLLOWS_S, f"held after {held:.2f} s; {seen}"
        span = lowered_at - set_at - FOLLOWS_S
        sent = f.between(set_at + FOLLOWS_S, lowered_at)
        assert HIGH * span / 4 <= sent <= HIGH * (span + BURST_S) + SLACK, seen
        # Lowered: the meter still holds the rate of the quota set, so the first request
        # after the change earns a long throttle; at most the lowered quota and a burst follow.
        span = removed_at - lowered_at - FOLLOWS_S
        sent = f.between(lowered_at + FOLLOWS_S, removed_at)
        assert sent <= LOW * (span + BURST_S) + SLACK, seen
        free = f.first(removed_at, end, 0.5, lambda rate: rate > OFFER / 2)
        assert free is not None, f"never free; {seen}"
        assert free <= FOLLOWS_S, f"free after {free:.2f} s; {seen}"
        span = end - removed_at - FOLLOWS_S
        assert f.between(removed_at + FOLLOWS_S, end) / span > OFFER / 2, seen
