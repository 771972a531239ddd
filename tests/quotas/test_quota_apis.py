"""DescribeClientQuotas and AlterClientQuotas: Kafka 4.1's `kafka-configs` alters and
describes client quotas unchanged, invalid values and entity types get Kafka's error codes,
validate_only changes nothing, and the quotas survive a restart (single-node store)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest
from ferrolog.embedded import EmbeddedBroker

from bench.harness import kafka_dist
from tests.cluster.harness import java_command, needs_kafka_jars
from tests.quotas.conftest import QuotaClient, RunningBroker

pytestmark = pytest.mark.native

INVALID_REQUEST, UNSUPPORTED_VERSION = 42, 35
CONFIG_COMMAND = kafka_dist.CONFIG_COMMAND


def kafka_configs(bootstrap: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        java_command(CONFIG_COMMAND, "--bootstrap-server", bootstrap, *args),
        capture_output=True,
        text=True,
        timeout=120,
    )


@needs_kafka_jars
def test_kafka_configs_alters_and_describes_client_quotas(
    quota_broker: Callable[..., RunningBroker],
) -> None:
    bootstrap = quota_broker().bootstrap
    entity = ["--entity-type", "clients", "--entity-name", "X"]
    run = kafka_configs(bootstrap, *entity, "--alter", "--add-config", "producer_byte_rate=1048576")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Completed updating config for client X." in run.stdout
    run = kafka_configs(bootstrap, *entity, "--describe")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Quota configs for client-id 'X' are producer_byte_rate=1048576.0" in run.stdout
    run = kafka_configs(
        bootstrap, "--entity-type", "clients", "--entity-default", "--alter", "--add-config",
        "consumer_byte_rate=2048",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    run = kafka_configs(bootstrap, "--entity-type", "clients", "--describe")
    assert "Quota configs for the default client-id are consumer_byte_rate=2048.0" in run.stdout
    assert "Quota configs for client-id 'X' are producer_byte_rate=1048576.0" in run.stdout
    # Kafka's answers to invalid values, through Kafka's own tool.
    run = kafka_configs(bootstrap, *entity, "--alter", "--add-config", "producer_byte_rate=10.5")
    assert run.returncode != 0
    assert "InvalidRequestException: producer_byte_rate cannot be a fractional value." in run.stderr
    run = kafka_configs(bootstrap, *entity, "--alter", "--add-config", "producer_byte_rate=-1")
    assert "InvalidRequestException: Quota producer_byte_rate must be greater than 0" in run.stderr
    run = kafka_configs(bootstrap, *entity, "--alter", "--delete-config", "producer_byte_rate")
    assert run.returncode == 0, run.stdout + run.stderr
    run = kafka_configs(bootstrap, *entity, "--describe")
    assert "producer_byte_rate" not in run.stdout


def test_invalid_alterations_get_kafkas_errors(quota_broker: Callable[..., RunningBroker]) -> None:
    quotas = quota_broker().quotas
    assert quotas.alter({"topic": "t"}, {"producer_byte_rate": 1.0})[0] == INVALID_REQUEST
    assert quotas.alter({"client-id": ""}, {"producer_byte_rate": 1.0})[0] == INVALID_REQUEST
    assert quotas.alter({}, {"producer_byte_rate": 1.0})[0] == INVALID_REQUEST
    assert quotas.alter({"client-id": "c"}, {"no_such_quota": 1.0}) == (
        INVALID_REQUEST,
        "Invalid configuration key no_such_quota",
    )
    assert quotas.alter({"client-id": "c"}, {"request_percentage": 0.0})[0] == INVALID_REQUEST
    assert quotas.alter({"user": "u"}, {"request_percentage": 12.5}) == (0, None)
    assert quotas.alter({"user": "u", "client-id": None}, {"controller_mutation_rate": 2.5}) == (
        0,
        None,
    )
    # An unknown entity type in a describe filter is UNSUPPORTED_VERSION, as in Kafka.
    assert quotas.describe([("topic", 2, None)])[0] == UNSUPPORTED_VERSION
    assert quotas.describe([("user", 0, None)])[0] == INVALID_REQUEST


def test_describe_filters_and_validate_only(quota_broker: Callable[..., RunningBroker]) -> None:
    quotas = quota_broker().quotas
    assert quotas.alter({"client-id": "v"}, {"producer_byte_rate": 5.0}, validate_only=True) == (
        0,
        None,
    )
    assert quotas.describe([]) == (0, {})
    for entity in ({"user": "u"}, {"user": "u", "client-id": "c"}, {"client-id": None}):
        assert quotas.alter(entity, {"consumer_byte_rate": 100.0}) == (0, None)
    code, everything = quotas.describe([])
    assert code == 0
    assert len(everything) == 3
    # Exact user, strict: only the user entity; not strict: also (user, client).
    assert set(quotas.describe([("user", 0, "u")], strict=True)[1]) == {(("user", "u"),)}
    assert len(quotas.describe([("user", 0, "u")])[1]) == 2
    # The default client id.
    assert set(quotas.describe([("client-id", 1, None)])[1]) == {(("client-id", None),)}
    # Any client id, strict: the default client entity only (the other has a user too).
    assert set(quotas.describe([("client-id", 2, None)], strict=True)[1]) == {
        (("client-id", None),)
    }


def test_quotas_survive_a_restart() -> None:
    with EmbeddedBroker() as broker:
        client = QuotaClient(broker.bootstrap_servers)
        assert client.alter({"client-id": "kept"}, {"producer_byte_rate": 4096.0}) == (0, None)
        client.close()
        broker.restart()
        client = QuotaClient(broker.bootstrap_servers)
        try:
            assert client.describe([("client-id", 0, "kept")]) == (
                0,
                {(("client-id", "kept"),): {"producer_byte_rate": 4096.0}},
            )
        finally:
            client.close()


@needs_kafka_jars
def test_kafka_configs_alters_and_describes_user_quotas(
    quota_broker: Callable[..., RunningBroker],
) -> None:
    """`--entity-type users`, alone and with `--entity-type clients`: the user and the
    (user, client-id) levels, and the default user, through Kafka's own tool."""
    bootstrap = quota_broker().bootstrap
    alice = ["--entity-type", "users", "--entity-name", "alice"]
    alice_c1 = [*alice, "--entity-type", "clients", "--entity-name", "c1"]
    for entity, config in [
        (alice, "producer_byte_rate=1048576"),
        (alice_c1, "consumer_byte_rate=4096"),
        (["--entity-type", "users", "--entity-default"], "request_percentage=50"),
    ]:
        run = kafka_configs(bootstrap, *entity, "--alter", "--add-config", config)
        assert run.returncode == 0, run.stdout + run.stderr
        assert "Completed updating" in run.stdout
    run = kafka_configs(bootstrap, *alice, "--describe")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Quota configs for user-principal 'alice' are producer_byte_rate=1048576.0" in run.stdout
    run = kafka_configs(bootstrap, *alice_c1, "--describe")
    assert run.returncode == 0, run.stdout + run.stderr
    assert (
        "Quota configs for user-principal 'alice', client-id 'c1' are consumer_byte_rate=4096.0"
        in run.stdout
    )
    run = kafka_configs(bootstrap, "--entity-type", "users", "--describe")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Quota configs for the default user-principal are request_percentage=50.0" in run.stdout
    assert "Quota configs for user-principal 'alice' are producer_byte_rate=1048576.0" in run.stdout
    run = kafka_configs(bootstrap, *alice, "--alter", "--delete-config", "producer_byte_rate")
    assert run.returncode == 0, run.stdout + run.stderr
    run = kafka_configs(bootstrap, *alice, "--describe")
    assert "producer_byte_rate" not in run.stdout
