"""A principal without the ACL an API needs, the authorizer on and
allow.everyone.if.no.acl.found=false: refused with the error Kafka's KafkaApis, ControllerApis
and AuthHelper answer, and nothing written or read. Each case of the table is sent over TLS by a
principal with no ACL (or only the ACLs the case grants), then by a super user, who gets through
and changes or reads what the refused request left alone: the refusal is the ACL's doing, and
each check that nothing changed is one that could see a change.

Beside the table: a transactional Produce for a transactional id the principal may no longer
WRITE; listings that leave out what the principal may not DESCRIBE; the authorized-operations
bit fields of Metadata and DescribeCluster (Kafka's `AuthHelper.authorizedOperations`: the
operations that apply to the resource, each one the authorizer allows, with DESCRIBE implied by
an ALLOW of READ, WRITE, DELETE or ALTER and DESCRIBE_CONFIGS by one of ALTER_CONFIGS).
The checks of Produce, Fetch, ListOffsets, Metadata, CreateTopics, groups, InitProducerId,
DescribeConfigs and CreateAcls by clients are in test_acls.py and tests/native/test_acl_native.py.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import (
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)
from ferrolog import errors
from ferrolog.client.connection import Connection
from ferrolog.client.security import ClientSecurity

from tests.acl_broker import AclBroker, principal
from tests.groups.streams_raw import word_count
from tests.transactions.raw import (
    ADD_OFFSETS,
    ADD_PARTITIONS,
    END_TXN,
    FIND_COORDINATOR,
    INIT_PRODUCER_ID,
    TXN_OFFSET_COMMIT,
    WRITE_TXN_MARKERS,
    Client,
    end_offset,
    produce_raw,
    ready,
    until_answered,
)
from tests.waiting import wait_until

pytestmark = pytest.mark.native

METADATA, OFFSET_COMMIT, OFFSET_FETCH, LIST_OFFSETS = 3, 8, 9, 2
DELETE_TOPICS, DELETE_RECORDS, OFFSET_FOR_LEADER_EPOCH = 20, 21, 23
DESCRIBE_ACLS, DELETE_ACLS, DESCRIBE_CONFIGS, ALTER_CONFIGS = 29, 31, 32, 33
DESCRIBE_LOG_DIRS, CREATE_PARTITIONS, DELETE_GROUPS, ELECT_LEADERS = 35, 37, 42, 43
INCREMENTAL_ALTER_CONFIGS, ALTER_REASSIGNMENTS, LIST_REASSIGNMENTS = 44, 45, 46
OFFSET_DELETE, DESCRIBE_CLIENT_QUOTAS, ALTER_CLIENT_QUOTAS = 47, 48, 49
DESCRIBE_SCRAM, ALTER_SCRAM = 50, 51
MISSING = -1  # an error code for an entry the answer should have had and did not
DESCRIBE_CLUSTER, DESCRIBE_PRODUCERS, DESCRIBE_TRANSACTIONS, LIST_TRANSACTIONS = 60, 61, 65, 66
LIST_CONFIG_RESOURCES, DESCRIBE_TOPIC_PARTITIONS = 74, 75
INITIALIZE_SHARE_GROUP_STATE = 83
STREAMS_GROUP_HEARTBEAT, STREAMS_GROUP_DESCRIBE = 88, 89

TOPIC_REFUSED = errors.TopicAuthorizationFailedError.code
GROUP_REFUSED = errors.GroupAuthorizationFailedError.code
CLUSTER_REFUSED = errors.ClusterAuthorizationFailedError.code
TXN_REFUSED = errors.TransactionalIdAuthorizationFailedError.code
NOT_READY = {
    errors.CoordinatorLoadInProgressError.code,
    errors.CoordinatorNotAvailableError.code,
    errors.NotCoordinatorError.code,
}

CONFIG_TOPIC, CONFIG_BROKER = 2, 4  # ConfigResource.Type
ACL_TOPIC, ACL_ANY, ACL_LITERAL = 2, 1, 3  # the wire's resource type, ANY, LITERAL
SCRAM_SHA_256 = 1
ZERO_UUID = bytes(16)
NOT_REQUESTED = -(2**31)  # the schemas' default of the authorized-operations fields

Op = AclOperation
TOPIC, GROUP, TXN_ID = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID
CLUSTER, CLUSTER_NAME = ResourceType.BROKER, "kafka-cluster"

# Kafka's AclOperation codes: bit n of an authorized-operations field is operation n.
KAFKA_CODE = {
    Op.READ: 3,
    Op.WRITE: 4,
    Op.CREATE: 5,
    Op.DELETE: 6,
    Op.ALTER: 7,
    Op.DESCRIBE: 8,
    Op.CLUSTER_ACTION: 9,
    Op.DESCRIBE_CONFIGS: 10,
    Op.ALTER_CONFIGS: 11,
    Op.IDEMPOTENT_WRITE: 12,
}
# Kafka's `AclEntry.supportedOperations` of a topic and of the cluster.
TOPIC_OPERATIONS = (
    Op.READ,
    Op.WRITE,
    Op.CREATE,
    Op.DELETE,
    Op.ALTER,
    Op.DESCRIBE,
    Op.DESCRIBE_CONFIGS,
    Op.ALTER_CONFIGS,
)
CLUSTER_OPERATIONS = (
    Op.CREATE,
    Op.ALTER,
    Op.DESCRIBE,
    Op.CLUSTER_ACTION,
    Op.DESCRIBE_CONFIGS,
    Op.ALTER_CONFIGS,
    Op.IDEMPOTENT_WRITE,
)


def bits(*operations: AclOperation) -> int:
    return sum(1 << KAFKA_CODE[op] for op in set(operations))


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclBroker]:
    broker = AclBroker(
        tmp_path_factory.mktemp("acl-refusals"),
        {
            "super.users": f"User:ANONYMOUS;{principal('root')}",
            "allow.everyone.if.no.acl.found": "false",
        },
    )
    try:
        yield broker
    finally:
        broker.close()


@pytest.fixture(scope="module")
def su(secured: AclBroker) -> Iterator[Client]:
    """The super user User:ANONYMOUS (PLAINTEXT): what the cases act on is made and looked at
    as it."""
    client = Client(secured.plaintext)
    yield client
    client.conn.close()


def connect(broker: AclBroker, name: str) -> Connection:
    """A connection to the SSL listener as principal `name`, by its client certificate."""
    config = broker.client(name)
    security = ClientSecurity(
        protocol="SSL",
        ca_pem=Path(config["ssl.ca.location"]).read_text(),
        cert_pem=Path(config["ssl.certificate.location"]).read_text(),
        key_pem=Path(config["ssl.key.location"]).read_text(),
    )
    host, _, port = broker.ssl.rpartition(":")
    return Connection(host, int(port), 20, "acl-refusals", security)


def send(broker: AclBroker, name: str, api: int, version: int, body: Any) -> dict[str, Any]:
    with connect(broker, name) as conn:
        return conn.request(api, version, body)


def partition_codes(answer: dict[str, Any]) -> list[int]:
    """topics[].partitions[].error_code (OffsetCommit, TxnOffsetCommit, DeleteRecords,
    OffsetForLeaderEpoch, DescribeProducers, OffsetFetch v0-7)."""
    return [p["error_code"] for t in answer["topics"] for p in t["partitions"]]


def top_code(answer: dict[str, Any]) -> list[int]:
    return [answer["error_code"]]


def top_and_partitions(answer: dict[str, Any]) -> list[int]:
    return [answer["error_code"], *partition_codes(answer)]


def group_codes(answer: dict[str, Any]) -> list[int]:
    """OffsetFetch v8+: each group's error and those of its partitions."""
    return [g["error_code"] for g in answer["groups"]] + group_partition_codes(answer)


