"""The scale scenario's replicated phase: three brokers, replication factor 3,
`min.insync.replicas=2`, acks=all, many partitions (`bench/harness/cluster.py` has the
clusters: ferrolog in cluster mode with its ZooKeeper, Kafka 4 in KRaft mode).

From a fresh cluster: create the partitions (ten topics in one CreateTopics request) and time
it until Metadata shows every leader, until every partition has its three replicas in sync,
and until every partition acknowledged a first acks=all record; write `records` keyed records
to every partition; SIGKILL the third broker and spawn it again at once, timing until every
partition acknowledged one more acks=all record and until every partition is back to three
in-sync replicas; read every partition back (nothing acknowledged may be missing); measure the
librdkafka producer's acks=all throughput over every partition; SIGTERM all three at once and
time until the last exits. RSS and open files are taken per broker."""

from __future__ import annotations

import time
from typing import Any

from confluent_kafka.admin import AdminClient

from bench.harness import procstat, runner, scale, workloads
from bench.harness.brokers import Broker, wait_port
from bench.harness.cluster import SIZE, Cluster
from bench.harness.workloads import Workload


def _each(pids: list[int], read: Any) -> list[float]:
    return [read(p) / 1e6 for p in pids]


def _wait_brokers(bootstrap: str, timeout: float) -> None:
    """Until Metadata lists every broker and a controller. Without one, librdkafka's admin
    client holds a CreateTopics until its metadata names a controller, which a cluster that
    was still electing one (seen once: ferrolog's brokers registered before it had one)
    leaves it waiting for."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    deadline = time.monotonic() + timeout
    while True:
        meta = admin.list_topics(timeout=30)
        if len(meta.brokers) >= SIZE and meta.controller_id >= 0:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(meta.brokers)} of {SIZE} brokers registered, controller "
                               f"{meta.controller_id}, after {timeout}s")
        time.sleep(0.1)


def run(cluster: Broker, partitions: int, count: int, records: int = 10) -> dict[str, Any]:
    """The replicated phase against one cluster; the figures as a dict."""
    assert isinstance(cluster, Cluster)
    topics = scale.topic_names(partitions)
    parts = scale.partitions_of(topics)
    timeout = scale.timeout_for(partitions)
    out: dict[str, Any] = {"partitions": partitions}
    cluster.prepare()
    out["prepare_s"] = cluster.prepare_s
    cluster.spawn()
    for node in cluster.nodes:
        assert node.proc is not None
        wait_port(node.port, 120, node.proc)
    _wait_brokers(cluster.bootstrap, 120)

    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    writer = scale.KeyedWriter(cluster.bootstrap, timeout)
    start = time.monotonic()
    out["create_s"] = scale.create(cluster.bootstrap, topics, SIZE)
    writer.write_all(parts, ["before-0"], timeout)
    out["create_to_ack_s"] = time.monotonic() - start
    scale.wait_led(admin, topics, timeout, isr=SIZE)
    out["create_to_full_isr_s"] = time.monotonic() - start
    writer.write_all(parts, [f"before-{i}" for i in range(1, records)], timeout)
    acked = writer.acked
    del writer
    out["rss_before_kill_mb_each"] = _each(cluster.pids, procstat.rss_bytes)

    victim = cluster.nodes[-1]
    assert victim.proc is not None
    scale.kill(victim.proc)
    restarted = scale.KeyedWriter(cluster.bootstrap, timeout, fast=True)
    start = time.monotonic()
    victim.spawn()
    out["restart_produce_errors"] = restarted.write_until_acked(parts, "after", timeout)
    out["restart_s"] = time.monotonic() - start
    scale.wait_led(admin, topics, timeout, isr=SIZE)
    out["restart_to_full_isr_s"] = time.monotonic() - start
    for tp, keys in restarted.acked.items():
        acked[tp] |= keys
    del restarted
    rss = _each(cluster.pids, procstat.rss_bytes)
    out["rss_after_restart_mb_each"] = rss
    out["rss_after_restart_mb"] = max(rss)
    out["open_files_each"] = [scale.open_files(p) for p in cluster.pids]
    out["open_files"] = max(out["open_files_each"])

    found = scale.read_keys(cluster.bootstrap, parts, timeout)
    out["records_checked"] = scale.check_nothing_lost(acked, found)
    peaks = _each(cluster.pids, procstat.peak_rss_bytes)  # the victim's since its restart
    out["peak_rss_mb_each"] = peaks
    out["peak_rss_mb"] = max(peaks)

    w = Workload("rd-produce", "rd-produce", 1024, "all", partitions, count)
    before = scale.stored_records(cluster.bootstrap, parts, timeout)
    meter = procstat.Meter(*cluster.pids)
    res = workloads.rd_produce(w, cluster.bootstrap, ",".join(topics), spread=True)
    cpu, peak = meter.read()
    out["rd-produce"] = runner.workload_metrics(w, res, cpu, peak)
    stored = scale.stored_records(cluster.bootstrap, parts, timeout)
    if stored - before < res["records"]:
        raise scale.LostRecords(f"LOST: {stored - before} records stored of {res['records']} "
                                "acknowledged")

    procs = [n.proc for n in cluster.nodes if n.proc is not None]
    out["stop_s"] = scale.timed_stop(procs, timeout)
    for n in cluster.nodes:
        n.proc = None
    return out
