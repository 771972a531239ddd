"""ACLs through the public surface: Kafka 4.1's own `kafka-acls` adds, lists (literal,
prefixed, matching) and removes ACLs; confluent-kafka clients with TLS client certificates as
two principals, one allowed and one refused with Kafka's error, for Metadata, CreateTopics,
consumer groups, transactions, configs and the ACL APIs themselves; a super user by
certificate; SECURITY_DISABLED without an authorizer. The natively served APIs (Produce,
Fetch, ListOffsets) are in tests/native/test_acl_native.py."""

from __future__ import annotations

import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ConfigResource,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)
from ferrolog.embedded import EmbeddedBroker

from tests.acl_broker import AclBroker, principal
from tests.cluster.harness import java_command, needs_kafka_jars

pytestmark = pytest.mark.native

TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP
READ, WRITE, CREATE = AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE
ACL_COMMAND = "org.apache.kafka.tools.AclCommand"


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclBroker]:
    broker = AclBroker(
        tmp_path_factory.mktemp("acl-handlers"),
        {"super.users": f"User:ANONYMOUS;{principal('root')}"},
    )
    try:
        yield broker
    finally:
        broker.close()


def new_topic(broker: AclBroker, prefix: str, partitions: int = 1) -> str:
    topic = f"{prefix}-{uuid.uuid4().hex[:6]}"
    broker.admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(20)
    return topic