def group_partition_codes(answer: dict[str, Any]) -> list[int]:
    return [p["error_code"] for g in answer["groups"] for t in g["topics"] for p in t["partitions"]]


def offsets_shown(answer: dict[str, Any]) -> bool:
    topics = answer.get("topics") or [t for g in answer.get("groups") or [] for t in g["topics"]]
    return any(p["committed_offset"] >= 0 for t in topics for p in t["partitions"])


def commit_body(group: str, topic: str, offset: int) -> dict[str, Any]:
    """OffsetCommit of a client outside the group's membership (Kafka's simple commit)."""
    return {
        "group_id": group,
        "generation_id_or_member_epoch": -1,
        "member_id": "",
        "group_instance_id": None,
        "topics": [
            {
                "name": topic,
                "partitions": [
                    {
                        "partition_index": 0,
                        "committed_offset": offset,
                        "committed_leader_epoch": -1,
                        "committed_metadata": "",
                    }
                ],
            }
        ],
    }


def fetch_v8(group: str, topic: str | None) -> dict[str, Any]:
    """OffsetFetch v8+ of partition 0 of `topic` (None: every offset of the group)."""
    topics = None if topic is None else [{"name": topic, "partition_indexes": [0]}]
    return {"groups": [{"group_id": group, "topics": topics}], "require_stable": False}


