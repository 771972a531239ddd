"""SCRAM credentials in a three-broker cluster with a real ZooKeeper, through Kafka 4.1's own
`kafka-configs` and kafka-python's admin client: the credentials are in the user's config
znode, in Kafka's format and beside the user's quotas (a change of either keeps the other),
each change is announced by a `/config/changes` notification naming the user, and every
broker describes what another one wrote."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import subprocess
from typing import Any

import pytest
from kafka.admin import KafkaAdminClient, ScramMechanism, UserScramCredentialUpsertion

from bench.harness import kafka_dist
from tests.cluster.harness import Cluster, java_command, needs_kafka_jars
from tests.waiting import wait_until

pytestmark = [pytest.mark.native, pytest.mark.slow, needs_kafka_jars]

CONFIGS = kafka_dist.CONFIG_COMMAND
# Kafka's ScramCredentialUtils.credentialToString.
CREDENTIAL = re.compile(
    r"salt=(?P<salt>[A-Za-z0-9+/=]+),stored_key=(?P<stored_key>[A-Za-z0-9+/=]+),"
    r"server_key=(?P<server_key>[A-Za-z0-9+/=]+),iterations=(?P<iterations>\d+)"
)


def kafka_configs(bootstrap: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        java_command(CONFIGS, "--bootstrap-server", bootstrap, "--entity-type", "users", *args),
        capture_output=True,
        text=True,
        timeout=120,
    )


def user_config(cluster: Cluster, znode: str) -> dict[str, Any]:
    zk = cluster.zk_client()
    try:
        data, _ = zk.get(f"/config/users/{znode}")
        notes = [
            json.loads(zk.get(f"/config/changes/{c}")[0])
            for c in zk.get_children("/config/changes")
        ]
    finally:
        zk.stop()
        zk.close()
    assert {"version": 2, "entity_path": f"users/{znode}"} in notes
    config = json.loads(data)
    assert config["version"] == 1
    return dict(config["config"])


def check_credential(value: str, hash_name: str, password: str, iterations: int) -> None:
    """The stored credential is the one RFC 5802 derives from the password and the stored
    salt: the client sent only the salted password, the broker derived the keys."""
    match = CREDENTIAL.fullmatch(value)
    assert match is not None, value
    salt = base64.b64decode(match["salt"])
    assert int(match["iterations"]) == iterations
    salted = hashlib.pbkdf2_hmac(hash_name, password.encode(), salt, iterations)
    client_key = hmac.digest(salted, b"Client Key", hash_name)
    assert base64.b64decode(match["stored_key"]) == hashlib.new(hash_name, client_key).digest()
    assert base64.b64decode(match["server_key"]) == hmac.digest(salted, b"Server Key", hash_name)


def test_scram_credentials_and_quotas_share_the_user_znode(cluster: Cluster) -> None:
    first, second, third = (cluster.brokers[i].bootstrap for i in (1, 2, 3))
    alice = ["--entity-name", "alice"]
    run = kafka_configs(first, *alice, "--alter", "--add-config", "producer_byte_rate=1048576")
    assert run.returncode == 0, run.stdout + run.stderr
    run = kafka_configs(
        first, *alice, "--alter", "--add-config",
        "SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr

    config = user_config(cluster, "alice")
    assert set(config) == {"producer_byte_rate", "SCRAM-SHA-256", "SCRAM-SHA-512"}
    assert config["producer_byte_rate"] == "1048576"
    check_credential(config["SCRAM-SHA-256"], "sha256", "alice-secret", 8192)
    check_credential(config["SCRAM-SHA-512"], "sha512", "alice-secret", 4096)

    # Another broker describes both, once the notification reached it.
    quotas = "Quota configs for user-principal 'alice' are producer_byte_rate=1048576.0"
    both = "SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096"
    wait_until(
        lambda: both in kafka_configs(third, *alice, "--describe").stdout,
        timeout=60,
        what="broker 3 to describe alice's credentials",
    )
    described = kafka_configs(third, *alice, "--describe").stdout
    assert quotas in described

    # Deleting one mechanism through another broker keeps the quota and the other mechanism.
    run = kafka_configs(second, *alice, "--alter", "--delete-config", "SCRAM-SHA-512")
    assert run.returncode == 0, run.stdout + run.stderr
    config = user_config(cluster, "alice")
    assert set(config) == {"producer_byte_rate", "SCRAM-SHA-256"}
    check_credential(config["SCRAM-SHA-256"], "sha256", "alice-secret", 8192)

    # Deleting the quota keeps the credential.
    run = kafka_configs(first, *alice, "--alter", "--delete-config", "producer_byte_rate")
    assert run.returncode == 0, run.stdout + run.stderr
    config = user_config(cluster, "alice")
    assert set(config) == {"SCRAM-SHA-256"}

    def third_sees_only_sha256() -> bool:
        admin = KafkaAdminClient(bootstrap_servers=third, request_timeout_ms=20000)
        try:
            described = admin.describe_user_scram_credentials(["alice"])
        finally:
            admin.close()
        return described["alice"]["credential_infos"] == [
            {"mechanism": ScramMechanism.SCRAM_SHA_256, "iterations": 8192}
        ]

    wait_until(third_sees_only_sha256, timeout=30, what="broker 3 to see the deletion")


def test_user_names_are_sanitized_as_kafka_does(cluster: Cluster) -> None:
    admin = KafkaAdminClient(
        bootstrap_servers=cluster.brokers[2].bootstrap, request_timeout_ms=20000
    )
    try:
        upsertion = UserScramCredentialUpsertion(
            "svc@corp x", ScramMechanism.SCRAM_SHA_512, "pw", 4096
        )
        assert admin.alter_user_scram_credentials([upsertion]) == {"svc@corp x": None}
        # Not a znode name as it is (found by `ferrolog fuzz`): stored, not a failed handler.
        dots = UserScramCredentialUpsertion("..", ScramMechanism.SCRAM_SHA_256, "pw", 4096)
        assert admin.alter_user_scram_credentials([dots]) == {"..": None}
    finally:
        admin.close()
    # Kafka's Sanitizer: URL encoding, a space as %20.
    config = user_config(cluster, "svc%40corp%20x")
    check_credential(config["SCRAM-SHA-512"], "sha512", "pw", 4096)
