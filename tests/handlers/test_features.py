"""Features (KIP-584) on a single-node broker, through Kafka 4.1's `kafka-features`,
kafka-python's describe_features/update_features and raw ApiVersions/UpdateFeatures requests.

The answers expected here are Kafka 4.1.1's (KRaft, a broker started from bench/cache's jars
and asked the same), with ferrolog's supported levels (`ferrolog.features`) in place of
Kafka's: Kafka 4.1 supports transaction.version 0-2 and group.version 0-1, finalized at their
maximum when formatted, as ferrolog finalizes a new cluster (`NEW_CLUSTER_LEVELS`, at epoch 0:
the version of a new `/feature` znode). Kafka 4.1 answered, for example:
- `kafka-features describe`: one line per supported feature,
  `Feature: transaction.version\\tSupportedMinVersion: 0\\tSupportedMaxVersion: 2\\t
  FinalizedVersionLevel: 2\\tEpoch: 29`;
- `upgrade --feature transaction.version=3`: exit 1, "Could not upgrade transaction.version to
  3. The update failed for all features since the following feature had an error: Invalid
  update version 3 for feature transaction.version. Local controller 1 only supports versions
  0-2";
- an unknown feature: "... Local controller 1 does not support this feature." (level 1),
  "... Feature foo.version not found." (level 0);
- UPGRADE to a lower level: "... Can't downgrade the version of this feature without setting
  the upgrade type to either safe or unsafe downgrade."; a downgrade type to a higher level:
  "... Can't downgrade to a newer version."; upgrade type 0 or 9: "... The controller does not
  support the given upgrade type."; the same level again: accepted, the epoch moves;
- success: error code 0, per feature error code 0 and message "NONE" (v1), no rows (v2);
  validate-only: the same answer, the epoch unchanged;
- ApiVersions v3: no supported feature whose minimum is 0 (metadata.version 7-27 only)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from ferrolog.embedded import EmbeddedBroker
from ferrolog.features import NEW_CLUSTER_LEVELS
from kafka.admin import KafkaAdminClient
from kafka.errors import InvalidUpdateVersionError

from tests.cluster.harness import java_command, needs_kafka_jars
from tests.handlers.features_tools import (
    ALL_FAILED,
    INVALID_UPDATE_VERSION,
    SAFE_DOWNGRADE,
    UNSAFE_DOWNGRADE,
    UPGRADE,
    described,
    finalized,
    kafka_features,
    request,
    supported,
    update,
)
from tests.transactions.conftest import read_all

pytestmark = pytest.mark.native

NODE = 5  # the broker's id, which Kafka's messages name as the "local controller"
TXN = "transaction.version"
GROUP = "group.version"
ELR = "eligible.leader.replicas.version"
SHARE = "share.version"
STREAMS = "streams.version"
# What ApiVersions reports finalized on a new cluster.
NEW = {name: (level, level) for name, level in NEW_CLUSTER_LEVELS.items()}
DESCRIBE_TRANSACTIONS = 65


@pytest.fixture
def bootstrap(ferrolog_broker_factory: Callable[..., EmbeddedBroker]) -> str:
    broker = ferrolog_broker_factory(overrides={"broker.id": str(NODE)})
    return broker.bootstrap_servers


def line(level: int, epoch: int) -> list[str]:
    """`kafka-features describe`: eligible leader replicas, group.version, share.version and
    streams.version (finalized at 1 here), then `TXN` at `level`,
    a line each (Kafka 4.4 pads its columns, 4.1 separated them by tabs: compared with single
    spaces)."""
    return [
        f"Feature: {name} SupportedMinVersion: 0 SupportedMaxVersion: {top} "
        f"FinalizedVersionLevel: {finalized} Epoch: {epoch}"
        for name, top, finalized in (
            (ELR, 1, 1),
            (GROUP, 1, 1),
            (SHARE, 1, 1),
            (STREAMS, 1, 1),
            (TXN, 2, level),
        )
    ]


def refused(answer: dict[str, object], feature: str, level: int, reason: str) -> None:
    assert answer["error_code"] == INVALID_UPDATE_VERSION, answer
    assert answer["error_message"] == (
        f"{ALL_FAILED}Invalid update version {level} for feature {feature}. {reason}"
    )
    assert answer.get("results", []) == []  # v2 has no rows


def test_api_versions_reports_features_as_kafka_does(bootstrap: str) -> None:
    # A new cluster at Kafka 4.4's levels, epoch 0.
    assert supported(bootstrap, 4) == {
        TXN: (0, 2),
        GROUP: (0, 1),
        ELR: (0, 1),
        SHARE: (0, 1),
        STREAMS: (0, 1),
    }
    assert finalized(bootstrap, 4) == (
        0,
        {TXN: (2, 2), GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)},
    )
    # v3 leaves out features whose minimum is 0 (KAFKA-17011), as Kafka 4.1 does; finalized
    # levels are reported all the same.
    assert supported(bootstrap, 3) == {}
    assert finalized(bootstrap, 3) == (0, NEW)


@needs_kafka_jars
def test_kafka_features_describes_upgrades_and_refuses(bootstrap: str) -> None:
    run = kafka_features(bootstrap, "describe")
    assert run.returncode == 0, run.stdout + run.stderr
    assert described(run.stdout) == line(2, 0)

    run = kafka_features(bootstrap, "downgrade", "--feature", f"{TXN}=1", "--dry-run")
    assert (run.returncode, run.stdout.strip()) == (0, f"{TXN} can be downgraded to 1."), (
        run.stdout + run.stderr
    )
    assert finalized(bootstrap) == (0, NEW)

    run = kafka_features(bootstrap, "downgrade", "--feature", f"{TXN}=1")
    assert (run.returncode, run.stdout.strip()) == (0, f"{TXN} was downgraded to 1."), run.stderr
    assert finalized(bootstrap, 4) == (
        1,
        {TXN: (1, 1), GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)},
    )
    assert finalized(bootstrap, 3) == (
        1,
        {TXN: (1, 1), GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)},
    )
    run = kafka_features(bootstrap, "describe")
    assert described(run.stdout) == line(1, 1)

    run = kafka_features(bootstrap, "upgrade", "--feature", f"{TXN}=3")
    assert run.returncode == 1
    assert run.stdout.splitlines()[0] == (
        f"Could not upgrade {TXN} to 3. {ALL_FAILED}Invalid update version 3 for feature {TXN}. "
        f"Local controller {NODE} only supports versions 0-2"
    )
    # Kafka 4.4's share.version 2 (dead-letter queues) is not supported.
    run = kafka_features(bootstrap, "upgrade", "--feature", f"{SHARE}=2")
    assert run.returncode == 1
    assert run.stdout.splitlines()[0] == (
        f"Could not upgrade {SHARE} to 2. {ALL_FAILED}Invalid update version 2 for feature "
        f"{SHARE}. Local controller {NODE} only supports versions 0-1"
    )
    assert finalized(bootstrap) == (
        1,
        {TXN: (1, 1), GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)},
    )

    run = kafka_features(bootstrap, "downgrade", "--feature", f"{TXN}=0")
    assert (run.returncode, run.stdout.strip()) == (0, f"{TXN} was downgraded to 0."), run.stderr
    assert finalized(bootstrap) == (2, {GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)})
    run = kafka_features(bootstrap, "downgrade", "--feature", f"{TXN}=1")
    assert run.returncode == 1
    assert run.stdout.splitlines()[0] == (
        f"Could not downgrade {TXN} to 1. {ALL_FAILED}Invalid update version 1 for feature "
        f"{TXN}. Can't downgrade to a newer version."
    )
    run = kafka_features(bootstrap, "upgrade", "--feature", f"{TXN}=2")
    assert (run.returncode, run.stdout.strip()) == (0, f"{TXN} was upgraded to 2."), run.stderr
    run = kafka_features(bootstrap, "describe")
    assert described(run.stdout) == line(2, 3)


def test_downgrade_rules(bootstrap: str) -> None:
    refused(
        update(bootstrap, [(TXN, 1, UPGRADE)]),
        TXN,
        1,
        "Can't downgrade the version of this feature without setting the upgrade type to "
        "either safe or unsafe downgrade.",
    )
    assert update(bootstrap, [(TXN, 1, SAFE_DOWNGRADE)])["error_code"] == 0
    # The same level again is accepted and written again, as Kafka 4.1 does.
    assert update(bootstrap, [(TXN, 1, SAFE_DOWNGRADE)])["error_code"] == 0
    assert finalized(bootstrap) == (
        2,
        {TXN: (1, 1), GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)},
    )
    # No metadata is lost below transaction.version 1, so the unsafe kind does as the safe one.
    assert update(bootstrap, [(TXN, 0, UNSAFE_DOWNGRADE)])["error_code"] == 0
    assert finalized(bootstrap) == (3, {GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)})
    refused(
        update(bootstrap, [(TXN, 1, SAFE_DOWNGRADE)]), TXN, 1, "Can't downgrade to a newer version."
    )
    # v0 has no upgrade type: allow_downgrade asks for a safe downgrade.
    assert update(bootstrap, [(TXN, 1, UPGRADE)], version=0)["error_code"] == 0
    assert update(bootstrap, [(TXN, 0, SAFE_DOWNGRADE)], version=0)["error_code"] == 0
    assert finalized(bootstrap) == (5, {GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)})


def test_invalid_updates_get_kafkas_errors_and_change_nothing(bootstrap: str) -> None:
    for kind in (0, 9):
        refused(
            update(bootstrap, [(TXN, 1, kind)]),
            TXN,
            1,
            "The controller does not support the given upgrade type.",
        )
    refused(
        update(bootstrap, [(TXN, -1, SAFE_DOWNGRADE)]),
        TXN,
        -1,
        "A feature version cannot be less than 0.",
    )
    refused(
        update(bootstrap, [("foo.version", 1, UPGRADE)]),
        "foo.version",
        1,
        f"Local controller {NODE} does not support this feature.",
    )
    refused(
        update(bootstrap, [("foo.version", 0, SAFE_DOWNGRADE)]),
        "foo.version",
        0,
        "Feature foo.version not found.",
    )
    # One refused update fails them all; the first refused by name is the one reported.
    refused(
        update(bootstrap, [(TXN, 1, UPGRADE), ("metadata.version", 27, UPGRADE)], version=2),
        "metadata.version",
        27,
        f"Local controller {NODE} does not support this feature.",
    )
    assert finalized(bootstrap) == (0, NEW)  # nothing written
    # A known feature to level 0 (no longer finalized) is fine, and written: the epoch moves.
    assert update(bootstrap, [(GROUP, 0, SAFE_DOWNGRADE)])["error_code"] == 0
    assert finalized(bootstrap) == (1, {TXN: (2, 2), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)})


def test_validate_only_answers_without_writing(bootstrap: str) -> None:
    answer = update(bootstrap, [(TXN, 1, SAFE_DOWNGRADE)], version=1, validate_only=True)
    assert answer == {
        "throttle_time_ms": 0,
        "error_code": 0,
        "error_message": None,
        "results": [{"feature": TXN, "error_code": 0, "error_message": "NONE"}],
    }
    answer = update(bootstrap, [(TXN, 1, SAFE_DOWNGRADE)], version=2, validate_only=True)
    assert answer == {"throttle_time_ms": 0, "error_code": 0, "error_message": None}
    refused(
        update(bootstrap, [(TXN, 3, UPGRADE)], validate_only=True),
        TXN,
        3,
        f"Local controller {NODE} only supports versions 0-2",
    )
    assert finalized(bootstrap) == (0, NEW)


def test_kafka_python_admin_and_a_restart(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    broker = ferrolog_broker_factory(overrides={"broker.id": str(NODE)})
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap_servers)
    try:
        group = {
            name: {"supported": (0, 1), "finalized": (1, 1), "finalized_epoch": 0}
            for name in (GROUP, ELR, SHARE, STREAMS)
        }
        assert admin.describe_features() == {
            TXN: {"supported": (0, 2), "finalized": (2, 2), "finalized_epoch": 0},
            **group,
        }
        assert admin.update_features({TXN: ("SAFE_DOWNGRADE", 1)}) == {TXN: "OK"}
        for entry in group.values():
            entry["finalized_epoch"] = 1
        assert admin.describe_features() == {
            TXN: {"supported": (0, 2), "finalized": (1, 1), "finalized_epoch": 1},
            **group,
        }
        with pytest.raises(InvalidUpdateVersionError, match="only supports versions 0-2"):
            admin.update_features({TXN: 3})
    finally:
        admin.close()
    # The finalized levels and their epoch are in the store: a restart keeps them.
    broker.restart()
    assert finalized(broker.bootstrap_servers) == (
        1,
        {TXN: (1, 1), GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)},
    )
    assert update(broker.bootstrap_servers, [(TXN, 0, SAFE_DOWNGRADE)])["error_code"] == 0
    assert finalized(broker.bootstrap_servers) == (
        2,
        {GROUP: (1, 1), ELR: (1, 1), SHARE: (1, 1), STREAMS: (1, 1)},
    )


@needs_kafka_jars
@pytest.mark.parametrize("level", [1, 2])
def test_java_transactions_at_each_transaction_version(bootstrap: str, level: int) -> None:
    """Kafka 4.4's Java producer reads transaction.version from ApiVersions. At 1 it adds its
    partitions and offsets itself and keeps its epoch; at 2 (KIP-890 part 2) it adds none
    (Produce v12+, TxnOffsetCommit v5 have the leader add them) and each EndTxn v5 bumps its
    epoch. Either way Kafka's consume-transform-produce copier copies every record once."""
    if level != NEW_CLUSTER_LEVELS[TXN]:
        run = kafka_features(bootstrap, "downgrade", "--feature", f"{TXN}={level}")
        assert run.returncode == 0, run.stdout + run.stderr
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic("in", 1, 1), NewTopic("out", 1, 1)]).values():
        future.result(20)
    records, per_transaction = 300, 50
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(records):
        producer.produce("in", value=f"r{i}".encode())
    assert producer.flush(30) == 0
    args = [
        "--broker-list", bootstrap,
        "--input-topic", "in",
        "--input-partition", "0",
        "--output-topic", "out",
        "--consumer-group", "copier",
        "--transactional-id", "copier-1",
        "--transaction-size", str(per_transaction),
        "--max-messages", str(records),
        "--use-group-metadata",
    ]  # fmt: skip
    copier = subprocess.run(
        java_command("org.apache.kafka.tools.TransactionalMessageCopier", *args),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert copier.returncode == 0, (copier.stdout + copier.stderr)[-4000:]
    copied = read_all(bootstrap, "out", "read_committed", records, idle=3)
    assert sorted(copied) == sorted(f"r{i}" for i in range(records))
    answer = request(bootstrap, DESCRIBE_TRANSACTIONS, 0, {"transactional_ids": ["copier-1"]})
    (state,) = answer["transaction_states"]
    # InitProducerId gave epoch 0; under version 2 each of the transactions moved it on.
    transactions = records // per_transaction
    expected = transactions if level == 2 else 0
    assert (state["error_code"], state["producer_epoch"]) == (0, expected), state
