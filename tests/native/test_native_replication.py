"""Replication through the native module alone: two ``ferrolog_native.Server`` instances in one
process, driven with the ``.pyi`` commands (no control plane), a confluent-kafka producer with
acks=all against the leader. A tiny answerer on the leader's control queue serves ApiVersions
and Metadata; everything else a producer needs is native."""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.native

fn = pytest.importorskip("ferrolog_native")
confluent_kafka = pytest.importorskip("confluent_kafka")

from ferrolog.config import BrokerConfig  # noqa: E402
from ferrolog.protocol import encode_response  # noqa: E402

from tests.waiting import wait_until  # noqa: E402

TOPIC = "replicated"
API_VERSIONS, METADATA = 18, 3
FAST = {"replica.fetch.wait.max.ms": "100", "replica.fetch.backoff.ms": "50"}


class MetadataAnswerer:
    """Answers ApiVersions and Metadata on a server's control queue from a background thread:
    one broker (the leader itself) and one partition with the given replicas and ISR."""

    def __init__(self, server: fn.Server, node_id: int, replicas: list[int]) -> None:
        self._server = server
        self._node_id = node_id
        self._replicas = replicas
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        wakeup = self._server.wakeup_fd()
        while not self._stop.is_set():
            requests = self._server.take_requests()
            if not requests:
                # Until requests are queued; the timeout is for noticing `close`.
                select.select([wakeup], [], [], 0.1)
                continue
            for request in requests:
                body = self._answer(request.api_key, request.api_version)
                if body is None:
                    self._server.close_connection(request.handle)
                    continue
                self._server.respond(
                    request.handle,
                    encode_response(
                        request.api_key, request.api_version, request.correlation_id, body
                    ),
                )

    def _answer(self, api_key: int, version: int) -> dict[str, object] | None:
        if api_key == API_VERSIONS:
            versions = {**fn.native_api_versions(), API_VERSIONS: (0, 3), METADATA: (0, 12)}
            return {
                "error_code": 0 if version <= 3 else 35,
                "api_keys": [
                    {"api_key": k, "min_version": lo, "max_version": hi}
                    for k, (lo, hi) in sorted(versions.items())
                ],
                "throttle_time_ms": 0,
            }
        if api_key == METADATA:
            state = next(s for s in self._server.partition_states() if s.topic == TOPIC)
            return {
                "throttle_time_ms": 0,
                "brokers": [
                    {"node_id": self._node_id, "host": "127.0.0.1", "port": self._server.port}
                ],
                "cluster_id": "native-replication",
                "controller_id": self._node_id,
                "topics": [
                    {
                        "error_code": 0,
                        "name": TOPIC,
                        "topic_id": state.topic_id,
                        "is_internal": False,
                        "partitions": [
                            {
                                "error_code": 0,
                                "partition_index": 0,
                                "leader_id": self._node_id,
                                "leader_epoch": state.leader_epoch,
                                "replica_nodes": self._replicas,
                                "isr_nodes": state.isr,
                                "offline_replicas": [],
                            }
                        ],
                    }
                ],
            }
        return None


def make_server(node_id: int, path: Path) -> fn.Server:
    srv = fn.Server(
        BrokerConfig(
            {
                "node.id": str(node_id),
                "listeners": "PLAINTEXT://127.0.0.1:0",
                "log.dirs": str(path),
                **FAST,
            }
        ).native_server_config()
    )
    srv.start()
    return srv


def state(srv: fn.Server) -> fn.PartitionState:
    return next(s for s in srv.partition_states() if s.topic == TOPIC)


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[fn.Server, fn.Server]]:
    topic_id = os.urandom(16)
    leader = make_server(1, tmp_path / "one")
    follower = make_server(2, tmp_path / "two")
    for srv in (leader, follower):
        srv.open_partition(
            TOPIC, 0, topic_id, BrokerConfig().resolve_topic_config({"min.insync.replicas": "2"})
        )
    leader.become_leader(TOPIC, 0, 1, [1, 2], [1, 2])
    follower.become_follower(TOPIC, 0, 1, 1, "127.0.0.1", leader.port, [1, 2])
    try:
        yield leader, follower
    finally:
        follower.shutdown()
        leader.shutdown()