class World:
    """What one case acts on, made on first use by the super user under names new to each
    test, and what the refused request would have changed, as the super user sees it."""

    def __init__(self, broker: AclBroker, su: Client) -> None:
        self.broker, self.su = broker, su
        self.tag = uuid.uuid4().hex[:8]
        self.txn_id = f"tx-{self.tag}"
        self.producer = (-1, -1)
        self.user = f"user-{self.tag}"
        self.acl_resource = f"acl-{self.tag}"
        # A value no other test sets: whoever sets it is seen to have.
        self.retention_ms = str(600_000_000 + int(self.tag, 16) % 100_000_000)

    @cached_property
    def topic(self) -> str:
        """Two partitions; three records in partition 0 from an idempotent producer."""
        topic = f"t-{self.tag}"
        self.broker.admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(20)
        producer = Producer(
            {"bootstrap.servers": self.broker.plaintext, "enable.idempotence": True}
        )
        for i in range(3):
            producer.produce(topic, f"v{i}".encode(), partition=0)
        assert producer.flush(20) == 0
        return topic

    @cached_property
    def topic_id(self) -> bytes:
        answer = self.su.request(
            METADATA, 12, {"topics": [{"name": self.topic}], "allow_auto_topic_creation": False}
        )
        return bytes(answer["topics"][0]["topic_id"])

    @cached_property
    def group(self) -> str:
        """A group without members, offset 2 committed for partition 0 of the topic."""
        group, topic = f"g-{self.tag}", self.topic
        until_answered(
            lambda: self.su.request(FIND_COORDINATOR, 3, {"key": group, "key_type": 0}),
            lambda r: r["error_code"] in NOT_READY,
            "the group coordinator",
        )
        (code,) = until_answered(
            lambda: partition_codes(
                self.su.request(OFFSET_COMMIT, 8, commit_body(group, topic, 2))
            ),
            lambda codes: codes[0] in NOT_READY,
            "the group coordinator",
        )
        assert code == 0
        return group

    def begin(self, partition: bool = False, offsets: bool = False) -> None:
        """The transactional id initialized (its transaction Empty), then partition 0 of the
        topic and the group's offsets added to its transaction, if asked for."""
        code, self.producer = ready(self.su, self.txn_id)
        assert code == 0
        if partition:
            assert self.su.add(self.txn_id, self.producer, self.topic, 0) == {0: 0}
        if offsets:
            answer = self.su.request(ADD_OFFSETS, 3, self.txn_body(group_id=self.group))
            assert answer["error_code"] == 0

    def txn_body(self, **extra: Any) -> dict[str, Any]:
        pid, epoch = self.producer
        return {
            "transactional_id": self.txn_id,
            "producer_id": pid,
            "producer_epoch": epoch,
            **extra,
        }

    def acl(self) -> None:
        self.broker.allow("someone", TOPIC, self.acl_resource, Op.READ)

    def acl_filter(self) -> dict[str, Any]:
        return {
            "resource_type_filter": ACL_TOPIC,
            "resource_name_filter": self.acl_resource,
            "pattern_type_filter": ACL_LITERAL,
            "principal_filter": None,
            "host_filter": None,
            "operation": ACL_ANY,
            "permission_type": ACL_ANY,
        }

    def scram_upsertion(self) -> dict[str, Any]:
        return {
            "deletions": [],
            "upsertions": [
                {
                    "name": self.user,
                    "mechanism": SCRAM_SHA_256,
                    "iterations": 4096,
                    "salt": os.urandom(16),
                    "salted_password": os.urandom(32),
                }
            ],
        }

    def scram_credential(self) -> None:
        answer = self.su.request(ALTER_SCRAM, 0, self.scram_upsertion())
        assert [r["error_code"] for r in answer["results"]] == [0]

    def quota_alteration(self) -> dict[str, Any]:
        return {
            "entries": [
                {
                    "entity": [{"entity_type": "user", "entity_name": self.user}],
                    "ops": [{"key": "producer_byte_rate", "value": 1048576.0, "remove": False}],
                }
            ],
            "validate_only": False,
        }

    def quota(self) -> None:
        answer = self.su.request(ALTER_CLIENT_QUOTAS, 1, self.quota_alteration())
        assert [e["error_code"] for e in answer["entries"]] == [0]

    def quota_filter(self) -> dict[str, Any]:
        return {
            "components": [{"entity_type": "user", "match_type": 0, "match": self.user}],
            "strict": True,
        }

    # What a request could change, as the super user sees it.

    def partitions(self) -> tuple[int, int]:
        answer = self.su.request(
            METADATA, 12, {"topics": [{"name": self.topic}], "allow_auto_topic_creation": False}
        )
        (topic,) = answer["topics"]
        return topic["error_code"], len(topic["partitions"])

    def configs(self, resource_type: int, name: str) -> tuple[int, dict[str, Any]]:
        answer = self.su.request(
            DESCRIBE_CONFIGS,
            4,
            {
                "resources": [
                    {
                        "resource_type": resource_type,
                        "resource_name": name,
                        "configuration_keys": None,
                    }
                ],
                "include_synonyms": False,
                "include_documentation": False,
            },
        )
        (result,) = answer["results"]
        return result["error_code"], {c["name"]: c["value"] for c in result["configs"]}

    def log_start(self) -> int:
        answer = self.su.request(
            LIST_OFFSETS,
            7,
            {
                "replica_id": -1,
                "isolation_level": 0,
                "topics": [
                    {"name": self.topic, "partitions": [{"partition_index": 0, "timestamp": -2}]}
                ],
            },
        )
        return int(answer["topics"][0]["partitions"][0]["offset"])

    def committed(self, stable: bool = False) -> tuple[int, list[tuple[int, int]]]:
        """The request's error and partition 0's error and offset in the group (with `stable`,
        UNSTABLE_OFFSET_COMMIT while a transaction has an offset of it pending)."""
        answer = self.su.request(
            OFFSET_FETCH,
            7,
            {
                "group_id": self.group,
                "topics": [{"name": self.topic, "partition_indexes": [0]}],
                "require_stable": stable,
            },
        )
        parts = [p for t in answer["topics"] for p in t["partitions"]]
        return answer["error_code"], [(p["error_code"], p["committed_offset"]) for p in parts]

    def transaction(self) -> tuple[int, str, list[tuple[str, list[int]]]]:
        answer = self.su.request(DESCRIBE_TRANSACTIONS, 0, {"transactional_ids": [self.txn_id]})
        (state,) = answer["transaction_states"]
        topics = sorted((t["topic"], sorted(t["partitions"])) for t in state["topics"])
        return state["error_code"], state["transaction_state"], topics

    def acls(self) -> list[Any]:
        answer = self.su.request(DESCRIBE_ACLS, 3, self.acl_filter())
        assert answer["error_code"] == 0
        return list(answer["resources"])

    def credentials(self) -> list[tuple[int, list[Any]]]:
        answer = self.su.request(DESCRIBE_SCRAM, 0, {"users": [{"name": self.user}]})
        return [(r["error_code"], r["credential_infos"]) for r in answer["results"]]

    def quotas(self) -> list[Any]:
        answer = self.su.request(DESCRIBE_CLIENT_QUOTAS, 1, self.quota_filter())
        assert answer["error_code"] == 0
        return list(answer["entries"] or [])


Grant = tuple[ResourceType, Callable[[World], str], tuple[AclOperation, ...]]


def _nothing(world: World) -> None:
    return None


@dataclass(frozen=True)
class Case:
    id: str
    api: int
    version: int
    body: Callable[[World], dict[str, Any]]
    # The answer's error codes: every one is `refusal` for the refused principal.
    codes: Callable[[dict[str, Any]], list[int]]
    refusal: int
    setup: Callable[[World], None] = _nothing
    # What the request would change (a super user's does): the same after the refusal.
    state: Callable[[World], object] | None = None
    # What the answer would reveal (a super user's does): nothing, refused.
    shown: Callable[[dict[str, Any]], object] | None = None
    # The ACLs the refused principal has (none: the principal has no ACL at all).
    grants: tuple[Grant, ...] = ()


def _topic(w: World) -> str:
    return w.topic


def _group(w: World) -> str:
    return w.group


def _txn_id(w: World) -> str:
    return w.txn_id


def _add_partitions_v3(w: World) -> dict[str, Any]:
    pid, epoch = w.producer
    return {
        "v3_and_below_transactional_id": w.txn_id,
        "v3_and_below_producer_id": pid,
        "v3_and_below_producer_epoch": epoch,
        "v3_and_below_topics": [{"name": w.topic, "partitions": [0]}],
    }


def _added_codes_v3(answer: dict[str, Any]) -> list[int]:
    return [
        p["partition_error_code"]
        for t in answer["results_by_topic_v3_and_below"]
        for p in t["results_by_partition"]
    ]


def _txn_offset_commit(w: World) -> dict[str, Any]:
    committed = commit_body(w.group, w.topic, 1)
    return w.txn_body(
        group_id=w.group,
        generation_id_or_member_epoch=-1,
        member_id="",
        group_instance_id=None,
        topics=committed["topics"],
    )


def _streams_join(w: World) -> dict[str, Any]:
    """A Kafka Streams thread joining the group with a word count's topology on the topic."""
    return {
        "group_id": w.group,
        "member_id": f"m-{w.tag}",
        "member_epoch": 0,
        "endpoint_information_epoch": -1,
        "instance_id": None,
        "rack_id": None,
        "rebalance_timeout_ms": 30000,
        "topology": word_count(w.group, w.topic),
        "active_tasks": [],
        "standby_tasks": [],
        "warmup_tasks": [],
        "process_id": w.tag,
        "user_endpoint": None,
        "client_tags": [],
        "task_offsets": [],
        "task_end_offsets": [],
        "shutdown_application": False,
    }


