"""The scale scenario's crash phase: one broker with many partitions, through a crash and a
restart (issue 9's table).

From a fresh start: create the partitions (ten topics in one CreateTopics request) and time it
until Metadata shows a leader for every one; write `records` keyed acks=all records to every
partition; SIGKILL the broker; restart it on the same data and time it from the spawn until
every partition has acknowledged one more acks=all record; read every partition back and check
that every acknowledged key is there; time SIGTERM to exit. Broker RSS, open files and the log
directory's allocated size are read from /proc and the file system along the way.

The building blocks (topic layout, keyed writes with their acknowledgements, read-back,
timed stop) serve the replicated and the connection phases too."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec

from bench.harness import procstat
from bench.harness.brokers import Broker, wait_port

TOPICS = 10
# Every wait of the scenario gives up after this many seconds per 1,000 partitions (and
# never less than the minimum): a broker that takes longer has failed the row.
TIMEOUT_PER_1000 = 120.0
MIN_TIMEOUT = 300.0

# Kafka 4's KRaft controller refuses one operation that makes more than 10,000 metadata
# records ("Unable to perform excessively large batch operation", POLICY_VIOLATION): a
# CreateTopics of 10,000 partitions is a TopicRecord and a PartitionRecord per partition.
MAX_PARTITIONS_PER_REQUEST = 5_000

Partition = tuple[str, int]


class LostRecords(RuntimeError):
    """Acknowledged records that a read-back did not find."""


def timeout_for(partitions: int) -> float:
    return max(MIN_TIMEOUT, TIMEOUT_PER_1000 * partitions / 1000)


def topic_names(partitions: int, prefix: str = "scale") -> dict[str, int]:
    """Ten topics sharing `partitions` as evenly as possible."""
    per, extra = divmod(partitions, TOPICS)
    sizes = {f"{prefix}-{i}": per + (1 if i < extra else 0) for i in range(TOPICS)}
    return {name: n for name, n in sizes.items() if n}


def partitions_of(topics: dict[str, int]) -> list[Partition]:
    return [(t, p) for t, n in topics.items() for p in range(n)]


def allocated_bytes(root: Path) -> int:
    """What the files under `root` take on disk (allocated blocks), like `du`."""
    total = 0
    for dirpath, _, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                continue
    return total


def open_files(pid: int) -> int:
    """Descriptors the process holds (files, sockets, pipes; for a JVM its jars too)."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def open_sockets(pid: int) -> int:
    """Descriptors of the process that are sockets: its listeners and connections."""
    count = 0
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    for fd in fds:
        try:
            count += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except OSError:
            continue
    return count


def all_led(meta: dict[str, Any], topics: dict[str, int], isr: int = 0) -> bool:
    """Every partition of `topics` has a leader (and at least `isr` in-sync replicas) in a
    Metadata response (`AdminClient.list_topics().topics`)."""
    for name, count in topics.items():
        t = meta.get(name)
        if t is None or t.error is not None or len(t.partitions) != count:
            return False
        if any(p.leader < 0 or p.error is not None or len(p.isrs) < isr
               for p in t.partitions.values()):
            return False
    return True


def wait_led(admin: AdminClient, topics: dict[str, int], timeout: float, isr: int = 0) -> None:
    deadline = time.monotonic() + timeout
    while not all_led(admin.list_topics(timeout=60).topics, topics, isr):
        if time.monotonic() > deadline:
            raise TimeoutError(f"partitions without a leader (or ISR < {isr}) after {timeout}s")
        time.sleep(0.05)


def create_requests(topics: dict[str, int]) -> list[dict[str, int]]:
    """The topics grouped into CreateTopics requests of at most MAX_PARTITIONS_PER_REQUEST
    partitions each (a topic larger than that goes alone)."""
    out: list[dict[str, int]] = [{}]
    for name, count in topics.items():
        if out[-1] and sum(out[-1].values()) + count > MAX_PARTITIONS_PER_REQUEST:
            out.append({})
        out[-1][name] = count
    return out