def test_acks_all_producer_replicates_to_the_follower(
    pair: tuple[fn.Server, fn.Server],
) -> None:
    leader, follower = pair
    answerer = MetadataAnswerer(leader, 1, [1, 2])
    try:
        producer = confluent_kafka.Producer(
            {
                "bootstrap.servers": f"127.0.0.1:{leader.port}",
                "acks": "all",
                "linger.ms": 5,
            }
        )
        errors: list[object] = []
        offsets: list[int] = []

        def delivered(err: object, msg: confluent_kafka.Message) -> None:
            if err is not None:
                errors.append(err)
            else:
                offsets.append(msg.offset())

        for i in range(200):
            producer.produce(TOPIC, key=b"k%d" % i, value=b"v" * i, on_delivery=delivered)
        assert producer.flush(30) == 0
        assert errors == []
        assert sorted(offsets) == list(range(200))
    finally:
        answerer.close()

    # acks=all answered: the high watermark passed every record, on the leader and (once the
    # next fetch carries it) on the follower
    lead = state(leader)
    assert (lead.role, lead.leader_id, lead.isr) == ("leader", 1, [1, 2])
    assert lead.high_watermark == lead.log_end_offset == 200
    wait_until(
        lambda: state(follower).high_watermark == 200,
        10,
        0.01,
        what="the follower has the high watermark",
    )
    follow = state(follower)
    assert (follow.role, follow.leader_id, follow.replicas) == ("follower", 1, [1, 2])
    assert follow.log_end_offset == 200
    assert Path(follow.log_dir).name == "two", "the log directory, not the partition's"
    assert leader.read(TOPIC, 0, 0, 1 << 24) == follower.read(TOPIC, 0, 0, 1 << 24)

    [replica] = leader.replica_states()
    assert (replica.topic, replica.partition, replica.replica_id) == (TOPIC, 0, 2)
    assert replica.log_end_offset == 200
    assert replica.last_caught_up_ms > 0
    assert follower.replica_states() == []

    # followers refuse produces; the internal append goes to the leader
    with pytest.raises(fn.KafkaNativeError) as refused:
        follower.append(TOPIC, 0, fn.build_batch([(b"k", b"v", [], int(time.time() * 1000))]))
    assert refused.value.args[0] == fn.error_codes()["NOT_LEADER_OR_FOLLOWER"]


def test_isr_and_epoch_commands(pair: tuple[fn.Server, fn.Server]) -> None:
    leader, follower = pair
    codes = fn.error_codes()
    with pytest.raises(fn.KafkaNativeError) as stale:
        leader.set_isr(TOPIC, 0, [1], 0)
    assert stale.value.args[0] == codes["FENCED_LEADER_EPOCH"]
    with pytest.raises(fn.KafkaNativeError) as stale:
        follower.become_follower(TOPIC, 0, 0, 1, "127.0.0.1", leader.port, [1, 2])
    assert stale.value.args[0] == codes["FENCED_LEADER_EPOCH"]

    batch = fn.build_batch([(b"k", b"v", [], int(time.time() * 1000))])
    assert leader.append(TOPIC, 0, batch) == 0
    wait_until(lambda: state(follower).high_watermark == 1, 10, 0.01, what="the follower has it")

    # with only the leader in the ISR, min.insync.replicas=2 refuses acks=all appends
    leader.set_isr(TOPIC, 0, [1], 1)
    assert state(leader).isr == [1]
    with pytest.raises(fn.KafkaNativeError) as refused:
        leader.append(TOPIC, 0, batch)
    assert refused.value.args[0] == codes["NOT_ENOUGH_REPLICAS"]

    # the follower takes over at epoch 2 and the old leader follows it
    follower.become_leader(TOPIC, 0, 2, [1, 2], [1, 2])
    leader.become_follower(TOPIC, 0, 2, 2, "127.0.0.1", follower.port, [1, 2])
    assert follower.append(TOPIC, 0, batch) == 1
    wait_until(
        lambda: state(leader).high_watermark == 2, 10, 0.01, what="the old leader replicates"
    )
    assert leader.read(TOPIC, 0, 0, 1 << 20) == follower.read(TOPIC, 0, 0, 1 << 20)