def _config_change(w: World, resource_type: int, name: str, key: str, incremental: bool) -> Any:
    config: dict[str, Any] = {"name": key, "value": w.retention_ms}
    if incremental:
        config["config_operation"] = 0  # SET
    return {
        "resources": [{"resource_type": resource_type, "resource_name": name, "configs": [config]}],
        "validate_only": False,
    }


CASES = [
    Case(
        "DeleteTopics-v6-by-name",
        DELETE_TOPICS,
        6,
        lambda w: {"topics": [{"name": w.topic, "topic_id": ZERO_UUID}], "timeout_ms": 10000},
        lambda r: [t["error_code"] for t in r["responses"]],
        TOPIC_REFUSED,
        state=World.partitions,
    ),
    Case(
        # Refused, and without DESCRIBE the topic's name is not told (ControllerApis).
        "DeleteTopics-v6-by-id",
        DELETE_TOPICS,
        6,
        lambda w: {"topics": [{"name": None, "topic_id": w.topic_id}], "timeout_ms": 10000},
        lambda r: [t["error_code"] for t in r["responses"]],
        TOPIC_REFUSED,
        state=World.partitions,
        shown=lambda r: [t["name"] for t in r["responses"] if t["name"] is not None],
    ),
    Case(
        "CreatePartitions-v3",
        CREATE_PARTITIONS,
        3,
        lambda w: {
            "topics": [{"name": w.topic, "count": 3, "assignments": None}],
            "timeout_ms": 10000,
            "validate_only": False,
        },
        lambda r: [t["error_code"] for t in r["results"]],
        TOPIC_REFUSED,
        state=World.partitions,
    ),
    Case(
        "AlterConfigs-v2-topic",
        ALTER_CONFIGS,
        2,
        lambda w: _config_change(w, CONFIG_TOPIC, w.topic, "retention.ms", incremental=False),
        lambda r: [x["error_code"] for x in r["responses"]],
        TOPIC_REFUSED,
        state=lambda w: w.configs(CONFIG_TOPIC, w.topic),
    ),
    Case(
        "AlterConfigs-v2-broker",
        ALTER_CONFIGS,
        2,
        lambda w: _config_change(w, CONFIG_BROKER, "", "log.retention.ms", incremental=False),
        lambda r: [x["error_code"] for x in r["responses"]],
        CLUSTER_REFUSED,
        state=lambda w: w.configs(CONFIG_BROKER, ""),
    ),
    Case(
        # A named topic it may not DESCRIBE: refused, its partitions not told.
        "DescribeTopicPartitions-v0",
        DESCRIBE_TOPIC_PARTITIONS,
        0,
        lambda w: {"topics": [{"name": w.topic}], "response_partition_limit": 2000, "cursor": None},
        lambda r: [t["error_code"] for t in r["topics"]],
        TOPIC_REFUSED,
        shown=lambda r: [p for t in r["topics"] for p in t["partitions"]],
    ),
    Case(
        # Needs DESCRIBE_CONFIGS on the cluster; the super user sees the brokers listed.
        "ListConfigResources-v1",
        LIST_CONFIG_RESOURCES,
        1,
        lambda w: {"resource_types": []},
        lambda r: [r["error_code"]],
        CLUSTER_REFUSED,
        shown=lambda r: [c for c in r["config_resources"] if c["resource_type"] == CONFIG_BROKER],
    ),
    Case(
        "IncrementalAlterConfigs-v1-topic",
        INCREMENTAL_ALTER_CONFIGS,
        1,
        lambda w: _config_change(w, CONFIG_TOPIC, w.topic, "retention.ms", incremental=True),
        lambda r: [x["error_code"] for x in r["responses"]],
        TOPIC_REFUSED,
        state=lambda w: w.configs(CONFIG_TOPIC, w.topic),
    ),
    Case(
        "IncrementalAlterConfigs-v1-broker",
        INCREMENTAL_ALTER_CONFIGS,
        1,
        lambda w: _config_change(w, CONFIG_BROKER, "", "log.retention.ms", incremental=True),
        lambda r: [x["error_code"] for x in r["responses"]],
        CLUSTER_REFUSED,
        state=lambda w: w.configs(CONFIG_BROKER, ""),
    ),
    Case(
        "DeleteRecords-v2",
        DELETE_RECORDS,
        2,
        lambda w: {
            "topics": [{"name": w.topic, "partitions": [{"partition_index": 0, "offset": 2}]}],
            "timeout_ms": 10000,
        },
        partition_codes,
        TOPIC_REFUSED,
        state=World.log_start,
    ),
    Case(
        "ElectLeaders-v2",
        ELECT_LEADERS,
        2,
        lambda w: {
            "election_type": 0,
            "topic_partitions": [{"topic": w.topic, "partitions": [0]}],
            "timeout_ms": 10000,
        },
        lambda r: (
            [r["error_code"]]
            + [
                p["error_code"]
                for t in r["replica_election_results"]
                for p in t["partition_result"]
            ]
        ),
        CLUSTER_REFUSED,
    ),
    Case(
        "AlterPartitionReassignments-v0",
        ALTER_REASSIGNMENTS,
        0,
        lambda w: {
            "timeout_ms": 10000,
            "topics": [{"name": w.topic, "partitions": [{"partition_index": 0, "replicas": None}]}],
        },
        # As Kafka's error response, each partition asked for carries the refusal too.
        lambda r: (
            [r["error_code"]]
            + ([p["error_code"] for t in r["responses"] for p in t["partitions"]] or [MISSING])
        ),
        CLUSTER_REFUSED,
    ),
    Case(
        "ListPartitionReassignments-v0",
        LIST_REASSIGNMENTS,
        0,
        lambda w: {"timeout_ms": 10000, "topics": None},
        top_code,
        CLUSTER_REFUSED,
    ),
    Case(
        "DescribeLogDirs-v4",
        DESCRIBE_LOG_DIRS,
        4,
        lambda w: {"topics": None},
        top_code,
        CLUSTER_REFUSED,
        shown=lambda r: r["results"],
    ),
    Case(
        "AlterUserScramCredentials-v0",
        ALTER_SCRAM,
        0,
        lambda w: w.scram_upsertion(),
        lambda r: [x["error_code"] for x in r["results"]],
        CLUSTER_REFUSED,
        state=World.credentials,
    ),
    Case(
        "DescribeUserScramCredentials-v0",
        DESCRIBE_SCRAM,
        0,
        lambda w: {"users": [{"name": w.user}]},
        # As Kafka's error response, each user asked for carries the refusal too.
        lambda r: [r["error_code"]] + ([x["error_code"] for x in r["results"]] or [MISSING]),
        CLUSTER_REFUSED,
        setup=World.scram_credential,
        shown=lambda r: [x for x in r["results"] if x["credential_infos"]],
    ),
    Case(
        "DescribeAcls-v3",
        DESCRIBE_ACLS,
        3,
        lambda w: w.acl_filter(),
        top_code,
        CLUSTER_REFUSED,
        setup=World.acl,
        shown=lambda r: r["resources"],
    ),
    Case(
        "DeleteAcls-v3",
        DELETE_ACLS,
        3,
        lambda w: {"filters": [w.acl_filter()]},
        lambda r: [f["error_code"] for f in r["filter_results"]],
        CLUSTER_REFUSED,
        setup=World.acl,
        state=World.acls,
    ),
    Case(
        "AlterClientQuotas-v1",
        ALTER_CLIENT_QUOTAS,
        1,
        lambda w: w.quota_alteration(),
        lambda r: [e["error_code"] for e in r["entries"]],
        CLUSTER_REFUSED,
        state=World.quotas,
    ),
    Case(
        "DescribeClientQuotas-v1",
        DESCRIBE_CLIENT_QUOTAS,
        1,
        lambda w: w.quota_filter(),
        top_code,
        CLUSTER_REFUSED,
        setup=World.quota,
        shown=lambda r: r["entries"],
    ),
    Case(
        "DeleteGroups-v2",
        DELETE_GROUPS,
        2,
        lambda w: {"groups_names": [w.group]},
        lambda r: [g["error_code"] for g in r["results"]],
        GROUP_REFUSED,
        state=World.committed,
    ),
    Case(
        "OffsetCommit-v8",
        OFFSET_COMMIT,
        8,
        lambda w: commit_body(w.group, w.topic, 1),
        partition_codes,
        GROUP_REFUSED,
        state=World.committed,
    ),
    Case(
        "OffsetFetch-v7",
        OFFSET_FETCH,
        7,
        lambda w: {
            "group_id": w.group,
            "topics": [{"name": w.topic, "partition_indexes": [0]}],
            "require_stable": False,
        },
        top_and_partitions,
        GROUP_REFUSED,
        shown=offsets_shown,
    ),
    Case(
        "OffsetFetch-v8",
        OFFSET_FETCH,
        8,
        lambda w: fetch_v8(w.group, w.topic),
        group_codes,
        GROUP_REFUSED,
        shown=offsets_shown,
    ),
    Case(
        "OffsetDelete-v0",
        OFFSET_DELETE,
        0,
        lambda w: {
            "group_id": w.group,
            "topics": [{"name": w.topic, "partitions": [{"partition_index": 0}]}],
        },
        top_and_partitions,
        GROUP_REFUSED,
        state=World.committed,
    ),
    Case(
        "OffsetForLeaderEpoch-v4",
        OFFSET_FOR_LEADER_EPOCH,
        4,
        lambda w: {
            "replica_id": -1,
            "topics": [
                {
                    "topic": w.topic,
                    "partitions": [{"partition": 0, "current_leader_epoch": -1, "leader_epoch": 0}],
                }
            ],
        },
        partition_codes,
        TOPIC_REFUSED,
        shown=lambda r: [p for t in r["topics"] for p in t["partitions"] if p["end_offset"] > 0],
    ),
    Case(
        "DescribeProducers-v0",
        DESCRIBE_PRODUCERS,
        0,
        lambda w: {"topics": [{"name": w.topic, "partition_indexes": [0]}]},
        partition_codes,
        TOPIC_REFUSED,
        shown=lambda r: [p for t in r["topics"] for p in t["partitions"] if p["active_producers"]],
    ),
    Case(
        "DescribeTransactions-v0",
        DESCRIBE_TRANSACTIONS,
        0,
        lambda w: {"transactional_ids": [w.txn_id]},
        lambda r: [s["error_code"] for s in r["transaction_states"]],
        TXN_REFUSED,
        setup=lambda w: w.begin(partition=True),
        shown=lambda r: [s for s in r["transaction_states"] if s["transaction_state"]],
    ),
    Case(
        "AddPartitionsToTxn-v3",
        ADD_PARTITIONS,
        3,
        _add_partitions_v3,
        _added_codes_v3,
        TXN_REFUSED,
        setup=World.begin,
        state=World.transaction,
    ),
    Case(
        # v4 is the brokers' (verification): CLUSTER_ACTION, as a whole.
        "AddPartitionsToTxn-v4",
        ADD_PARTITIONS,
        4,
        lambda w: {
            "transactions": [
                w.txn_body(verify_only=False, topics=[{"name": w.topic, "partitions": [0]}])
            ]
        },
        top_code,
        CLUSTER_REFUSED,
        setup=World.begin,
        state=World.transaction,
    ),
    Case(
        "AddOffsetsToTxn-v3",
        ADD_OFFSETS,
        3,
        lambda w: w.txn_body(group_id=w.group),
        top_code,
        TXN_REFUSED,
        setup=World.begin,
        state=World.transaction,
    ),
    Case(
        "EndTxn-v3",
        END_TXN,
        3,
        lambda w: w.txn_body(committed=True),
        top_code,
        TXN_REFUSED,
        setup=lambda w: w.begin(partition=True),
        state=World.transaction,
    ),
    Case(
        "TxnOffsetCommit-v3",
        TXN_OFFSET_COMMIT,
        3,
        _txn_offset_commit,
        partition_codes,
        TXN_REFUSED,
        setup=lambda w: w.begin(offsets=True),
        state=lambda w: w.committed(stable=True),
    ),
    # Past the first check, the next one's error.
    Case(
        "OffsetCommit-v8-read-on-the-group-only",
        OFFSET_COMMIT,
        8,
        lambda w: commit_body(w.group, w.topic, 1),
        partition_codes,
        TOPIC_REFUSED,
        state=World.committed,
        grants=((GROUP, _group, (Op.READ,)),),
    ),
    Case(
        "OffsetFetch-v8-describe-on-the-group-only",
        OFFSET_FETCH,
        8,
        lambda w: fetch_v8(w.group, w.topic),
        group_partition_codes,
        TOPIC_REFUSED,
        shown=offsets_shown,
        grants=((GROUP, _group, (Op.DESCRIBE,)),),
    ),
    Case(
        "OffsetDelete-v0-delete-on-the-group-only",
        OFFSET_DELETE,
        0,
        lambda w: {
            "group_id": w.group,
            "topics": [{"name": w.topic, "partitions": [{"partition_index": 0}]}],
        },
        partition_codes,
        TOPIC_REFUSED,
        state=World.committed,
        grants=((GROUP, _group, (Op.DELETE,)),),
    ),
    Case(
        "AddPartitionsToTxn-v3-write-on-the-id-only",
        ADD_PARTITIONS,
        3,
        _add_partitions_v3,
        _added_codes_v3,
        TOPIC_REFUSED,
        setup=World.begin,
        state=World.transaction,
        grants=((TXN_ID, _txn_id, (Op.WRITE,)),),
    ),
    Case(
        "AddOffsetsToTxn-v3-write-on-the-id-only",
        ADD_OFFSETS,
        3,
        lambda w: w.txn_body(group_id=w.group),
        top_code,
        GROUP_REFUSED,
        setup=World.begin,
        state=World.transaction,
        grants=((TXN_ID, _txn_id, (Op.WRITE,)),),
    ),
    Case(
        "StreamsGroupHeartbeat-v1-no-read-on-the-group",
        STREAMS_GROUP_HEARTBEAT,
        1,
        _streams_join,
        top_code,
        GROUP_REFUSED,
    ),
    Case(
        # KafkaApis: DESCRIBE on every topic the topology names, before the coordinator.
        "StreamsGroupHeartbeat-v1-no-describe-on-the-topics",
        STREAMS_GROUP_HEARTBEAT,
        1,
        _streams_join,
        top_code,
        TOPIC_REFUSED,
        grants=((GROUP, _group, (Op.READ,)),),
    ),
    Case(
        "StreamsGroupDescribe-v1",
        STREAMS_GROUP_DESCRIBE,
        1,
        lambda w: {
            "group_ids": [w.group],
            "include_authorized_operations": False,
            "include_topology_description": False,
        },
        lambda r: [g["error_code"] for g in r["groups"]],
        GROUP_REFUSED,
    ),
    Case(
        # A group that exists, whose topology names a topic the principal may not describe.
        "StreamsGroupDescribe-v1-no-describe-on-its-topics",
        STREAMS_GROUP_DESCRIBE,
        1,
        lambda w: {
            "group_ids": [w.group],
            "include_authorized_operations": False,
            "include_topology_description": False,
        },
        lambda r: [g["error_code"] for g in r["groups"]],
        TOPIC_REFUSED,
        setup=lambda w: w.su.request(STREAMS_GROUP_HEARTBEAT, 1, _streams_join(w)),
        shown=lambda r: [g["members"] for g in r["groups"] if g["members"]],
        grants=((GROUP, _group, (Op.DESCRIBE,)),),
    ),
    Case(
        "TxnOffsetCommit-v3-write-on-the-id-only",
        TXN_OFFSET_COMMIT,
        3,
        _txn_offset_commit,
        partition_codes,
        GROUP_REFUSED,
        setup=lambda w: w.begin(offsets=True),
        state=lambda w: w.committed(stable=True),
        grants=((TXN_ID, _txn_id, (Op.WRITE,)),),
    ),
    Case(
        "TxnOffsetCommit-v3-no-read-on-the-topic",
        TXN_OFFSET_COMMIT,
        3,
        _txn_offset_commit,
        partition_codes,
        TOPIC_REFUSED,
        setup=lambda w: w.begin(offsets=True),
        state=lambda w: w.committed(stable=True),
        grants=((TXN_ID, _txn_id, (Op.WRITE,)), (GROUP, _group, (Op.READ,))),
    ),
]


