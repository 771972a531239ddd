"""A "false death": the leader is paused (SIGSTOP) past its ZooKeeper session timeout, a new
leader is elected, then the old one resumes (SIGCONT) believing it still leads. It must not
acknowledge acks=all writes the cluster then loses, it must step down, and the replicas must
not diverge."""

from __future__ import annotations

import time

import pytest

from tests.cluster.checker import AckedProducer, check_no_loss
from tests.cluster.harness import ZK_SESSION_MS, Cluster
from tests.consume import read
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]


def test_paused_leader_is_fenced_and_steps_down(cluster: Cluster) -> None:
    cluster.create_topic("fenced", 1, 3, **{"min.insync.replicas": "2"})
    old = cluster.leader("fenced")
    epoch = cluster.state("fenced")["leader_epoch"]
    main = AckedProducer(cluster.bootstrap, "fenced", 1).start()
    stale: AckedProducer | None = None
    try:
        main.wait_acked(100)
        cluster.brokers[old].pause()
        new = wait_until(
            lambda: (leader := cluster.leader("fenced")) not in (old, -1) and leader,
            timeout=ZK_SESSION_MS / 1000 + 20,
            what="a new leader",
        )
        main.wait_acked(100)
        # A client that only knows the old leader, producing the moment it wakes up.
        stale = AckedProducer(cluster.brokers[old].bootstrap, "fenced", 1).start()
        # Time, not a condition: the client connects to the paused process and queues its
        # requests in that socket, which the client does not show; they are the first thing the
        # old leader reads when it wakes.
        time.sleep(0.5)
        cluster.brokers[old].resume()
        # The old leader learns the new state and follows; every broker agrees.
        wait_until(
            lambda: all(
                cluster.partition("fenced", 0, b.bootstrap).leader == new
                for b in cluster.brokers.values()
            ),
            timeout=30,
            what="all brokers to report the new leader",
        )
        cluster.wait_for_isr("fenced", 0, [1, 2, 3], timeout=30)
        main.wait_acked(100)
    finally:
        if cluster.brokers[old].paused:
            cluster.brokers[old].resume()
        main.stop()
        if stale is not None:
            stale.stop(flush_timeout=30)
    assert cluster.state("fenced")["leader_epoch"] > epoch
    # Whatever either producer had acknowledged is in the log at its offset: the old leader
    # acknowledged nothing that was then truncated away.
    acked = {**main.acked, **(stale.acked if stale else {})}
    check_no_loss(acked, read(cluster.bootstrap, "fenced", 1))
    wait_until(lambda: cluster.verify_replicas("fenced").returncode == 0, 30, what="identical")
