"""`ferrolog fuzz` against live brokers: generated and mutated requests of every advertised API
and version, with the broker's liveness, log and a canary topic checked between rounds.

Fixed seeds keep CI reproducible (a finding names its seed and frame); `ferrolog fuzz`
without `--seed` explores new ones. The last tests show that the checks do catch a broker
that goes down or logs an error, so a clean run means something."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from ferrolog.embedded import EmbeddedBroker
from ferrolog.fuzz.campaign import Campaign, pid_alive

from tests.waiting import wait_until

SEEDS = [12, 13, 20]


def _campaign(broker: EmbeddedBroker, seed: int) -> Campaign:
    assert broker.pid is not None  # a child process, whose exit is a finding of its own
    return Campaign(
        broker.bootstrap_servers,
        seed,
        broker_log=broker.log_path,
        process_alive=pid_alive(broker.pid),
    )


@pytest.mark.native
@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_finds_nothing_on_a_single_broker(seed: int) -> None:
    with EmbeddedBroker() as broker:
        report = _campaign(broker, seed).run(rounds=10, per_round=300)
    assert not report.findings, report.summary()
    assert report.requests == 3000
    assert report.rounds == 10
    assert report.canary_records == 10
    # Every advertised API was tried, and most requests were answered rather than refused.
    assert len(report.per_api) >= 35
    assert report.answered > report.requests / 2


@pytest.mark.native
def test_fuzz_command_writes_its_report(tmp_path: Path) -> None:
    with EmbeddedBroker() as broker:
        run = subprocess.run(
            [sys.executable, "-m", "ferrolog", "fuzz", "--bootstrap-server",
             broker.bootstrap_servers, "--seed", "7", "--rounds", "3", "--per-round", "100",
             "--broker-log", str(broker.log_path), "--broker-pid", str(broker.pid),
             "--out", str(tmp_path)],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "seed 7: 300 requests in 3 rounds" in run.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["seed"] == 7
    assert report["findings"] == []


@pytest.mark.native
def test_fuzz_reports_a_broker_that_dies() -> None:
    with EmbeddedBroker() as broker:
        campaign = _campaign(broker, 1)
        pid = broker.pid
        assert pid is not None

        def kill_once_fuzzing() -> None:
            wait_until(lambda: campaign.report.requests >= 200, 120, what="fuzzing to start")
            os.kill(pid, signal.SIGKILL)

        killer = threading.Thread(target=kill_once_fuzzing, daemon=True)
        killer.start()
        # One long round: the kill lands while requests are being fuzzed (between rounds it
        # could land during the canary write, which reports that instead).
        report = campaign.run(rounds=1, per_round=1_000_000)
        killer.join(10)
    assert [f.kind for f in report.findings] == ["broker-down"], report.summary()
    assert report.rounds == 0


@pytest.mark.native
def test_fuzz_reports_an_error_the_broker_logs() -> None:
    with EmbeddedBroker() as broker:
        campaign = _campaign(broker, 2)
        with broker.log_path.open("a") as log:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
            log.write(f'ts={stamp} level=error logger=ferrolog.dispatcher msg="handler failed"\n')
        report = campaign.run(rounds=1, per_round=10)
    assert [f.kind for f in report.findings] == ["broker-log"]
    assert "handler failed" in report.findings[0].detail