@pytest.fixture
def world(secured: AclBroker, su: Client) -> World:
    return World(secured, su)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_refused_with_kafkas_error_and_nothing_done(
    secured: AclBroker, world: World, case: Case
) -> None:
    case.setup(world)
    body = case.body(world)
    name = "nobody"
    if case.grants:
        name = f"p-{world.tag}"
        for resource_type, resource, operations in case.grants:
            secured.allow(name, resource_type, resource(world), *operations)
    before = case.state(world) if case.state is not None else None
    answer = send(secured, name, case.api, case.version, body)
    codes = case.codes(answer)
    assert codes, answer
    assert set(codes) == {case.refusal}, answer
    if case.state is not None:
        assert case.state(world) == before
    if case.shown is not None:
        assert not case.shown(answer), answer


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_same_request_of_a_super_user_goes_through(
    secured: AclBroker, world: World, case: Case
) -> None:
    """The control of the test above: the request is well formed, refused for its ACL only,
    and what it would change or read can be seen to change or be read."""
    case.setup(world)
    body = case.body(world)
    before = case.state(world) if case.state is not None else None
    answer = send(secured, "root", case.api, case.version, body)
    assert case.refusal not in case.codes(answer), answer
    if case.state is not None:
        state = case.state
        wait_until(lambda: state(world) != before, what=f"{case.id} to change {before}")
    if case.shown is not None:
        assert case.shown(answer), answer