def create(bootstrap: str, topics: dict[str, int], replication: int = 1) -> float:
    """Seconds from the CreateTopics request (every topic in one, as long as Kafka accepts
    that many partitions in one; otherwise several, sent at once) until Metadata shows every
    leader."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    timeout = timeout_for(sum(topics.values()))
    start = time.monotonic()
    futures = [f for request in create_requests(topics)
               for f in admin.create_topics(
                   [NewTopic(t, n, replication) for t, n in request.items()],
                   request_timeout=timeout, operation_timeout=timeout).values()]
    for f in futures:
        f.result(timeout)
    wait_led(admin, topics, timeout)
    return time.monotonic() - start


class KeyedWriter:
    """An acks=all producer that writes keyed records to given partitions and remembers
    which keys each partition acknowledged; delivery errors are counted (the caller decides
    whether they fail the phase or are sent again)."""

    def __init__(self, bootstrap: str, timeout: float, fast: bool = False) -> None:
        conf: dict[str, Any] = {
            "bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 20,
            "message.timeout.ms": int(timeout * 1000),
            "topic.metadata.propagation.max.ms": int(timeout * 1000),
            "queue.buffering.max.messages": 2_000_000,
            # Refused connections while a broker restarts are expected; what matters
            # reaches the delivery callbacks.
            "log_level": 0}
        if fast:
            # Created before the broker spawns: reconnect and look leaders up every few
            # tens of ms, so what is timed is the broker becoming available, not the
            # client's backoff.
            conf.update({"reconnect.backoff.ms": 5, "reconnect.backoff.max.ms": 50,
                         "retry.backoff.ms": 20, "retry.backoff.max.ms": 100,
                         "topic.metadata.refresh.fast.interval.ms": 50,
                         "socket.connection.setup.timeout.ms": 1000})
        self.producer = Producer(conf)
        self.acked: dict[Partition, set[bytes]] = defaultdict(set)
        self.errors: list[str] = []
        self._pending = 0

    def _done(self, err: Any, msg: Any) -> None:
        self._pending -= 1
        if err is None:
            self.acked[msg.topic(), msg.partition()].add(msg.key())
        else:
            self.errors.append(f"{msg.topic()}[{msg.partition()}]: {err}")

    def write(self, parts: Iterable[Partition], tag: str) -> None:
        for topic, p in parts:
            while True:
                try:
                    self.producer.produce(topic, b"v", key=f"{tag}/{topic}/{p}".encode(),
                                          partition=p, on_delivery=self._done)
                    break
                except BufferError:
                    self.producer.poll(0.01)
            self._pending += 1
            self.producer.poll(0)

    def wait(self, timeout: float) -> None:
        """Until every record written so far is acknowledged or failed."""
        deadline = time.monotonic() + timeout
        while self._pending > 0:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self._pending} records not acknowledged after {timeout}s")
            self.producer.poll(0.05)

    def write_all(self, parts: list[Partition], tags: list[str], timeout: float) -> None:
        """Every tag to every partition, acknowledged; any delivery error fails the phase."""
        for tag in tags:
            self.write(parts, tag)
        self.wait(timeout)
        if self.errors:
            raise RuntimeError(f"{len(self.errors)} records failed: {self.errors[:3]}")

    def write_until_acked(self, parts: list[Partition], tag: str, timeout: float) -> int:
        """One record `tag` per partition, sent again after a delivery error, until every
        partition acknowledged it; returns how many deliveries failed on the way."""
        deadline = time.monotonic() + timeout
        todo = parts
        failed_before = len(self.errors)
        key = tag.encode()
        while todo:
            self.write(todo, tag)
            self.wait(max(1.0, deadline - time.monotonic()))
            todo = [tp for tp in parts if f"{tag}/{tp[0]}/{tp[1]}".encode() not in self.acked[tp]]
            if todo and time.monotonic() > deadline:
                raise TimeoutError(f"{len(todo)} partitions never acknowledged {key!r}: "
                                   f"{self.errors[-3:]}")
        return len(self.errors) - failed_before


def produce_everywhere(bootstrap: str, topics: dict[str, int], records: int, tag: str) -> int:
    """`records` keyed acks=all records to every partition of `topics`; returns how many were
    acknowledged (raises unless all were)."""
    writer = KeyedWriter(bootstrap, timeout_for(sum(topics.values())))
    writer.write_all(partitions_of(topics), [f"{tag}-{i}" for i in range(records)],
                     timeout_for(sum(topics.values())))
    writer.producer.flush(10)
    return sum(len(keys) for keys in writer.acked.values())


def end_offsets(bootstrap: str, parts: list[Partition], timeout: float,
                earliest: bool = False) -> dict[Partition, int]:
    """Every partition's high watermark (or log start offset), in one ListOffsets per
    leader."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    spec = OffsetSpec.earliest() if earliest else OffsetSpec.latest()
    futures = admin.list_offsets({TopicPartition(t, p): spec for t, p in parts},
                                 request_timeout=timeout)
    return {(tp.topic, tp.partition): f.result(timeout).offset for tp, f in futures.items()}


def stored_records(bootstrap: str, parts: list[Partition], timeout: float) -> int:
    """Records from the log start to the high watermark, over all `parts`."""
    high = end_offsets(bootstrap, parts, timeout)
    low = end_offsets(bootstrap, parts, timeout, earliest=True)
    return sum(high[tp] - low[tp] for tp in parts)


def read_keys(bootstrap: str, parts: list[Partition],
              timeout: float) -> dict[Partition, set[bytes]]:
    """Every key stored in `parts`, read from the log start up to the high watermark as it
    was when the read began."""
    high = end_offsets(bootstrap, parts, timeout)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "scale-check",
                         "enable.auto.commit": False, "enable.partition.eof": False,
                         "fetch.wait.max.ms": 50, "log_level": 0})
    found: dict[Partition, set[bytes]] = defaultdict(set)
    left = {tp for tp in parts if high[tp] > 0}
    deadline = time.monotonic() + timeout
    try:
        consumer.assign([TopicPartition(t, p, OFFSET_BEGINNING) for t, p in left])
        while left:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(left)} partitions not read to their end in {timeout}s")
            for m in consumer.consume(10_000, 0.5):
                if m.error() is not None:
                    if m.error().fatal():
                        raise RuntimeError(f"read-back: {m.error()}")
                    continue
                tp = (m.topic(), m.partition())
                found[tp].add(m.key())
                if m.offset() + 1 >= high[tp]:
                    left.discard(tp)
    finally:
        consumer.close()
    return found


