"""Fixtures of the cluster tests: one ZooKeeper for the session (each cluster under its own
chroot) and a factory of three-broker clusters that are killed at the end of each test."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cluster.harness import Cluster, ZooKeeper


def _zookeeper_available() -> bool:
    return shutil.which("java") is not None and Path("/usr/share/java/zookeeper.jar").exists()


@pytest.fixture(scope="session")
def zookeeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZooKeeper]:
    if not _zookeeper_available():
        pytest.skip("Debian's zookeeper package is not installed (make test-deps)")
    zk = ZooKeeper(tmp_path_factory.mktemp("zookeeper"))
    zk.start()
    try:
        yield zk
    finally:
        zk.stop()


@pytest.fixture
def cluster_factory(
    zookeeper: ZooKeeper, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Cluster]]:
    clusters: list[Cluster] = []

    def make(size: int = 3, **overrides: str) -> Cluster:
        cluster = Cluster(zookeeper, tmp_path / f"cluster-{len(clusters)}", size, **overrides)
        clusters.append(cluster)
        try:
            return cluster.start()
        except BaseException:
            _print_log_tails(cluster)
            raise

    yield make
    failed = request.node.rep_call.failed if hasattr(request.node, "rep_call") else False
    for cluster in clusters:
        if failed:
            _print_log_tails(cluster)
        cluster.stop()


def _print_log_tails(cluster: Cluster) -> None:
    for broker in cluster.brokers.values():
        print(f"--- broker {broker.node_id} log tail ---\n{broker.log_tail(60)}")


@pytest.fixture
def cluster(cluster_factory: Callable[..., Cluster]) -> Cluster:
    return cluster_factory()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    report = yield
    if call.when == "call":
        item.rep_call = report  # type: ignore[attr-defined]
    return report