def test_a_transactional_produce_needs_write_on_the_transactional_id(
    secured: AclBroker, su: Client
) -> None:
    """As Kafka's handleProduceRequest: a request with a transactional batch needs WRITE on the
    request's transactional id (none named: refused), whatever it may do on the topic; every
    partition TRANSACTIONAL_ID_AUTHORIZATION_FAILED and nothing appended."""
    tag = uuid.uuid4().hex[:8]
    topic, name, txn_id = f"txp-{tag}", f"txp-{tag}", f"tx-{tag}"
    secured.admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(20)
    secured.allow(name, TOPIC, topic, Op.WRITE)
    secured.allow(name, TXN_ID, txn_id, Op.WRITE)
    with connect(secured, name) as conn:
        until_answered(
            lambda: conn.request(FIND_COORDINATOR, 3, {"key": txn_id, "key_type": 1}),
            lambda r: r["error_code"] in NOT_READY,
            "the transaction coordinator",
        )
        init = until_answered(
            lambda: conn.request(
                INIT_PRODUCER_ID,
                4,
                {
                    "transactional_id": txn_id,
                    "transaction_timeout_ms": 60000,
                    "producer_id": -1,
                    "producer_epoch": -1,
                },
            ),
            lambda r: r["error_code"] in NOT_READY,
            "the transaction coordinator",
        )
        assert init["error_code"] == 0
        producer = (init["producer_id"], init["producer_epoch"])
        added = conn.request(
            ADD_PARTITIONS,
            3,
            {
                "v3_and_below_transactional_id": txn_id,
                "v3_and_below_producer_id": producer[0],
                "v3_and_below_producer_epoch": producer[1],
                "v3_and_below_topics": [{"name": topic, "partitions": [0]}],
            },
        )
        assert _added_codes_v3(added) == [0]
        # Allowed, the batch goes in (once the new topic has its leader).
        assert produce_raw(conn, txn_id, topic, producer, 9) == 0
        assert end_offset(su, topic) == 1

        futures = secured.admin.delete_acls(
            [
                AclBindingFilter(
                    TXN_ID,
                    txn_id,
                    ResourcePatternType.LITERAL,
                    principal(name),
                    "*",
                    Op.WRITE,
                    AclPermissionType.ALLOW,
                )
            ],
            request_timeout=20,
        )
        for future in futures.values():
            assert len(future.result()) == 1

        # WRITE implies DESCRIBE: refused DescribeTransactions shows the ACL gone.
        def describe_code() -> int:
            answer = conn.request(DESCRIBE_TRANSACTIONS, 0, {"transactional_ids": [txn_id]})
            return int(answer["transaction_states"][0]["error_code"])

        wait_until(lambda: describe_code() == TXN_REFUSED, what="the ACL to be gone")
        for version in (3, 9, 11):
            assert produce_raw(conn, txn_id, topic, producer, version, 1) == TXN_REFUSED
        assert produce_raw(conn, None, topic, producer, 9, 1) == TXN_REFUSED
    assert end_offset(su, topic) == 1