def check_nothing_lost(acked: dict[Partition, set[bytes]],
                       found: dict[Partition, set[bytes]]) -> int:
    """Raises LostRecords naming the partitions that miss acknowledged keys; returns how many
    acknowledged keys were checked."""
    missing = {tp: keys - found.get(tp, set()) for tp, keys in acked.items()}
    missing = {tp: keys for tp, keys in missing.items() if keys}
    if missing:
        sample = sorted(missing.items())[:5]
        lost = sum(len(k) for k in missing.values())
        raise LostRecords(f"LOST {lost} acknowledged records in {len(missing)} partitions, "
                          f"e.g. {[(f'{t}[{p}]', sorted(k)[:3]) for (t, p), k in sample]}")
    return sum(len(k) for k in acked.values())


def timed_stop(procs: list[subprocess.Popen[bytes]], timeout: float) -> float:
    """SIGTERM to every process at once; seconds until the last one exited (killed and an
    error if one takes longer than `timeout`)."""
    start = time.monotonic()
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=max(0.1, start + timeout - time.monotonic()))
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
                p.wait()
            raise TimeoutError(f"not stopped {timeout}s after SIGTERM") from None
    return time.monotonic() - start


def kill(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def run(broker: Broker, partitions: int, records: int = 10) -> dict[str, Any]:
    """The crash phase against one broker; the figures as a dict."""
    topics = topic_names(partitions)
    parts = partitions_of(topics)
    timeout = timeout_for(partitions)
    out: dict[str, Any] = {"partitions": partitions}
    broker.prepare()
    broker.spawn()
    assert broker.proc is not None
    wait_port(broker.port, 120, broker.proc)
    writer = KeyedWriter(broker.bootstrap, timeout)
    start = time.monotonic()
    out["create_s"] = create(broker.bootstrap, topics)
    # A leader in Metadata is not yet a partition that takes writes (Kafka answers
    # NOT_LEADER_OR_FOLLOWER until its broker has applied the new partitions): the time to
    # the first acknowledged write of every partition is timed too.
    writer.write_all(parts, ["before-0"], timeout)
    out["create_to_ack_s"] = time.monotonic() - start
    out["rss_after_create_mb"] = procstat.rss_bytes(broker.pid) / 1e6
    writer.write_all(parts, [f"before-{i}" for i in range(1, records)], timeout)
    writer.producer.flush(10)
    acked = writer.acked
    del writer  # its connection would only retry against the killed broker
    out["rss_before_kill_mb"] = procstat.rss_bytes(broker.pid) / 1e6
    out["peak_rss_before_kill_mb"] = procstat.peak_rss_bytes(broker.pid) / 1e6
    out["open_files_before_kill"] = open_files(broker.pid)
    out["disk_before_kill_mb"] = allocated_bytes(broker.data_dir) / 1e6

    kill(broker.proc)
    restarted = KeyedWriter(broker.bootstrap, timeout, fast=True)
    start = time.monotonic()
    broker.spawn()
    out["restart_produce_errors"] = restarted.write_until_acked(parts, "after", timeout)
    out["restart_s"] = time.monotonic() - start
    restarted.producer.flush(10)
    out["rss_after_restart_mb"] = procstat.rss_bytes(broker.pid) / 1e6
    out["open_files"] = open_files(broker.pid)
    out["disk_after_restart_mb"] = allocated_bytes(broker.data_dir) / 1e6

    for tp, keys in restarted.acked.items():
        acked[tp] |= keys
    del restarted
    start = time.monotonic()
    found = read_keys(broker.bootstrap, parts, timeout)
    out["read_back_s"] = time.monotonic() - start
    out["records_checked"] = check_nothing_lost(acked, found)
    # The restarted process's peak (restart to read-back), or the first one's if higher.
    out["peak_rss_mb"] = max(out["peak_rss_before_kill_mb"],
                             procstat.peak_rss_bytes(broker.pid) / 1e6)
    out["stop_s"] = timed_stop([broker.proc], timeout)
    broker.proc = None
    return out


def main() -> None:  # a quick look by hand: python -m bench.harness.scale ferrolog 1000
    import json
    import sys

    from bench.harness import brokers

    broker = brokers.make(sys.argv[1])
    try:
        print(json.dumps(run(broker, int(sys.argv[2])), indent=1))
    except Exception:
        print(broker.log_tail(30))
        raise
    finally:
        broker.cleanup()


if __name__ == "__main__":
    main()