def kafka_acls(broker: AclBroker, *args: str) -> str:
    run = subprocess.run(
        java_command(ACL_COMMAND, "--bootstrap-server", broker.plaintext, *args),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


@needs_kafka_jars
def test_kafka_acls_adds_lists_and_removes(secured: AclBroker) -> None:
    name = f"cli-{uuid.uuid4().hex[:6]}"
    kafka_acls(
        secured,
        "--add",
        "--allow-principal",
        "User:alice",
        "--operation",
        "Read",
        "--operation",
        "Describe",
        "--topic",
        name,
        "--group",
        name,
    )
    kafka_acls(
        secured,
        "--add",
        "--deny-principal",
        "User:bob",
        "--allow-host",
        "*",
        "--operation",
        "Write",
        "--topic",
        name,
        "--resource-pattern-type",
        "prefixed",
    )
    listed = kafka_acls(
        secured, "--list", "--topic", f"{name}-x", "--resource-pattern-type", "match"
    )
    assert f"name={name}, patternType=PREFIXED" in listed
    assert "principal=User:bob, host=*, operation=WRITE, permissionType=DENY" in listed
    assert "patternType=LITERAL" not in listed  # the literal ACL is on another name
    listed = kafka_acls(secured, "--list", "--topic", name)
    assert "principal=User:alice, host=*, operation=READ, permissionType=ALLOW" in listed
    assert "operation=DESCRIBE" in listed
    group = kafka_acls(secured, "--list", "--group", name)
    assert f"resourceType=GROUP, name={name}, patternType=LITERAL" in group
    kafka_acls(secured, "--remove", "--force", "--topic", name)
    assert "principal=User:alice" not in kafka_acls(secured, "--list", "--topic", name)
    kafka_acls(
        secured, "--remove", "--force", "--topic", name, "--resource-pattern-type", "prefixed"
    )
    gone = secured.admin.describe_acls(
        AclBindingFilter(
            TOPIC,
            name,
            ResourcePatternType.ANY,
            None,
            None,
            AclOperation.ANY,
            AclPermissionType.ANY,
        ),
        request_timeout=20,
    ).result()
    assert gone == []


def test_metadata_hides_topics_the_principal_may_not_describe(secured: AclBroker) -> None:
    topic = new_topic(secured, "meta")
    secured.allow("alice", TOPIC, topic, AclOperation.DESCRIBE)
    alice = AdminClient(secured.client("alice"))
    assert topic in alice.list_topics(timeout=20).topics
    bob = AdminClient(secured.client("bob"))
    assert topic not in bob.list_topics(timeout=20).topics
    asked = bob.list_topics(topic, timeout=20).topics[topic]
    assert asked.error is not None
    assert asked.error.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED


def test_create_topics_needs_create(secured: AclBroker) -> None:
    prefix = f"made-{uuid.uuid4().hex[:6]}"
    secured.allow("alice", TOPIC, prefix, CREATE, pattern=ResourcePatternType.PREFIXED)
    alice = AdminClient(secured.client("alice"))
    alice.create_topics([NewTopic(f"{prefix}-a", 1, 1)])[f"{prefix}-a"].result(20)
    bob = AdminClient(secured.client("bob"))
    with pytest.raises(KafkaException) as refused:
        bob.create_topics([NewTopic(f"{prefix}-b", 1, 1)])[f"{prefix}-b"].result(20)
    assert refused.value.args[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert f"{prefix}-b" not in secured.admin.list_topics(timeout=20).topics


def consume(
    config: dict[str, object], topic: str, group: str, want: int
) -> list[bytes] | KafkaError:
    """What a subscribed consumer of `group` reads, or the first error it gets."""
    consumer = Consumer({**config, "group.id": group, "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    got: list[bytes] = []
    deadline = time.monotonic() + 30
    try:
        while len(got) < want and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None:
                continue
            if message.error():
                return message.error()
            got.append(message.value())
    finally:
        consumer.close()
    return got


def test_groups_need_read_on_the_group(secured: AclBroker) -> None:
    topic = new_topic(secured, "grp")
    producer = Producer({"bootstrap.servers": secured.plaintext})
    for i in range(3):
        producer.produce(topic, f"v{i}".encode())
    assert producer.flush(20) == 0
    group = f"g-{uuid.uuid4().hex[:6]}"
    for name in ("alice", "bob"):
        secured.allow(name, TOPIC, topic, READ)
    secured.allow("alice", GROUP, group, READ)
    assert consume(secured.client("alice"), topic, group, 3) == [b"v0", b"v1", b"v2"]
    refused = consume(secured.client("bob"), topic, group, 3)
    assert isinstance(refused, KafkaError)
    assert refused.code() == KafkaError.GROUP_AUTHORIZATION_FAILED

    # ListGroups shows a principal without DESCRIBE on the cluster only the groups it may
    # DESCRIBE.
    def listed(name: str) -> set[str]:
        admin = AdminClient(secured.client(name))
        result = admin.list_consumer_groups(request_timeout=20).result()
        return {g.group_id for g in result.valid}

    assert group in listed("alice")
    assert group not in listed("bob")
    # alice's committed offsets: OffsetFetch needs DESCRIBE on the group, which READ implies.
    alice = Consumer({**secured.client("alice"), "group.id": group})
    try:
        committed = alice.committed([TopicPartition(topic, 0)], timeout=20)
        assert committed[0].offset == 3
    finally:
        alice.close()


def test_transactions_need_write_on_the_transactional_id(secured: AclBroker) -> None:
    topic = new_topic(secured, "txn")
    txn_id = f"t-{uuid.uuid4().hex[:6]}"
    secured.allow("alice", ResourceType.TRANSACTIONAL_ID, txn_id, WRITE)
    for name in ("alice", "bob"):
        secured.allow(name, TOPIC, topic, WRITE)
    alice = Producer(secured.client("alice", **{"transactional.id": txn_id}))
    alice.init_transactions(20)
    alice.begin_transaction()
    alice.produce(topic, b"committed")
    alice.commit_transaction(20)
    bob = Producer(secured.client("bob", **{"transactional.id": txn_id}))
    with pytest.raises(KafkaException) as refused:
        bob.init_transactions(20)
    assert refused.value.args[0].code() == KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    reader = {"bootstrap.servers": secured.plaintext, "isolation.level": "read_committed"}
    assert consume(reader, topic, f"r-{txn_id}", 1) == [b"committed"]


def test_configs_and_acl_apis_are_refused_without_their_acl(secured: AclBroker) -> None:
    topic = new_topic(secured, "cfg")
    bob = AdminClient(secured.client("bob"))
    future = bob.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)])
    with pytest.raises(KafkaException) as refused:
        next(iter(future.values())).result(20)
    assert refused.value.args[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    binding = AclBinding(
        TOPIC,
        topic,
        ResourcePatternType.LITERAL,
        principal("bob"),
        "*",
        READ,
        AclPermissionType.ALLOW,
    )
    with pytest.raises(KafkaException) as refused:
        bob.create_acls([binding], request_timeout=20)[binding].result()
    assert refused.value.args[0].code() == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    secured.allow("bob", ResourceType.BROKER, "kafka-cluster", AclOperation.ALTER)
    bob.create_acls([binding], request_timeout=20)[binding].result()
    assert topic in bob.list_topics(timeout=20).topics  # READ implies DESCRIBE


def test_super_user_needs_no_acl(secured: AclBroker) -> None:
    topic = new_topic(secured, "root")
    secured.deny("root", TOPIC, topic, WRITE)  # a super user's ACLs are not looked at
    root = Producer(secured.client("root"))
    root.produce(topic, b"as root")
    assert root.flush(20) == 0
    assert consume(secured.client("root"), topic, f"root-{topic}", 1) == [b"as root"]


def test_acl_apis_without_an_authorizer_answer_security_disabled(tmp_path: Path) -> None:
    with EmbeddedBroker(tmp_path / "data") as broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
        binding = AclBinding(
            TOPIC,
            "t",
            ResourcePatternType.LITERAL,
            "User:alice",
            "*",
            READ,
            AclPermissionType.ALLOW,
        )
        # (librdkafka drops DescribeAcls' error code, so CreateAcls shows it.)
        with pytest.raises(KafkaException) as refused:
            admin.create_acls([binding], request_timeout=20)[binding].result()
        assert refused.value.args[0].code() == KafkaError.SECURITY_DISABLED


def test_consumer_group_heartbeat_needs_describe_on_the_subscribed_topics(
    secured: AclBroker,
) -> None:
    """KIP-848 (`group.protocol=consumer`): as Kafka 4.1's handleConsumerGroupHeartbeat, READ on
    the group is not enough; every topic subscribed by name needs DESCRIBE, else the heartbeat
    is answered TOPIC_AUTHORIZATION_FAILED and the member does not join."""
    topic = new_topic(secured, "kip848")
    producer = Producer({"bootstrap.servers": secured.plaintext})
    producer.produce(topic, b"v0")
    assert producer.flush(20) == 0
    group = f"g-{uuid.uuid4().hex[:6]}"
    for name in ("alice", "bob"):
        secured.allow(name, GROUP, group, READ)
    secured.allow("alice", TOPIC, topic, READ)  # READ implies DESCRIBE
    config = {"group.protocol": "consumer"}
    refused = consume({**secured.client("bob"), **config}, topic, group, 1)
    assert isinstance(refused, KafkaError)
    assert refused.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert consume({**secured.client("alice"), **config}, topic, group, 1) == [b"v0"]