def test_listings_leave_out_what_the_principal_may_not_describe(
    secured: AclBroker, world: World
) -> None:
    """ListTransactions keeps the transactional ids the principal may DESCRIBE;
    DescribeTransactions drops the partitions of topics it may not DESCRIBE; an OffsetFetch of
    every offset of a group drops those topics too (KafkaApis)."""
    world.begin(partition=True)
    group = world.group
    name = f"lister-{world.tag}"
    secured.allow(name, TXN_ID, world.txn_id, Op.DESCRIBE)
    secured.allow(name, GROUP, group, Op.DESCRIBE)

    def listed(who: str) -> set[str]:
        body = {"state_filters": [], "producer_id_filters": [], "duration_filter": -1}
        answer = send(secured, who, LIST_TRANSACTIONS, 1, body)
        assert answer["error_code"] == 0
        return {t["transactional_id"] for t in answer["transaction_states"]}

    assert world.txn_id in listed("root")
    assert world.txn_id in listed(name)
    assert world.txn_id not in listed("nobody")

    def described(who: str) -> tuple[int, str, list[Any]]:
        body = {"transactional_ids": [world.txn_id]}
        (state,) = send(secured, who, DESCRIBE_TRANSACTIONS, 0, body)["transaction_states"]
        return state["error_code"], state["transaction_state"], state["topics"]

    assert described("root") == (0, "Ongoing", [{"topic": world.topic, "partitions": [0]}])
    assert described(name) == (0, "Ongoing", [])

    def all_offsets(who: str, version: int) -> tuple[int, list[str]]:
        if version >= 8:
            (g,) = send(secured, who, OFFSET_FETCH, version, fetch_v8(group, None))["groups"]
            return g["error_code"], [t["name"] for t in g["topics"]]
        body = {"group_id": group, "topics": None, "require_stable": False}
        answer = send(secured, who, OFFSET_FETCH, version, body)
        return answer["error_code"], [t["name"] for t in answer["topics"]]

    for version in (7, 8):
        assert all_offsets("root", version) == (0, [world.topic])
        assert all_offsets(name, version) == (0, [])


def metadata(
    broker: AclBroker, who: str, version: int, topics: list[str], with_ops: bool = True
) -> dict[str, Any]:
    return send(
        broker,
        who,
        METADATA,
        version,
        {
            "topics": [{"name": t} for t in topics],
            "allow_auto_topic_creation": False,
            "include_cluster_authorized_operations": with_ops,
            "include_topic_authorized_operations": with_ops,
        },
    )


def topic_operations(answer: dict[str, Any]) -> dict[str, tuple[int, int]]:
    return {
        t["name"]: (t["error_code"], t["topic_authorized_operations"]) for t in answer["topics"]
    }


def cluster_operations(broker: AclBroker, who: str, version: int, with_ops: bool = True) -> int:
    body = {"include_cluster_authorized_operations": with_ops, "endpoint_type": 1}
    answer = send(broker, who, DESCRIBE_CLUSTER, version, body)
    assert answer["error_code"] == 0
    return int(answer["cluster_authorized_operations"])


