"""Issue 35: offsets a group committed, and was told were committed, are where it resumes after
its broker stops cleanly (SIGTERM) or is killed (SIGKILL), run after run on one broker whose
`__consumer_offsets` keeps growing. FERROLOG_RESTART_RUNS=50 runs each case 50 times."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from ferrolog.embedded import EmbeddedBroker

from tests.groups.conftest import FAST_GROUPS
from tests.groups.restart_scenario import resumes_after, runs, timeout


@pytest.mark.timeout(2 * timeout(2, 20))
def test_committed_offsets_survive_a_restart(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    overrides = {**FAST_GROUPS, "offsets.topic.num.partitions": "50"}
    broker = ferrolog_broker_factory(overrides=overrides)
    for stop in (broker.stop, broker.kill):  # SIGTERM, then SIGKILL

        def restart(group: str, stop: Callable[[], None] = stop) -> str:
            stop()
            broker.start()
            return broker.bootstrap_servers

        for _ in range(runs(2)):
            resumes_after(broker.bootstrap_servers, restart)
