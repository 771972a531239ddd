"""Delegation tokens in a three-broker cluster over SASL_PLAINTEXT with a real ZooKeeper: a
token created on one broker authenticates on every other, in Kafka 3.x's ZooKeeper layout
(`/delegation_token/tokens/<id>` and a `/delegation_token/token_changes` notification), and
once expired on one broker it authenticates on none."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

import pytest
from ferrolog.client.connection import Connection
from ferrolog.client.sasl import SaslError
from ferrolog.client.security import ClientSecurity
from ferrolog.protocol.messages import ApiKey

from tests.cluster.conftest import CLIENT_LOGIN
from tests.cluster.harness import Cluster
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow]

SECRET = "cluster-token-secret"


def _connect(cluster: Cluster, node: int, security: ClientSecurity) -> Connection:
    return Connection("127.0.0.1", cluster.brokers[node].port, 15, "token-tests", security)


def _token_login(token_id: str, mac: bytes) -> ClientSecurity:
    return ClientSecurity(
        protocol="SASL_PLAINTEXT",
        mechanism="SCRAM-SHA-256",
        username=token_id,
        password=base64.b64encode(mac).decode(),
        token_auth=True,
    )


def _authenticates(cluster: Cluster, node: int, login: ClientSecurity) -> bool:
    try:
        _connect(cluster, node, login).close()
    except SaslError:
        return False
    return True


def test_a_token_made_on_one_broker_works_on_every_broker(
    cluster_factory: Callable[..., Cluster],
) -> None:
    cluster = cluster_factory(
        security=("SASL_PLAINTEXT", "SCRAM-SHA-256"), **{"delegation.token.secret.key": SECRET}
    )
    alice = ClientSecurity(
        protocol="SASL_PLAINTEXT", mechanism="PLAIN", username=CLIENT_LOGIN[0],
        password=CLIENT_LOGIN[1],
    )  # fmt: skip
    first, second, third = sorted(cluster.brokers)
    on_first = _connect(cluster, first, alice)
    made = on_first.request(
        ApiKey.CREATE_DELEGATION_TOKEN, 3, {"renewers": [], "max_lifetime_ms": -1}
    )
    on_first.close()
    assert made["error_code"] == 0, made
    token_id, mac = made["token_id"], made["hmac"]
    login = _token_login(token_id, mac)
    for node in (first, second, third):
        wait_until(lambda n=node: _authenticates(cluster, n, login), 30, what=f"token on {node}")

    zk = cluster.zk_client()
    try:
        stored = json.loads(zk.get(f"/delegation_token/tokens/{token_id}")[0])
        changes = zk.get_children("/delegation_token/token_changes")
        named = {zk.get(f"/delegation_token/token_changes/{c}")[0] for c in changes}
    finally:
        zk.stop()
        zk.close()
    assert stored["version"] == 3
    assert stored["owner"] == stored["tokenRequester"] == "User%3Aalice"
    assert stored["maxTimestamp"] == made["max_timestamp_ms"]
    assert "hmac" not in json.dumps(stored).lower()
    assert token_id.encode() in named

    # Expired (removed) through the third broker: the first refuses it too.
    on_third = _connect(cluster, third, alice)
    expired = on_third.request(
        ApiKey.EXPIRE_DELEGATION_TOKEN, 2, {"hmac": mac, "expiry_time_period_ms": -1}
    )
    on_third.close()
    assert expired["error_code"] == 0
    wait_until(lambda: not _authenticates(cluster, first, login), 30, what="token gone on first")