def test_authorized_operations_are_kafkas_bit_fields(secured: AclBroker) -> None:
    tag = uuid.uuid4().hex[:8]
    plain, prefix, denied = f"plain-{tag}", f"pre-{tag}-", f"deny-{tag}"
    prefixed = f"{prefix}x"
    for topic in (plain, prefixed, denied):
        secured.admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(20)
    name = f"ops-{tag}"
    secured.allow(name, TOPIC, plain, Op.READ, Op.ALTER_CONFIGS)
    secured.allow(name, TOPIC, prefix, Op.WRITE, pattern=ResourcePatternType.PREFIXED)
    secured.allow(name, TOPIC, denied, Op.ALL)
    secured.deny(name, TOPIC, denied, Op.DELETE)
    secured.allow(name, CLUSTER, CLUSTER_NAME, Op.DESCRIBE, Op.IDEMPOTENT_WRITE)
    topics = [plain, prefixed, denied]
    expected = {
        # READ implies DESCRIBE, ALTER_CONFIGS implies DESCRIBE_CONFIGS.
        plain: (0, bits(Op.READ, Op.DESCRIBE, Op.ALTER_CONFIGS, Op.DESCRIBE_CONFIGS)),
        prefixed: (0, bits(Op.WRITE, Op.DESCRIBE)),
        # ALL, less what is denied.
        denied: (0, bits(*TOPIC_OPERATIONS) - bits(Op.DELETE)),
    }
    cluster = bits(Op.DESCRIBE, Op.IDEMPOTENT_WRITE)
    for version in range(8, 13):
        answer = metadata(secured, name, version, topics)
        assert topic_operations(answer) == expected, version
        if version <= 10:
            assert answer["cluster_authorized_operations"] == cluster, version
    for version in (0, 1):
        assert cluster_operations(secured, name, version) == cluster
        assert cluster_operations(secured, name, version, with_ops=False) == NOT_REQUESTED
    # Not asked for: the schema's default.
    answer = metadata(secured, name, 8, topics, with_ops=False)
    assert topic_operations(answer) == {t: (0, NOT_REQUESTED) for t in topics}
    assert answer["cluster_authorized_operations"] == NOT_REQUESTED

    # A super user: every operation that applies.
    answer = metadata(secured, "root", 10, topics)
    assert topic_operations(answer) == {t: (0, bits(*TOPIC_OPERATIONS)) for t in topics}
    assert answer["cluster_authorized_operations"] == bits(*CLUSTER_OPERATIONS)
    assert cluster_operations(secured, "root", 1) == bits(*CLUSTER_OPERATIONS)

    # Without DESCRIBE on the cluster, 0, whatever else is allowed on it (ALTER_CONFIGS
    # implies DESCRIBE_CONFIGS, not DESCRIBE).
    other = f"nodesc-{tag}"
    secured.allow(other, CLUSTER, CLUSTER_NAME, Op.IDEMPOTENT_WRITE, Op.ALTER_CONFIGS)
    secured.allow(other, TOPIC, plain, Op.WRITE)
    answer = metadata(secured, other, 9, [plain])
    assert topic_operations(answer) == {plain: (0, bits(Op.WRITE, Op.DESCRIBE))}
    assert answer["cluster_authorized_operations"] == 0
    assert cluster_operations(secured, other, 0) == 0
    assert cluster_operations(secured, "nobody", 0) == 0


def test_authorized_operations_of_a_topic_that_does_not_exist(secured: AclBroker) -> None:
    """Kafka fills in the operations of every topic it answers for past the DESCRIBE check
    (`setTopicAuthorizedOperations` over getTopicMetadata's answers), one that does not
    exist (UNKNOWN_TOPIC_OR_PARTITION) too; a topic refused for DESCRIBE keeps the default."""
    tag = uuid.uuid4().hex[:8]
    name, prefix = f"ghost-{tag}", f"ghost-{tag}-"
    secured.allow(name, TOPIC, prefix, Op.WRITE, pattern=ResourcePatternType.PREFIXED)
    missing, hidden = f"{prefix}missing", f"other-{tag}"
    answer = metadata(secured, name, 8, [missing, hidden])
    assert topic_operations(answer) == {
        missing: (errors.UnknownTopicOrPartitionError.code, bits(Op.WRITE, Op.DESCRIBE)),
        hidden: (TOPIC_REFUSED, NOT_REQUESTED),
    }


def test_share_coordinators_are_found_by_brokers_only(secured: AclBroker) -> None:
    """FindCoordinator v6's key type 2 (share coordinators, KIP-932) needs CLUSTER_ACTION, else
    every key is refused; with it, a well-formed key (group:topicId:partition) finds its share
    coordinator, a malformed one is INVALID_REQUEST. The share-state APIs brokers send need it
    too, partition by partition."""
    who = f"peer-{uuid.uuid4().hex[:8]}"
    body = {"key_type": 2, "coordinator_keys": ["g:AAAAAAAAAAAAAAAAAAAAAA:0", "h:x:1"]}

    def codes() -> list[int]:
        answer = send(secured, who, FIND_COORDINATOR, 6, body)
        return [c["error_code"] for c in answer["coordinators"]]

    initialize = {
        "group_id": "g",
        "topics": [
            {
                "topic_id": bytes(range(16)),
                "partitions": [{"partition": 0, "state_epoch": 0, "start_offset": -1}],
            }
        ],
    }
    (result,) = send(secured, who, INITIALIZE_SHARE_GROUP_STATE, 0, initialize)["results"]
    assert [p["error_code"] for p in result["partitions"]] == [CLUSTER_REFUSED]
    assert codes() == [CLUSTER_REFUSED] * 2
    secured.allow(who, CLUSTER, CLUSTER_NAME, Op.CLUSTER_ACTION)
    # The first share key creates __share_group_state: COORDINATOR_NOT_AVAILABLE meanwhile.
    found = wait_until(
        lambda: (c := codes())[0] != errors.CoordinatorNotAvailableError.code and c,
        what="the share coordinator",
    )
    assert found == [0, errors.InvalidRequestError.code]

    def initialized() -> list[int]:
        (result,) = send(secured, who, INITIALIZE_SHARE_GROUP_STATE, 0, initialize)["results"]
        return [p["error_code"] for p in result["partitions"]]

    # Found is not loaded yet: the new partition's coordinator may still be loading it.
    loading = [errors.CoordinatorLoadInProgressError.code]
    answered = wait_until(lambda: (c := initialized()) != loading and c, what="loaded")
    assert answered == [errors.UnknownTopicOrPartitionError.code]


def test_markers_are_written_by_brokers_only(secured: AclBroker) -> None:
    """WriteTxnMarkers (served by the native core) needs CLUSTER_ACTION, else every partition
    is refused; with it, each partition answers for itself (here: none exists)."""
    who = f"peer-{uuid.uuid4().hex[:8]}"
    marker = {
        "producer_id": 7,
        "producer_epoch": 0,
        "transaction_result": True,
        "topics": [{"name": f"none-{who}", "partition_indexes": [0, 1]}],
        "coordinator_epoch": 0,
        "transaction_version": 2,
    }

    def codes(version: int) -> list[int]:
        answer = send(secured, who, WRITE_TXN_MARKERS, version, {"markers": [marker]})
        (m,) = answer["markers"]
        assert m["producer_id"] == 7
        return [p["error_code"] for t in m["topics"] for p in t["partitions"]]

    assert codes(1) == codes(2) == [CLUSTER_REFUSED] * 2
    secured.allow(who, CLUSTER, CLUSTER_NAME, Op.CLUSTER_ACTION)
    unknown = errors.UnknownTopicOrPartitionError.code
    assert codes(1) == codes(2) == [unknown] * 2
