"""The partition faults' nft rules, built without nft: which packets each cut drops, and the
checks that leave partitions out (with a reason) where they cannot be made."""

from __future__ import annotations

import ipaddress
import json
import os
from pathlib import Path

import pytest
from ferrolog.chaos import network as network_module
from ferrolog.chaos.faults import PARTITIONS
from ferrolog.chaos.network import CLIENT, Endpoint, Network, rules
from ferrolog.chaos.nodes import ClusterSpec, NodeSpec, node_identities
from ferrolog.chaos.preflight import NoFaultLeft, skip_partitions
from ferrolog.chaos.run import ChaosConfig

ONE = Endpoint("broker-1", 1001, "127.9.9.2", 9092)
TWO = Endpoint("broker-2", 1002, "127.9.9.3", 9093)
ZK = Endpoint("zookeeper", 1000, "127.9.9.1", 2181)


def test_two_nodes_are_cut_both_ways_by_sender_uid_and_receiver_address() -> None:
    assert rules([(ONE, TWO)]) == [
        'meta skuid 1001 ip daddr 127.9.9.3 tcp dport 9093 drop comment "broker-1 -/-> broker-2"',
        'meta skuid 1002 ip daddr 127.9.9.2 tcp dport 9092 drop comment "broker-2 -/-> broker-1"',
    ]


def test_an_isolated_node_gets_a_rule_per_direction_and_peer_without_repeats() -> None:
    out = rules([(ONE, TWO), (ONE, ZK), (TWO, ONE)])
    assert len(out) == 4
    assert sum("skuid 1001 " in r for r in out) == 2  # broker-1 to broker-2 and to ZooKeeper
    assert any("skuid 1000 ip daddr 127.9.9.2 " in r for r in out)  # ZooKeeper to broker-1


def test_a_client_is_cut_by_its_packets_to_the_broker_only() -> None:
    # The broker's answers go to 127.0.0.1 like everything else on loopback: no rule on them.
    client = Endpoint(CLIENT, 0)
    assert rules([(client, TWO)]) == [
        'meta skuid 0 ip daddr 127.9.9.3 tcp dport 9093 drop comment "client -/-> broker-2"'
    ]


def test_no_address_outside_loopback_is_ever_matched() -> None:
    with pytest.raises(ValueError, match="not a loopback address"):
        rules([(ONE, Endpoint("elsewhere", 5, "10.0.0.1", 9092))])


def test_each_node_gets_its_own_loopback_address_and_uid() -> None:
    nodes = node_identities(4)
    hosts = [h for h, _ in nodes]
    assert len(set(hosts)) == 4
    assert all(ipaddress.ip_address(h) in ipaddress.ip_network("127.0.0.0/8") for h in hosts)
    assert "127.0.0.1" not in hosts  # every client's source address on loopback
    uids = [u for _, u in nodes]
    if os.geteuid() == 0:
        assert len(set(uids)) == 4
        assert os.geteuid() not in uids
    else:
        assert uids == [None] * 4


def _spec(uid: int | None) -> ClusterSpec:
    def node(name: str, i: int) -> NodeSpec:
        return NodeSpec(name, ["true"], f"127.9.9.{i}:90{i}0", "/dev/null", i - 1,
                        uid=None if uid is None else uid + i)  # fmt: skip

    return ClusterSpec(node("zookeeper", 1), [node(f"broker-{i}", i) for i in (2, 3, 4)])


def test_partitions_are_left_out_with_a_reason_when_nodes_share_the_checkers_uid() -> None:
    config = ChaosConfig(faults=["kill-broker", "partition-leader"])
    skipped = skip_partitions(_spec(None), config, Network("ferrolog_chaos_test"))
    assert "uids of their own" in skipped
    assert config.faults == ["kill-broker"]
    with pytest.raises(NoFaultLeft, match="network partitions"):
        skip_partitions(_spec(None), ChaosConfig(faults=sorted(PARTITIONS)), Network())


def test_partitions_are_left_out_when_nft_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(network_module.shutil, "which", lambda _name: None)
    config = ChaosConfig(faults=["partition-broker", "pause-broker"])
    assert "nft" in skip_partitions(_spec(70_000), config, Network())
    assert config.faults == ["pause-broker"]


def test_a_spec_file_without_uids_still_loads(tmp_path: Path) -> None:
    _spec(None).save(tmp_path / "spec.json")
    data = json.loads((tmp_path / "spec.json").read_text())
    for node in (data["zookeeper"], *data["brokers"]):  # as written before partitions
        del node["uid"], node["home"]
    (tmp_path / "spec.json").write_text(json.dumps(data))
    loaded = ClusterSpec.load(tmp_path / "spec.json")
    assert loaded.brokers[0].uid is None
    assert loaded.brokers[0].host == "127.9.9.2"
    assert loaded.brokers[0].port == 9020
