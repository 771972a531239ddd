"""DescribeUserScramCredentials and AlterUserScramCredentials on a single broker: Kafka 4.1's
`kafka-configs --entity-type users` adds, describes and deletes SCRAM credentials beside the
user's quotas, kafka-python's and confluent-kafka's admin clients do the same, bad inputs get
Kafka's errors, and the credentials survive a restart (single-node store).

What Kafka answered, measured with the requests of `test_bad_inputs_get_kafkas_errors` against
Kafka 3.9.1 in ZooKeeper mode (the mode whose store ferrolog shares): exactly the codes and
messages asserted below, "" as the message of each success. Kafka 4.1.1 (KRaft) answered the
same, except that it refuses any two changes of one user in a request (a deletion of
SCRAM-SHA-256 and an upsertion of SCRAM-SHA-512 of `alice`, or kafka-configs'
`SCRAM-SHA-256=[...],SCRAM-SHA-512=[...]`) with DUPLICATE_RESOURCE, answers null rather than
"" for an alteration that succeeded, and "Attempt to describe a user credential that does not
exist: " for an empty user name in a describe."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka import admin as ck
from ferrolog.client.connection import Connection
from ferrolog.embedded import EmbeddedBroker
from kafka.admin import (
    KafkaAdminClient,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)

from bench.harness import kafka_dist
from tests.cluster.harness import java_command, needs_kafka_jars

pytestmark = pytest.mark.native

DESCRIBE, ALTER = 50, 51
SHA256, SHA512 = 1, 2
UNSUPPORTED_SASL_MECHANISM, RESOURCE_NOT_FOUND, DUPLICATE_RESOURCE, UNACCEPTABLE_CREDENTIAL = (
    33,
    91,
    92,
    93,
)
TWICE = "A user credential cannot be altered twice in the same request"
CONFIG_COMMAND = kafka_dist.CONFIG_COMMAND


class ScramClient:
    """The two APIs as a client sends them: the salt and the salted password, computed here."""

    def __init__(self, bootstrap: str) -> None:
        host, _, port = bootstrap.rpartition(":")
        self.conn = Connection(host, int(port), 20, "scram-admin")

    @staticmethod
    def upsertion(
        user: str, mechanism: int, iterations: int = 4096, password: str = "secret"
    ) -> dict[str, Any]:
        salt = os.urandom(16)
        hash_name = {SHA256: "sha256", SHA512: "sha512"}.get(mechanism, "sha256")
        salted = hashlib.pbkdf2_hmac(hash_name, password.encode(), salt, max(iterations, 1))
        return {
            "name": user,
            "mechanism": mechanism,
            "iterations": iterations,
            "salt": salt,
            "salted_password": salted,
        }

    def alter(
        self, deletions: list[tuple[str, int]], upsertions: list[dict[str, Any]]
    ) -> dict[str, tuple[int, str | None]]:
        body = {
            "deletions": [{"name": n, "mechanism": m} for n, m in deletions],
            "upsertions": upsertions,
        }
        results = self.conn.request(ALTER, 0, body)["results"]
        assert len({r["user"] for r in results}) == len(results), "one result per user"
        return {r["user"]: (r["error_code"], r["error_message"]) for r in results}

    def describe(
        self, users: list[str] | None
    ) -> list[tuple[str, int, str | None, list[tuple[int, int]]]]:
        body = {"users": None if users is None else [{"name": u} for u in users]}
        response = self.conn.request(DESCRIBE, 0, body)
        assert response["error_code"] == 0
        return [
            (
                r["user"],
                r["error_code"],
                r["error_message"],
                [(i["mechanism"], i["iterations"]) for i in r["credential_infos"]],
            )
            for r in response["results"]
        ]

    def close(self) -> None:
        self.conn.close()


@pytest.fixture(scope="module")
def broker() -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker() as running:
        yield running


@pytest.fixture
def scram(broker: EmbeddedBroker) -> Iterator[ScramClient]:
    client = ScramClient(broker.bootstrap_servers)
    yield client
    client.close()


def kafka_configs(bootstrap: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        java_command(CONFIG_COMMAND, "--bootstrap-server", bootstrap, *args),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_bad_inputs_get_kafkas_errors(scram: ScramClient) -> None:
    up = ScramClient.upsertion
    assert scram.alter([], [up("e-carol", 3)]) == {
        "e-carol": (UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")
    }
    assert scram.alter([("e-carol", 0)], []) == {
        "e-carol": (UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")
    }
    assert scram.alter([], [up("e-carol", SHA256, 4095)]) == {
        "e-carol": (UNACCEPTABLE_CREDENTIAL, "Too few iterations")
    }
    assert scram.alter([], [up("e-carol", SHA512, 16385)]) == {
        "e-carol": (UNACCEPTABLE_CREDENTIAL, "Too many iterations")
    }
    assert scram.alter([], [up("", SHA256)]) == {
        "": (UNACCEPTABLE_CREDENTIAL, "Username must not be empty")
    }
    assert scram.alter([("", SHA256)], []) == {
        "": (UNACCEPTABLE_CREDENTIAL, "Username must not be empty")
    }
    assert scram.alter([("e-carol", SHA256)], []) == {
        "e-carol": (RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist")
    }
    # Nothing of the refused users was stored.
    assert scram.describe(["e-carol"]) == [
        (
            "e-carol",
            RESOURCE_NOT_FOUND,
            "Attempt to describe a user credential that does not exist: e-carol",
            [],
        )
    ]
    assert scram.alter([], [up("e-alice", SHA256, 16384), up("e-alice", SHA512)]) == {
        "e-alice": (0, "")
    }
    # The same (user, mechanism) twice in one request, whether deleted or upserted.
    assert scram.alter([("e-alice", SHA256)], [up("e-alice", SHA256)]) == {
        "e-alice": (DUPLICATE_RESOURCE, TWICE)
    }
    assert scram.alter([("e-alice", SHA256), ("e-alice", SHA256)], []) == {
        "e-alice": (DUPLICATE_RESOURCE, TWICE)
    }
    assert scram.alter([], [up("e-alice", SHA512), up("e-alice", SHA512)]) == {
        "e-alice": (DUPLICATE_RESOURCE, TWICE)
    }
    # Each user is answered on its own: the valid one is applied.
    assert scram.alter([("e-zed", SHA256)], [up("e-bob", SHA512, 5000), up("e-carol", 9)]) == {
        "e-zed": (RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"),
        "e-bob": (0, ""),
        "e-carol": (UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"),
    }
    assert scram.describe(["e-bob", "e-bob"]) == [
        (
            "e-bob",
            DUPLICATE_RESOURCE,
            "Cannot describe SCRAM credentials for the same user twice in a single request: e-bob",
            [],
        )
    ]
    assert scram.describe([""]) == [("", RESOURCE_NOT_FOUND, "Username must not be empty", [])]
    # One mechanism removed and the other replaced in one request (Kafka 3.9 accepts it).
    assert scram.alter([("e-alice", SHA256)], [up("e-alice", SHA512, 8192)]) == {"e-alice": (0, "")}
    assert scram.describe(["e-alice", "e-bob", "e-nobody"]) == [
        ("e-alice", 0, "", [(SHA512, 8192)]),
        ("e-bob", 0, "", [(SHA512, 5000)]),
        (
            "e-nobody",
            RESOURCE_NOT_FOUND,
            "Attempt to describe a user credential that does not exist: e-nobody",
            [],
        ),
    ]
    every = scram.describe(None)
    assert every == scram.describe([])
    assert [u for u, *_ in every] == sorted(u for u, *_ in every)
    assert ("e-bob", 0, "", [(SHA512, 5000)]) in every
    assert all(u != "e-carol" for u, *_ in every)


@needs_kafka_jars
def test_kafka_configs_scram_credentials_beside_user_quotas(broker: EmbeddedBroker) -> None:
    bootstrap = broker.bootstrap_servers
    alice = ["--entity-type", "users", "--entity-name", "kc-alice"]
    run = kafka_configs(bootstrap, *alice, "--alter", "--add-config", "producer_byte_rate=1048576")
    assert run.returncode == 0, run.stdout + run.stderr
    run = kafka_configs(
        bootstrap, *alice, "--alter", "--add-config",
        "SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Completed updating config for user kc-alice." in run.stdout
    quotas = "Quota configs for user-principal 'kc-alice' are producer_byte_rate=1048576.0"
    both = (
        "SCRAM credential configs for user-principal 'kc-alice' are "
        "SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096"
    )
    run = kafka_configs(bootstrap, *alice, "--describe")
    assert run.returncode == 0, run.stdout + run.stderr
    assert quotas in run.stdout
    assert both in run.stdout
    assert "alice-secret" not in run.stdout
    # Every user: the one with SCRAM only is listed too.
    run = kafka_configs(
        bootstrap, "--entity-type", "users", "--entity-name", "kc-bob", "--alter",
        "--add-config", "SCRAM-SHA-512=[iterations=5000,password=bob-secret]",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    run = kafka_configs(bootstrap, "--entity-type", "users", "--describe")
    assert quotas in run.stdout
    assert both in run.stdout
    assert (
        "SCRAM credential configs for user-principal 'kc-bob' are SCRAM-SHA-512=iterations=5000"
        in run.stdout
    )
    # Deleting one mechanism keeps the other and the quota.
    run = kafka_configs(bootstrap, *alice, "--alter", "--delete-config", "SCRAM-SHA-512")
    assert run.returncode == 0, run.stdout + run.stderr
    run = kafka_configs(bootstrap, *alice, "--describe")
    assert quotas in run.stdout
    assert (
        "SCRAM credential configs for user-principal 'kc-alice' are SCRAM-SHA-256=iterations=8192"
        in run.stdout
    )
    # Deleting the quota keeps the credential.
    run = kafka_configs(bootstrap, *alice, "--alter", "--delete-config", "producer_byte_rate")
    assert run.returncode == 0, run.stdout + run.stderr
    run = kafka_configs(bootstrap, *alice, "--describe")
    assert "Quota configs" not in run.stdout
    assert "SCRAM-SHA-256=iterations=8192" in run.stdout
    # Deleting a credential the user does not have: Kafka's error through Kafka's tool.
    run = kafka_configs(bootstrap, *alice, "--alter", "--delete-config", "SCRAM-SHA-512")
    assert run.returncode != 0
    assert "Attempt to delete a user credential that does not exist" in run.stdout + run.stderr


def test_kafka_python_admin_alters_and_describes(broker: EmbeddedBroker) -> None:
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap_servers, request_timeout_ms=20000)
    try:
        assert admin.alter_user_scram_credentials(
            [
                UserScramCredentialUpsertion("kp-dave", ScramMechanism.SCRAM_SHA_256, "pw", 4096),
                UserScramCredentialUpsertion("kp-dave", ScramMechanism.SCRAM_SHA_512, "pw", 6000),
            ]
        ) == {"kp-dave": None}
        assert admin.describe_user_scram_credentials(["kp-dave"]) == {
            "kp-dave": {
                "error": None,
                "credential_infos": [
                    {"mechanism": ScramMechanism.SCRAM_SHA_256, "iterations": 4096},
                    {"mechanism": ScramMechanism.SCRAM_SHA_512, "iterations": 6000},
                ],
            }
        }
        assert admin.alter_user_scram_credentials(
            [UserScramCredentialDeletion("kp-dave", ScramMechanism.SCRAM_SHA_256)]
        ) == {"kp-dave": None}
        described = admin.describe_user_scram_credentials()
        assert described["kp-dave"]["credential_infos"] == [
            {"mechanism": ScramMechanism.SCRAM_SHA_512, "iterations": 6000}
        ]
        missing = admin.describe_user_scram_credentials(["kp-nobody"])["kp-nobody"]
        assert missing == {
            "error": "Attempt to describe a user credential that does not exist: kp-nobody",
            "credential_infos": [],
        }
    finally:
        admin.close()


def test_credentials_survive_a_restart() -> None:
    with EmbeddedBroker() as broker:
        client = ScramClient(broker.bootstrap_servers)
        assert client.alter([], [ScramClient.upsertion("kept", SHA256, 8192)]) == {"kept": (0, "")}
        client.close()
        broker.restart()
        client = ScramClient(broker.bootstrap_servers)
        try:
            assert client.describe(None) == [("kept", 0, "", [(SHA256, 8192)])]
        finally:
            client.close()


def test_confluent_kafka_admin_alters_and_describes(broker: EmbeddedBroker) -> None:
    admin = ck.AdminClient({"bootstrap.servers": broker.bootstrap_servers})
    info = ck.ScramCredentialInfo(ck.ScramMechanism.SCRAM_SHA_512, 10000)
    altered = admin.alter_user_scram_credentials(
        [ck.UserScramCredentialUpsertion("ck-erin", info, b"erin-secret")]
    )
    altered["ck-erin"].result(20)
    described = admin.describe_user_scram_credentials(["ck-erin"])["ck-erin"].result(20)
    assert [(i.mechanism, i.iterations) for i in described.scram_credential_infos] == [
        (ck.ScramMechanism.SCRAM_SHA_512, 10000)
    ]
    # Kafka's error, raised as librdkafka raises it.
    refused = admin.alter_user_scram_credentials(
        [ck.UserScramCredentialDeletion("ck-erin", ck.ScramMechanism.SCRAM_SHA_256)]
    )
    with pytest.raises(KafkaException) as raised:
        refused["ck-erin"].result(20)
    assert raised.value.args[0].code() == KafkaError.RESOURCE_NOT_FOUND
    deleted = admin.alter_user_scram_credentials(
        [ck.UserScramCredentialDeletion("ck-erin", ck.ScramMechanism.SCRAM_SHA_512)]
    )
    deleted["ck-erin"].result(20)
    with pytest.raises(KafkaException) as raised:
        admin.describe_user_scram_credentials(["ck-erin"])["ck-erin"].result(20)
    assert raised.value.args[0].code() == KafkaError.RESOURCE_NOT_FOUND
