"""A broker SIGKILLed and started again at once: its new process replaces the registration
the dead one left in ZooKeeper (which would otherwise live until that session expires), so the
controller sees the restart right away and moves the old process's leaderships, as for any
bounced broker. When the dead process was the controller, the new one also releases the
`/controller` node its session held, so another controller is elected at once. Nothing
acknowledged is lost."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.cluster.checker import AckedProducer, check_no_loss
from tests.cluster.harness import Cluster
from tests.consume import read
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]

PARTITIONS = 6
# As long as the test ZooKeeper allows (its maxSessionTimeout): the old registration and
# /controller node would outlive every wait below unless they are replaced.
SESSION_MS = 20_000


@pytest.mark.parametrize("victim_of", ["leader", "controller"])
def test_a_restarted_broker_replaces_its_dead_registration(
    cluster_factory: Callable[..., Cluster], victim_of: str
) -> None:
    cluster = cluster_factory(**{"zookeeper.session.timeout.ms": str(SESSION_MS)})
    cluster.create_topic("orders", PARTITIONS, 3)
    cluster.wait_for_leaders("orders", PARTITIONS)
    producer = AckedProducer(cluster.bootstrap, "orders", PARTITIONS).start()
    try:
        producer.wait_acked(200)
        victim = cluster.leader("orders", 0) if victim_of == "leader" else cluster.controller()
        led = [p for p in range(PARTITIONS) if cluster.leader("orders", p) == victim]
        assert led, f"broker {victim} leads none of the partitions"
        epochs = {p: cluster.state("orders", p)["leader_epoch"] for p in led}
        broker = cluster.brokers[victim]
        broker.kill()
        broker.start()
        broker.wait_ready()
        # Well inside the old session's lifetime: the restart was seen through the new
        # registration, and the partitions it led have a new leadership term.
        wait_until(
            lambda: all(cluster.state("orders", p)["leader_epoch"] > epochs[p] for p in led),
            timeout=SESSION_MS / 1000 / 2,
            what="new leadership terms for the killed broker's partitions",
        )
        assert "replaced the registration of a previous process" in broker.log_tail(400)
        for p in range(PARTITIONS):
            cluster.wait_for_isr("orders", p, [1, 2, 3])
        producer.wait_acked(200)
    finally:
        producer.stop()
    check_no_loss(producer.acked, read(cluster.bootstrap, "orders", PARTITIONS))
