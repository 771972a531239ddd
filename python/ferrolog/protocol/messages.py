# generated - do not edit; regenerate with `python -m ferrolog.protocol.generate`
# content sha256: 976af8169d42dfdad8d221d146525c2cb6a28729ca3c54bd1a6fcc5c77f44e22
# schemas sha256: 8205adbf27f4395dce11e021b6ed8f1ea24903d1c739f08023b90988b5aaa6e1
# from Kafka's message schemas (messages/*.json, internal/*/*.json).
"""Typed bodies of every request, response and data schema, for mypy: the dicts the
codec takes and returns, one TypedDict per message (all its versions) and per nested
struct. A NotRequired field exists only in the versions its comment gives (or is
tagged); the encoder refuses keys that are not fields of the message. How the types
are derived: ferrolog/protocol/generate_messages.py. `ApiKey` names every API's key
as Kafka names the API (ProduceRequest: PRODUCE), for code that names one; `Apis`
types each key with its request and response bodies, for the clients that send them."""

from enum import IntEnum
from typing import Generic, NotRequired, TypedDict, TypeVar


class ApiKey(IntEnum):
    PRODUCE = 0
    FETCH = 1
    LIST_OFFSETS = 2
    METADATA = 3
    OFFSET_COMMIT = 8
    OFFSET_FETCH = 9
    FIND_COORDINATOR = 10
    JOIN_GROUP = 11
    HEARTBEAT = 12
    LEAVE_GROUP = 13
    SYNC_GROUP = 14
    DESCRIBE_GROUPS = 15
    LIST_GROUPS = 16
    SASL_HANDSHAKE = 17
    API_VERSIONS = 18
    CREATE_TOPICS = 19
    DELETE_TOPICS = 20
    DELETE_RECORDS = 21
    INIT_PRODUCER_ID = 22
    OFFSET_FOR_LEADER_EPOCH = 23
    ADD_PARTITIONS_TO_TXN = 24
    ADD_OFFSETS_TO_TXN = 25
    END_TXN = 26
    WRITE_TXN_MARKERS = 27
    TXN_OFFSET_COMMIT = 28
    DESCRIBE_ACLS = 29
    CREATE_ACLS = 30
    DELETE_ACLS = 31
    DESCRIBE_CONFIGS = 32
    ALTER_CONFIGS = 33
    ALTER_REPLICA_LOG_DIRS = 34
    DESCRIBE_LOG_DIRS = 35
    SASL_AUTHENTICATE = 36
    CREATE_PARTITIONS = 37
    CREATE_DELEGATION_TOKEN = 38
    RENEW_DELEGATION_TOKEN = 39
    EXPIRE_DELEGATION_TOKEN = 40
    DESCRIBE_DELEGATION_TOKEN = 41
    DELETE_GROUPS = 42
    ELECT_LEADERS = 43
    INCREMENTAL_ALTER_CONFIGS = 44
    ALTER_PARTITION_REASSIGNMENTS = 45
    LIST_PARTITION_REASSIGNMENTS = 46
    OFFSET_DELETE = 47
    DESCRIBE_CLIENT_QUOTAS = 48
    ALTER_CLIENT_QUOTAS = 49
    DESCRIBE_USER_SCRAM_CREDENTIALS = 50
    ALTER_USER_SCRAM_CREDENTIALS = 51
    VOTE = 52
    BEGIN_QUORUM_EPOCH = 53
    END_QUORUM_EPOCH = 54
    DESCRIBE_QUORUM = 55
    ALTER_PARTITION = 56
    UPDATE_FEATURES = 57
    ENVELOPE = 58
    FETCH_SNAPSHOT = 59
    DESCRIBE_CLUSTER = 60
    DESCRIBE_PRODUCERS = 61
    BROKER_REGISTRATION = 62
    BROKER_HEARTBEAT = 63
    UNREGISTER_BROKER = 64
    DESCRIBE_TRANSACTIONS = 65
    LIST_TRANSACTIONS = 66
    ALLOCATE_PRODUCER_IDS = 67
    CONSUMER_GROUP_HEARTBEAT = 68
    CONSUMER_GROUP_DESCRIBE = 69
    CONTROLLER_REGISTRATION = 70
    GET_TELEMETRY_SUBSCRIPTIONS = 71
    PUSH_TELEMETRY = 72
    ASSIGN_REPLICAS_TO_DIRS = 73
    LIST_CONFIG_RESOURCES = 74
    DESCRIBE_TOPIC_PARTITIONS = 75
    SHARE_GROUP_HEARTBEAT = 76
    SHARE_GROUP_DESCRIBE = 77
    SHARE_FETCH = 78
    SHARE_ACKNOWLEDGE = 79
    ADD_RAFT_VOTER = 80
    REMOVE_RAFT_VOTER = 81
    UPDATE_RAFT_VOTER = 82
    INITIALIZE_SHARE_GROUP_STATE = 83
    READ_SHARE_GROUP_STATE = 84
    WRITE_SHARE_GROUP_STATE = 85
    DELETE_SHARE_GROUP_STATE = 86
    READ_SHARE_GROUP_STATE_SUMMARY = 87
    STREAMS_GROUP_HEARTBEAT = 88
    STREAMS_GROUP_DESCRIBE = 89
    DESCRIBE_SHARE_GROUP_OFFSETS = 90
    ALTER_SHARE_GROUP_OFFSETS = 91
    DELETE_SHARE_GROUP_OFFSETS = 92
    STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE = 93
    UNREGISTER_CONTROLLER = 94


class ProduceRequestPartitionProduceData(TypedDict):
    index: int
    records: bytes | None


class ProduceRequestTopicProduceData(TypedDict):
    name: NotRequired[str]  # v0-12
    topic_id: NotRequired[bytes]  # v13+
    partition_data: list[ProduceRequestPartitionProduceData]


# api key 0, v3-13
class ProduceRequest(TypedDict):
    transactional_id: str | None
    acks: int
    timeout_ms: int
    topic_data: list[ProduceRequestTopicProduceData]


class ProduceResponseBatchIndexAndErrorMessage(TypedDict):
    batch_index: int
    batch_index_error_message: str | None


class ProduceResponseLeaderIdAndEpoch(TypedDict):
    leader_id: int
    leader_epoch: int


class ProduceResponsePartitionProduceResponse(TypedDict):
    index: int
    error_code: int
    base_offset: int
    log_append_time_ms: int
    log_start_offset: NotRequired[int]  # v5+
    record_errors: NotRequired[list[ProduceResponseBatchIndexAndErrorMessage]]  # v8+
    error_message: NotRequired[str | None]  # v8+
    current_leader: NotRequired[ProduceResponseLeaderIdAndEpoch]  # tagged, v10+


class ProduceResponseTopicProduceResponse(TypedDict):
    name: NotRequired[str]  # v0-12
    topic_id: NotRequired[bytes]  # v13+
    partition_responses: list[ProduceResponsePartitionProduceResponse]


class ProduceResponseNodeEndpoint(TypedDict):
    node_id: int
    host: str
    port: int
    rack: str | None


# api key 0, v3-13
class ProduceResponse(TypedDict):
    responses: list[ProduceResponseTopicProduceResponse]
    throttle_time_ms: int
    node_endpoints: NotRequired[list[ProduceResponseNodeEndpoint]]  # tagged, v10+


class FetchRequestReplicaState(TypedDict):
    replica_id: int
    replica_epoch: int


class FetchRequestFetchPartition(TypedDict):
    partition: int
    current_leader_epoch: NotRequired[int]  # v9+
    fetch_offset: int
    last_fetched_epoch: NotRequired[int]  # v12+
    log_start_offset: NotRequired[int]  # v5+
    partition_max_bytes: int
    replica_directory_id: NotRequired[bytes]  # tagged, v17+
    high_watermark: NotRequired[int]  # tagged, v18+


class FetchRequestFetchTopic(TypedDict):
    topic: NotRequired[str]  # v0-12
    topic_id: NotRequired[bytes]  # v13+
    partitions: list[FetchRequestFetchPartition]


class FetchRequestForgottenTopic(TypedDict):
    topic: NotRequired[str]  # v7-12
    topic_id: NotRequired[bytes]  # v13+
    partitions: list[int]


# api key 1, v4-18
class FetchRequest(TypedDict):
    cluster_id: NotRequired[str | None]  # tagged, v12+
    replica_id: NotRequired[int]  # v0-14
    replica_state: NotRequired[FetchRequestReplicaState]  # tagged, v15+
    max_wait_ms: int
    min_bytes: int
    max_bytes: int
    isolation_level: int
    session_id: NotRequired[int]  # v7+
    session_epoch: NotRequired[int]  # v7+
    topics: list[FetchRequestFetchTopic]
    forgotten_topics_data: NotRequired[list[FetchRequestForgottenTopic]]  # v7+
    rack_id: NotRequired[str]  # v11+


class FetchResponseEpochEndOffset(TypedDict):
    epoch: int
    end_offset: int


class FetchResponseLeaderIdAndEpoch(TypedDict):
    leader_id: int
    leader_epoch: int


class FetchResponseSnapshotId(TypedDict):
    end_offset: int
    epoch: int


class FetchResponseAbortedTransaction(TypedDict):
    producer_id: int
    first_offset: int


class FetchResponsePartitionData(TypedDict):
    partition_index: int
    error_code: int
    high_watermark: int
    last_stable_offset: int
    log_start_offset: NotRequired[int]  # v5+
    diverging_epoch: NotRequired[FetchResponseEpochEndOffset]  # tagged, v12+
    current_leader: NotRequired[FetchResponseLeaderIdAndEpoch]  # tagged, v12+
    snapshot_id: NotRequired[FetchResponseSnapshotId]  # tagged, v12+
    aborted_transactions: list[FetchResponseAbortedTransaction] | None
    preferred_read_replica: NotRequired[int]  # v11+
    records: bytes | None


class FetchResponseFetchableTopicResponse(TypedDict):
    topic: NotRequired[str]  # v0-12
    topic_id: NotRequired[bytes]  # v13+
    partitions: list[FetchResponsePartitionData]


class FetchResponseNodeEndpoint(TypedDict):
    node_id: int
    host: str
    port: int
    rack: str | None


# api key 1, v4-18
class FetchResponse(TypedDict):
    throttle_time_ms: int
    error_code: NotRequired[int]  # v7+
    session_id: NotRequired[int]  # v7+
    responses: list[FetchResponseFetchableTopicResponse]
    node_endpoints: NotRequired[list[FetchResponseNodeEndpoint]]  # tagged, v16+


class ListOffsetsRequestListOffsetsPartition(TypedDict):
    partition_index: int
    current_leader_epoch: NotRequired[int]  # v4+
    timestamp: int


class ListOffsetsRequestListOffsetsTopic(TypedDict):
    name: str
    partitions: list[ListOffsetsRequestListOffsetsPartition]


# api key 2, v1-11
class ListOffsetsRequest(TypedDict):
    replica_id: int
    isolation_level: NotRequired[int]  # v2+
    topics: list[ListOffsetsRequestListOffsetsTopic]
    timeout_ms: NotRequired[int]  # v10+


class ListOffsetsResponseListOffsetsPartitionResponse(TypedDict):
    partition_index: int
    error_code: int
    timestamp: int
    offset: int
    leader_epoch: NotRequired[int]  # v4+


class ListOffsetsResponseListOffsetsTopicResponse(TypedDict):
    name: str
    partitions: list[ListOffsetsResponseListOffsetsPartitionResponse]


# api key 2, v1-11
class ListOffsetsResponse(TypedDict):
    throttle_time_ms: NotRequired[int]  # v2+
    topics: list[ListOffsetsResponseListOffsetsTopicResponse]


class MetadataRequestTopic(TypedDict):
    topic_id: NotRequired[bytes]  # v10+
    name: str | None


# api key 3, v0-13
class MetadataRequest(TypedDict):
    topics: list[MetadataRequestTopic] | None
    allow_auto_topic_creation: NotRequired[bool]  # v4+
    include_cluster_authorized_operations: NotRequired[bool]  # v8-10
    include_topic_authorized_operations: NotRequired[bool]  # v8+


class MetadataResponseBroker(TypedDict):
    node_id: int
    host: str
    port: int
    rack: NotRequired[str | None]  # v1+


class MetadataResponsePartition(TypedDict):
    error_code: int
    partition_index: int
    leader_id: int
    leader_epoch: NotRequired[int]  # v7+
    replica_nodes: list[int]
    isr_nodes: list[int]
    offline_replicas: NotRequired[list[int]]  # v5+


class MetadataResponseTopic(TypedDict):
    error_code: int
    name: str | None
    topic_id: NotRequired[bytes]  # v10+
    is_internal: NotRequired[bool]  # v1+
    partitions: list[MetadataResponsePartition]
    topic_authorized_operations: NotRequired[int]  # v8+


# api key 3, v0-13
class MetadataResponse(TypedDict):
    throttle_time_ms: NotRequired[int]  # v3+
    brokers: list[MetadataResponseBroker]
    cluster_id: NotRequired[str | None]  # v2+
    controller_id: NotRequired[int]  # v1+
    topics: list[MetadataResponseTopic]
    cluster_authorized_operations: NotRequired[int]  # v8-10
    error_code: NotRequired[int]  # v13+


class OffsetCommitRequestPartition(TypedDict):
    partition_index: int
    committed_offset: int
    committed_leader_epoch: NotRequired[int]  # v6+
    committed_metadata: str | None


class OffsetCommitRequestTopic(TypedDict):
    name: NotRequired[str]  # v0-9
    topic_id: NotRequired[bytes]  # v10+
    partitions: list[OffsetCommitRequestPartition]


# api key 8, v2-10
class OffsetCommitRequest(TypedDict):
    group_id: str
    generation_id_or_member_epoch: int
    member_id: str
    group_instance_id: NotRequired[str | None]  # v7+
    retention_time_ms: NotRequired[int]  # v2-4
    topics: list[OffsetCommitRequestTopic]


class OffsetCommitResponsePartition(TypedDict):
    partition_index: int
    error_code: int


class OffsetCommitResponseTopic(TypedDict):
    name: NotRequired[str]  # v0-9
    topic_id: NotRequired[bytes]  # v10+
    partitions: list[OffsetCommitResponsePartition]


# api key 8, v2-10
class OffsetCommitResponse(TypedDict):
    throttle_time_ms: NotRequired[int]  # v3+
    topics: list[OffsetCommitResponseTopic]


class OffsetFetchRequestTopic(TypedDict):
    name: str
    partition_indexes: list[int]


class OffsetFetchRequestTopics(TypedDict):
    name: NotRequired[str]  # v8-9
    topic_id: NotRequired[bytes]  # v10+
    partition_indexes: list[int]


class OffsetFetchRequestGroup(TypedDict):
    group_id: str
    member_id: NotRequired[str | None]  # v9+
    member_epoch: NotRequired[int]  # v9+
    topics: list[OffsetFetchRequestTopics] | None


# api key 9, v1-10
class OffsetFetchRequest(TypedDict):
    group_id: NotRequired[str]  # v0-7
    topics: NotRequired[list[OffsetFetchRequestTopic] | None]  # v0-7
    groups: NotRequired[list[OffsetFetchRequestGroup]]  # v8+
    require_stable: NotRequired[bool]  # v7+


class OffsetFetchResponsePartition(TypedDict):
    partition_index: int
    committed_offset: int
    committed_leader_epoch: NotRequired[int]  # v5-7
    metadata: str | None
    error_code: int


class OffsetFetchResponseTopic(TypedDict):
    name: str
    partitions: list[OffsetFetchResponsePartition]


class OffsetFetchResponsePartitions(TypedDict):
    partition_index: int
    committed_offset: int
    committed_leader_epoch: int
    metadata: str | None
    error_code: int


class OffsetFetchResponseTopics(TypedDict):
    name: NotRequired[str]  # v8-9
    topic_id: NotRequired[bytes]  # v10+
    partitions: list[OffsetFetchResponsePartitions]


class OffsetFetchResponseGroup(TypedDict):
    group_id: str
    topics: list[OffsetFetchResponseTopics]
    error_code: int


# api key 9, v1-10
class OffsetFetchResponse(TypedDict):
    throttle_time_ms: NotRequired[int]  # v3+
    topics: NotRequired[list[OffsetFetchResponseTopic]]  # v0-7
    error_code: NotRequired[int]  # v2-7
    groups: NotRequired[list[OffsetFetchResponseGroup]]  # v8+


# api key 10, v0-6
class FindCoordinatorRequest(TypedDict):
    key: NotRequired[str]  # v0-3
    key_type: NotRequired[int]  # v1+
    coordinator_keys: NotRequired[list[str]]  # v4+


class FindCoordinatorResponseCoordinator(TypedDict):
    key: str
    node_id: int
    host: str
    port: int
    error_code: int
    error_message: str | None


# api key 10, v0-6
class FindCoordinatorResponse(TypedDict):
    throttle_time_ms: NotRequired[int]  # v1+
    error_code: NotRequired[int]  # v0-3
    error_message: NotRequired[str | None]  # v1-3
    node_id: NotRequired[int]  # v0-3
    host: NotRequired[str]  # v0-3
    port: NotRequired[int]  # v0-3
    coordinators: NotRequired[list[FindCoordinatorResponseCoordinator]]  # v4+


class JoinGroupRequestProtocol(TypedDict):
    name: str
    metadata: bytes


# api key 11, v0-9
class JoinGroupRequest(TypedDict):
    group_id: str
    session_timeout_ms: int
    rebalance_timeout_ms: NotRequired[int]  # v1+
    member_id: str
    group_instance_id: NotRequired[str | None]  # v5+
    protocol_type: str
    protocols: list[JoinGroupRequestProtocol]
    reason: NotRequired[str | None]  # v8+


class JoinGroupResponseMember(TypedDict):
    member_id: str
    group_instance_id: NotRequired[str | None]  # v5+
    metadata: bytes


# api key 11, v0-9
class JoinGroupResponse(TypedDict):
    throttle_time_ms: NotRequired[int]  # v2+
    error_code: int
    generation_id: int
    protocol_type: NotRequired[str | None]  # v7+
    protocol_name: str | None
    leader: str
    skip_assignment: NotRequired[bool]  # v9+
    member_id: str
    members: list[JoinGroupResponseMember]


# api key 12, v0-4
class HeartbeatRequest(TypedDict):
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: NotRequired[str | None]  # v3+


# api key 12, v0-4
class HeartbeatResponse(TypedDict):
    throttle_time_ms: NotRequired[int]  # v1+
    error_code: int


class LeaveGroupRequestMemberIdentity(TypedDict):
    member_id: str
    group_instance_id: str | None
    reason: NotRequired[str | None]  # v5+


# api key 13, v0-5
class LeaveGroupRequest(TypedDict):
    group_id: str
    member_id: NotRequired[str]  # v0-2
    members: NotRequired[list[LeaveGroupRequestMemberIdentity]]  # v3+


class LeaveGroupResponseMemberResponse(TypedDict):
    member_id: str
    group_instance_id: str | None
    error_code: int


# api key 13, v0-5
class LeaveGroupResponse(TypedDict):
    throttle_time_ms: NotRequired[int]  # v1+
    error_code: int
    members: NotRequired[list[LeaveGroupResponseMemberResponse]]  # v3+


class SyncGroupRequestAssignment(TypedDict):
    member_id: str
    assignment: bytes


# api key 14, v0-5
class SyncGroupRequest(TypedDict):
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: NotRequired[str | None]  # v3+
    protocol_type: NotRequired[str | None]  # v5+
    protocol_name: NotRequired[str | None]  # v5+
    assignments: list[SyncGroupRequestAssignment]


# api key 14, v0-5
class SyncGroupResponse(TypedDict):
    throttle_time_ms: NotRequired[int]  # v1+
    error_code: int
    protocol_type: NotRequired[str | None]  # v5+
    protocol_name: NotRequired[str | None]  # v5+
    assignment: bytes


# api key 15, v0-6
class DescribeGroupsRequest(TypedDict):
    groups: list[str]
    include_authorized_operations: NotRequired[bool]  # v3+


class DescribeGroupsResponseDescribedGroupMember(TypedDict):
    member_id: str
    group_instance_id: NotRequired[str | None]  # v4+
    client_id: str
    client_host: str
    member_metadata: bytes
    member_assignment: bytes


class DescribeGroupsResponseDescribedGroup(TypedDict):
    error_code: int
    error_message: NotRequired[str | None]  # v6+
    group_id: str
    group_state: str
    protocol_type: str
    protocol_data: str
    members: list[DescribeGroupsResponseDescribedGroupMember]
    authorized_operations: NotRequired[int]  # v3+


# api key 15, v0-6
class DescribeGroupsResponse(TypedDict):
    throttle_time_ms: NotRequired[int]  # v1+
    groups: list[DescribeGroupsResponseDescribedGroup]


# api key 16, v0-5
class ListGroupsRequest(TypedDict):
    states_filter: NotRequired[list[str]]  # v4+
    types_filter: NotRequired[list[str]]  # v5+


class ListGroupsResponseListedGroup(TypedDict):
    group_id: str
    protocol_type: str
    group_state: NotRequired[str]  # v4+
    group_type: NotRequired[str]  # v5+


# api key 16, v0-5
class ListGroupsResponse(TypedDict):
    throttle_time_ms: NotRequired[int]  # v1+
    error_code: int
    groups: list[ListGroupsResponseListedGroup]


# api key 17, v0-1
class SaslHandshakeRequest(TypedDict):
    mechanism: str


# api key 17, v0-1
class SaslHandshakeResponse(TypedDict):
    error_code: int
    mechanisms: list[str]


# api key 18, v0-5
class ApiVersionsRequest(TypedDict):
    client_software_name: NotRequired[str]  # v3+
    client_software_version: NotRequired[str]  # v3+
    cluster_id: NotRequired[str | None]  # v5+
    node_id: NotRequired[int]  # v5+


class ApiVersionsResponseApiVersion(TypedDict):
    api_key: int
    min_version: int
    max_version: int


class ApiVersionsResponseSupportedFeatureKey(TypedDict):
    name: str
    min_version: int
    max_version: int


class ApiVersionsResponseFinalizedFeatureKey(TypedDict):
    name: str
    max_version_level: int
    min_version_level: int


# api key 18, v0-5
class ApiVersionsResponse(TypedDict):
    error_code: int
    api_keys: list[ApiVersionsResponseApiVersion]
    throttle_time_ms: NotRequired[int]  # v1+
    supported_features: NotRequired[list[ApiVersionsResponseSupportedFeatureKey]]  # tagged, v3+
    finalized_features_epoch: NotRequired[int]  # tagged, v3+
    finalized_features: NotRequired[list[ApiVersionsResponseFinalizedFeatureKey]]  # tagged, v3+
    zk_migration_ready: NotRequired[bool]  # tagged, v3+


class CreateTopicsRequestCreatableReplicaAssignment(TypedDict):
    partition_index: int
    broker_ids: list[int]


class CreateTopicsRequestCreatableTopicConfig(TypedDict):
    name: str
    value: str | None


class CreateTopicsRequestCreatableTopic(TypedDict):
    name: str
    num_partitions: int
    replication_factor: int
    assignments: list[CreateTopicsRequestCreatableReplicaAssignment]
    configs: list[CreateTopicsRequestCreatableTopicConfig]


# api key 19, v2-7
class CreateTopicsRequest(TypedDict):
    topics: list[CreateTopicsRequestCreatableTopic]
    timeout_ms: int
    validate_only: bool


class CreateTopicsResponseCreatableTopicConfigs(TypedDict):
    name: str
    value: str | None
    read_only: bool
    config_source: int
    is_sensitive: bool


class CreateTopicsResponseCreatableTopicResult(TypedDict):
    name: str
    topic_id: NotRequired[bytes]  # v7+
    error_code: int
    error_message: str | None
    topic_config_error_code: NotRequired[int]  # tagged, v5+
    num_partitions: NotRequired[int]  # v5+
    replication_factor: NotRequired[int]  # v5+
    configs: NotRequired[list[CreateTopicsResponseCreatableTopicConfigs] | None]  # v5+


# api key 19, v2-7
class CreateTopicsResponse(TypedDict):
    throttle_time_ms: int
    topics: list[CreateTopicsResponseCreatableTopicResult]


class DeleteTopicsRequestDeleteTopicState(TypedDict):
    name: str | None
    topic_id: bytes


# api key 20, v1-6
class DeleteTopicsRequest(TypedDict):
    topics: NotRequired[list[DeleteTopicsRequestDeleteTopicState]]  # v6+
    topic_names: NotRequired[list[str]]  # v0-5
    timeout_ms: int


class DeleteTopicsResponseDeletableTopicResult(TypedDict):
    name: str | None
    topic_id: NotRequired[bytes]  # v6+
    error_code: int
    error_message: NotRequired[str | None]  # v5+


# api key 20, v1-6
class DeleteTopicsResponse(TypedDict):
    throttle_time_ms: int
    responses: list[DeleteTopicsResponseDeletableTopicResult]


class DeleteRecordsRequestDeleteRecordsPartition(TypedDict):
    partition_index: int
    offset: int


class DeleteRecordsRequestDeleteRecordsTopic(TypedDict):
    name: str
    partitions: list[DeleteRecordsRequestDeleteRecordsPartition]


# api key 21, v0-2
class DeleteRecordsRequest(TypedDict):
    topics: list[DeleteRecordsRequestDeleteRecordsTopic]
    timeout_ms: int


class DeleteRecordsResponseDeleteRecordsPartitionResult(TypedDict):
    partition_index: int
    low_watermark: int
    error_code: int


class DeleteRecordsResponseDeleteRecordsTopicResult(TypedDict):
    name: str
    partitions: list[DeleteRecordsResponseDeleteRecordsPartitionResult]


# api key 21, v0-2
class DeleteRecordsResponse(TypedDict):
    throttle_time_ms: int
    topics: list[DeleteRecordsResponseDeleteRecordsTopicResult]


# api key 22, v0-6
class InitProducerIdRequest(TypedDict):
    transactional_id: str | None
    transaction_timeout_ms: int
    producer_id: NotRequired[int]  # v3+
    producer_epoch: NotRequired[int]  # v3+
    enable2_pc: NotRequired[bool]  # v6+
    keep_prepared_txn: NotRequired[bool]  # v6+


# api key 22, v0-6
class InitProducerIdResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    producer_id: int
    producer_epoch: int
    ongoing_txn_producer_id: NotRequired[int]  # v6+
    ongoing_txn_producer_epoch: NotRequired[int]  # v6+


class OffsetForLeaderEpochRequestOffsetForLeaderPartition(TypedDict):
    partition: int
    current_leader_epoch: int
    leader_epoch: int


class OffsetForLeaderEpochRequestOffsetForLeaderTopic(TypedDict):
    topic: str
    partitions: list[OffsetForLeaderEpochRequestOffsetForLeaderPartition]


# api key 23, v2-4
class OffsetForLeaderEpochRequest(TypedDict):
    replica_id: NotRequired[int]  # v3+
    topics: list[OffsetForLeaderEpochRequestOffsetForLeaderTopic]


class OffsetForLeaderEpochResponseEpochEndOffset(TypedDict):
    error_code: int
    partition: int
    leader_epoch: int
    end_offset: int


class OffsetForLeaderEpochResponseOffsetForLeaderTopicResult(TypedDict):
    topic: str
    partitions: list[OffsetForLeaderEpochResponseEpochEndOffset]


# api key 23, v2-4
class OffsetForLeaderEpochResponse(TypedDict):
    throttle_time_ms: int
    topics: list[OffsetForLeaderEpochResponseOffsetForLeaderTopicResult]


class AddPartitionsToTxnRequestAddPartitionsToTxnTopic(TypedDict):
    name: str
    partitions: list[int]


class AddPartitionsToTxnRequestAddPartitionsToTxnTransaction(TypedDict):
    transactional_id: str
    producer_id: int
    producer_epoch: int
    verify_only: bool
    topics: list[AddPartitionsToTxnRequestAddPartitionsToTxnTopic]


# api key 24, v0-5
class AddPartitionsToTxnRequest(TypedDict):
    transactions: NotRequired[list[AddPartitionsToTxnRequestAddPartitionsToTxnTransaction]]  # v4+
    v3_and_below_transactional_id: NotRequired[str]  # v0-3
    v3_and_below_producer_id: NotRequired[int]  # v0-3
    v3_and_below_producer_epoch: NotRequired[int]  # v0-3
    v3_and_below_topics: NotRequired[list[AddPartitionsToTxnRequestAddPartitionsToTxnTopic]]  # v0-3


class AddPartitionsToTxnResponseAddPartitionsToTxnPartitionResult(TypedDict):
    partition_index: int
    partition_error_code: int


class AddPartitionsToTxnResponseAddPartitionsToTxnTopicResult(TypedDict):
    name: str
    results_by_partition: list[AddPartitionsToTxnResponseAddPartitionsToTxnPartitionResult]


class AddPartitionsToTxnResponseAddPartitionsToTxnResult(TypedDict):
    transactional_id: str
    topic_results: list[AddPartitionsToTxnResponseAddPartitionsToTxnTopicResult]


# api key 24, v0-5
class AddPartitionsToTxnResponse(TypedDict):
    throttle_time_ms: int
    error_code: NotRequired[int]  # v4+
    results_by_transaction: NotRequired[
        list[AddPartitionsToTxnResponseAddPartitionsToTxnResult]
    ]  # v4+
    results_by_topic_v3_and_below: NotRequired[
        list[AddPartitionsToTxnResponseAddPartitionsToTxnTopicResult]
    ]  # v0-3


# api key 25, v0-4
class AddOffsetsToTxnRequest(TypedDict):
    transactional_id: str
    producer_id: int
    producer_epoch: int
    group_id: str


# api key 25, v0-4
class AddOffsetsToTxnResponse(TypedDict):
    throttle_time_ms: int
    error_code: int


# api key 26, v0-5
class EndTxnRequest(TypedDict):
    transactional_id: str
    producer_id: int
    producer_epoch: int
    committed: bool


# api key 26, v0-5
class EndTxnResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    producer_id: NotRequired[int]  # v5+
    producer_epoch: NotRequired[int]  # v5+


class WriteTxnMarkersRequestWritableTxnMarkerTopic(TypedDict):
    name: str
    partition_indexes: list[int]


class WriteTxnMarkersRequestWritableTxnMarker(TypedDict):
    producer_id: int
    producer_epoch: int
    transaction_result: bool
    topics: list[WriteTxnMarkersRequestWritableTxnMarkerTopic]
    coordinator_epoch: int
    transaction_version: NotRequired[int]  # v2+


# api key 27, v1-2
class WriteTxnMarkersRequest(TypedDict):
    markers: list[WriteTxnMarkersRequestWritableTxnMarker]


class WriteTxnMarkersResponseWritableTxnMarkerPartitionResult(TypedDict):
    partition_index: int
    error_code: int


class WriteTxnMarkersResponseWritableTxnMarkerTopicResult(TypedDict):
    name: str
    partitions: list[WriteTxnMarkersResponseWritableTxnMarkerPartitionResult]


class WriteTxnMarkersResponseWritableTxnMarkerResult(TypedDict):
    producer_id: int
    topics: list[WriteTxnMarkersResponseWritableTxnMarkerTopicResult]


# api key 27, v1-2
class WriteTxnMarkersResponse(TypedDict):
    markers: list[WriteTxnMarkersResponseWritableTxnMarkerResult]


class TxnOffsetCommitRequestPartition(TypedDict):
    partition_index: int
    committed_offset: int
    committed_leader_epoch: NotRequired[int]  # v2+
    committed_metadata: str | None


class TxnOffsetCommitRequestTopic(TypedDict):
    name: NotRequired[str]  # v0-5
    topic_id: NotRequired[bytes]  # v6+
    partitions: list[TxnOffsetCommitRequestPartition]


# api key 28, v0-6
class TxnOffsetCommitRequest(TypedDict):
    transactional_id: str
    group_id: str
    producer_id: int
    producer_epoch: int
    generation_id_or_member_epoch: NotRequired[int]  # v3+
    member_id: NotRequired[str]  # v3+
    group_instance_id: NotRequired[str | None]  # v3+
    topics: list[TxnOffsetCommitRequestTopic]


class TxnOffsetCommitResponsePartition(TypedDict):
    partition_index: int
    error_code: int


class TxnOffsetCommitResponseTopic(TypedDict):
    name: NotRequired[str]  # v0-5
    topic_id: NotRequired[bytes]  # v6+
    partitions: list[TxnOffsetCommitResponsePartition]


# api key 28, v0-6
class TxnOffsetCommitResponse(TypedDict):
    throttle_time_ms: int
    topics: list[TxnOffsetCommitResponseTopic]


# api key 29, v1-3
class DescribeAclsRequest(TypedDict):
    resource_type_filter: int
    resource_name_filter: str | None
    pattern_type_filter: int
    principal_filter: str | None
    host_filter: str | None
    operation: int
    permission_type: int


class DescribeAclsResponseAclDescription(TypedDict):
    principal: str
    host: str
    operation: int
    permission_type: int


class DescribeAclsResponseDescribeAclsResource(TypedDict):
    resource_type: int
    resource_name: str
    pattern_type: int
    acls: list[DescribeAclsResponseAclDescription]


# api key 29, v1-3
class DescribeAclsResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    resources: list[DescribeAclsResponseDescribeAclsResource]


class CreateAclsRequestAclCreation(TypedDict):
    resource_type: int
    resource_name: str
    resource_pattern_type: int
    principal: str
    host: str
    operation: int
    permission_type: int


# api key 30, v1-3
class CreateAclsRequest(TypedDict):
    creations: list[CreateAclsRequestAclCreation]


class CreateAclsResponseAclCreationResult(TypedDict):
    error_code: int
    error_message: str | None


# api key 30, v1-3
class CreateAclsResponse(TypedDict):
    throttle_time_ms: int
    results: list[CreateAclsResponseAclCreationResult]


class DeleteAclsRequestDeleteAclsFilter(TypedDict):
    resource_type_filter: int
    resource_name_filter: str | None
    pattern_type_filter: int
    principal_filter: str | None
    host_filter: str | None
    operation: int
    permission_type: int


# api key 31, v1-3
class DeleteAclsRequest(TypedDict):
    filters: list[DeleteAclsRequestDeleteAclsFilter]


class DeleteAclsResponseDeleteAclsMatchingAcl(TypedDict):
    error_code: int
    error_message: str | None
    resource_type: int
    resource_name: str
    pattern_type: int
    principal: str
    host: str
    operation: int
    permission_type: int


class DeleteAclsResponseDeleteAclsFilterResult(TypedDict):
    error_code: int
    error_message: str | None
    matching_acls: list[DeleteAclsResponseDeleteAclsMatchingAcl]


# api key 31, v1-3
class DeleteAclsResponse(TypedDict):
    throttle_time_ms: int
    filter_results: list[DeleteAclsResponseDeleteAclsFilterResult]


class DescribeConfigsRequestDescribeConfigsResource(TypedDict):
    resource_type: int
    resource_name: str
    configuration_keys: list[str] | None


# api key 32, v1-4
class DescribeConfigsRequest(TypedDict):
    resources: list[DescribeConfigsRequestDescribeConfigsResource]
    include_synonyms: bool
    include_documentation: NotRequired[bool]  # v3+


class DescribeConfigsResponseDescribeConfigsSynonym(TypedDict):
    name: str
    value: str | None
    source: int


class DescribeConfigsResponseDescribeConfigsResourceResult(TypedDict):
    name: str
    value: str | None
    read_only: bool
    config_source: int
    is_sensitive: bool
    synonyms: list[DescribeConfigsResponseDescribeConfigsSynonym]
    config_type: NotRequired[int]  # v3+
    documentation: NotRequired[str | None]  # v3+


class DescribeConfigsResponseDescribeConfigsResult(TypedDict):
    error_code: int
    error_message: str | None
    resource_type: int
    resource_name: str
    configs: list[DescribeConfigsResponseDescribeConfigsResourceResult]


# api key 32, v1-4
class DescribeConfigsResponse(TypedDict):
    throttle_time_ms: int
    results: list[DescribeConfigsResponseDescribeConfigsResult]


class AlterConfigsRequestAlterableConfig(TypedDict):
    name: str
    value: str | None


class AlterConfigsRequestAlterConfigsResource(TypedDict):
    resource_type: int
    resource_name: str
    configs: list[AlterConfigsRequestAlterableConfig]


# api key 33, v0-2
class AlterConfigsRequest(TypedDict):
    resources: list[AlterConfigsRequestAlterConfigsResource]
    validate_only: bool


class AlterConfigsResponseAlterConfigsResourceResponse(TypedDict):
    error_code: int
    error_message: str | None
    resource_type: int
    resource_name: str


# api key 33, v0-2
class AlterConfigsResponse(TypedDict):
    throttle_time_ms: int
    responses: list[AlterConfigsResponseAlterConfigsResourceResponse]


class AlterReplicaLogDirsRequestAlterReplicaLogDirTopic(TypedDict):
    name: str
    partitions: list[int]


class AlterReplicaLogDirsRequestAlterReplicaLogDir(TypedDict):
    path: str
    topics: list[AlterReplicaLogDirsRequestAlterReplicaLogDirTopic]


# api key 34, v1-2
class AlterReplicaLogDirsRequest(TypedDict):
    dirs: list[AlterReplicaLogDirsRequestAlterReplicaLogDir]


class AlterReplicaLogDirsResponseAlterReplicaLogDirPartitionResult(TypedDict):
    partition_index: int
    error_code: int


class AlterReplicaLogDirsResponseAlterReplicaLogDirTopicResult(TypedDict):
    topic_name: str
    partitions: list[AlterReplicaLogDirsResponseAlterReplicaLogDirPartitionResult]


# api key 34, v1-2
class AlterReplicaLogDirsResponse(TypedDict):
    throttle_time_ms: int
    results: list[AlterReplicaLogDirsResponseAlterReplicaLogDirTopicResult]


class DescribeLogDirsRequestDescribableLogDirTopic(TypedDict):
    topic: str
    partitions: list[int]


# api key 35, v1-5
class DescribeLogDirsRequest(TypedDict):
    topics: list[DescribeLogDirsRequestDescribableLogDirTopic] | None


class DescribeLogDirsResponseDescribeLogDirsPartition(TypedDict):
    partition_index: int
    partition_size: int
    offset_lag: int
    is_future_key: bool


class DescribeLogDirsResponseDescribeLogDirsTopic(TypedDict):
    name: str
    partitions: list[DescribeLogDirsResponseDescribeLogDirsPartition]


class DescribeLogDirsResponseDescribeLogDirsResult(TypedDict):
    error_code: int
    log_dir: str
    topics: list[DescribeLogDirsResponseDescribeLogDirsTopic]
    total_bytes: NotRequired[int]  # v4+
    usable_bytes: NotRequired[int]  # v4+
    is_cordoned: NotRequired[bool]  # v5+


# api key 35, v1-5
class DescribeLogDirsResponse(TypedDict):
    throttle_time_ms: int
    error_code: NotRequired[int]  # v3+
    results: list[DescribeLogDirsResponseDescribeLogDirsResult]


# api key 36, v0-2
class SaslAuthenticateRequest(TypedDict):
    auth_bytes: bytes


# api key 36, v0-2
class SaslAuthenticateResponse(TypedDict):
    error_code: int
    error_message: str | None
    auth_bytes: bytes
    session_lifetime_ms: NotRequired[int]  # v1+


class CreatePartitionsRequestCreatePartitionsAssignment(TypedDict):
    broker_ids: list[int]


class CreatePartitionsRequestCreatePartitionsTopic(TypedDict):
    name: str
    count: int
    assignments: list[CreatePartitionsRequestCreatePartitionsAssignment] | None


# api key 37, v0-3
class CreatePartitionsRequest(TypedDict):
    topics: list[CreatePartitionsRequestCreatePartitionsTopic]
    timeout_ms: int
    validate_only: bool


class CreatePartitionsResponseCreatePartitionsTopicResult(TypedDict):
    name: str
    error_code: int
    error_message: str | None


# api key 37, v0-3
class CreatePartitionsResponse(TypedDict):
    throttle_time_ms: int
    results: list[CreatePartitionsResponseCreatePartitionsTopicResult]


class CreateDelegationTokenRequestCreatableRenewers(TypedDict):
    principal_type: str
    principal_name: str


# api key 38, v1-3
class CreateDelegationTokenRequest(TypedDict):
    owner_principal_type: NotRequired[str | None]  # v3+
    owner_principal_name: NotRequired[str | None]  # v3+
    renewers: list[CreateDelegationTokenRequestCreatableRenewers]
    max_lifetime_ms: int


# api key 38, v1-3
class CreateDelegationTokenResponse(TypedDict):
    error_code: int
    principal_type: str
    principal_name: str
    token_requester_principal_type: NotRequired[str]  # v3+
    token_requester_principal_name: NotRequired[str]  # v3+
    issue_timestamp_ms: int
    expiry_timestamp_ms: int
    max_timestamp_ms: int
    token_id: str
    hmac: bytes
    throttle_time_ms: int


# api key 39, v1-2
class RenewDelegationTokenRequest(TypedDict):
    hmac: bytes
    renew_period_ms: int


# api key 39, v1-2
class RenewDelegationTokenResponse(TypedDict):
    error_code: int
    expiry_timestamp_ms: int
    throttle_time_ms: int


# api key 40, v1-2
class ExpireDelegationTokenRequest(TypedDict):
    hmac: bytes
    expiry_time_period_ms: int


# api key 40, v1-2
class ExpireDelegationTokenResponse(TypedDict):
    error_code: int
    expiry_timestamp_ms: int
    throttle_time_ms: int


class DescribeDelegationTokenRequestDescribeDelegationTokenOwner(TypedDict):
    principal_type: str
    principal_name: str


# api key 41, v1-3
class DescribeDelegationTokenRequest(TypedDict):
    owners: list[DescribeDelegationTokenRequestDescribeDelegationTokenOwner] | None


class DescribeDelegationTokenResponseDescribedDelegationTokenRenewer(TypedDict):
    principal_type: str
    principal_name: str


class DescribeDelegationTokenResponseDescribedDelegationToken(TypedDict):
    principal_type: str
    principal_name: str
    token_requester_principal_type: NotRequired[str]  # v3+
    token_requester_principal_name: NotRequired[str]  # v3+
    issue_timestamp: int
    expiry_timestamp: int
    max_timestamp: int
    token_id: str
    hmac: bytes
    renewers: list[DescribeDelegationTokenResponseDescribedDelegationTokenRenewer]


# api key 41, v1-3
class DescribeDelegationTokenResponse(TypedDict):
    error_code: int
    tokens: list[DescribeDelegationTokenResponseDescribedDelegationToken]
    throttle_time_ms: int


# api key 42, v0-3
class DeleteGroupsRequest(TypedDict):
    groups_names: list[str]


class DeleteGroupsResponseDeletableGroupResult(TypedDict):
    group_id: str
    error_code: int
    error_message: NotRequired[str | None]  # v3+


# api key 42, v0-3
class DeleteGroupsResponse(TypedDict):
    throttle_time_ms: int
    results: list[DeleteGroupsResponseDeletableGroupResult]


class ElectLeadersRequestTopicPartitions(TypedDict):
    topic: str
    partitions: list[int]


# api key 43, v0-2
class ElectLeadersRequest(TypedDict):
    election_type: NotRequired[int]  # v1+
    topic_partitions: list[ElectLeadersRequestTopicPartitions] | None
    timeout_ms: int


class ElectLeadersResponsePartitionResult(TypedDict):
    partition_id: int
    error_code: int
    error_message: str | None


class ElectLeadersResponseReplicaElectionResult(TypedDict):
    topic: str
    partition_result: list[ElectLeadersResponsePartitionResult]


# api key 43, v0-2
class ElectLeadersResponse(TypedDict):
    throttle_time_ms: int
    error_code: NotRequired[int]  # v1+
    replica_election_results: list[ElectLeadersResponseReplicaElectionResult]


class IncrementalAlterConfigsRequestAlterableConfig(TypedDict):
    name: str
    config_operation: int
    value: str | None


class IncrementalAlterConfigsRequestAlterConfigsResource(TypedDict):
    resource_type: int
    resource_name: str
    configs: list[IncrementalAlterConfigsRequestAlterableConfig]


# api key 44, v0-1
class IncrementalAlterConfigsRequest(TypedDict):
    resources: list[IncrementalAlterConfigsRequestAlterConfigsResource]
    validate_only: bool


class IncrementalAlterConfigsResponseAlterConfigsResourceResponse(TypedDict):
    error_code: int
    error_message: str | None
    resource_type: int
    resource_name: str


# api key 44, v0-1
class IncrementalAlterConfigsResponse(TypedDict):
    throttle_time_ms: int
    responses: list[IncrementalAlterConfigsResponseAlterConfigsResourceResponse]


class AlterPartitionReassignmentsRequestReassignablePartition(TypedDict):
    partition_index: int
    replicas: list[int] | None


class AlterPartitionReassignmentsRequestReassignableTopic(TypedDict):
    name: str
    partitions: list[AlterPartitionReassignmentsRequestReassignablePartition]


# api key 45, v0-1
class AlterPartitionReassignmentsRequest(TypedDict):
    timeout_ms: int
    allow_replication_factor_change: NotRequired[bool]  # v1+
    topics: list[AlterPartitionReassignmentsRequestReassignableTopic]


class AlterPartitionReassignmentsResponseReassignablePartitionResponse(TypedDict):
    partition_index: int
    error_code: int
    error_message: str | None


class AlterPartitionReassignmentsResponseReassignableTopicResponse(TypedDict):
    name: str
    partitions: list[AlterPartitionReassignmentsResponseReassignablePartitionResponse]


# api key 45, v0-1
class AlterPartitionReassignmentsResponse(TypedDict):
    throttle_time_ms: int
    allow_replication_factor_change: NotRequired[bool]  # v1+
    error_code: int
    error_message: str | None
    responses: list[AlterPartitionReassignmentsResponseReassignableTopicResponse]


class ListPartitionReassignmentsRequestListPartitionReassignmentsTopics(TypedDict):
    name: str
    partition_indexes: list[int]


# api key 46, v0
class ListPartitionReassignmentsRequest(TypedDict):
    timeout_ms: int
    topics: list[ListPartitionReassignmentsRequestListPartitionReassignmentsTopics] | None


class ListPartitionReassignmentsResponseOngoingPartitionReassignment(TypedDict):
    partition_index: int
    replicas: list[int]
    adding_replicas: list[int]
    removing_replicas: list[int]


class ListPartitionReassignmentsResponseOngoingTopicReassignment(TypedDict):
    name: str
    partitions: list[ListPartitionReassignmentsResponseOngoingPartitionReassignment]


# api key 46, v0
class ListPartitionReassignmentsResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    topics: list[ListPartitionReassignmentsResponseOngoingTopicReassignment]


class OffsetDeleteRequestPartition(TypedDict):
    partition_index: int


class OffsetDeleteRequestTopic(TypedDict):
    name: str
    partitions: list[OffsetDeleteRequestPartition]


# api key 47, v0
class OffsetDeleteRequest(TypedDict):
    group_id: str
    topics: list[OffsetDeleteRequestTopic]


class OffsetDeleteResponsePartition(TypedDict):
    partition_index: int
    error_code: int


class OffsetDeleteResponseTopic(TypedDict):
    name: str
    partitions: list[OffsetDeleteResponsePartition]


# api key 47, v0
class OffsetDeleteResponse(TypedDict):
    error_code: int
    throttle_time_ms: int
    topics: list[OffsetDeleteResponseTopic]


class DescribeClientQuotasRequestComponentData(TypedDict):
    entity_type: str
    match_type: int
    match: str | None


# api key 48, v0-1
class DescribeClientQuotasRequest(TypedDict):
    components: list[DescribeClientQuotasRequestComponentData]
    strict: bool


class DescribeClientQuotasResponseEntityData(TypedDict):
    entity_type: str
    entity_name: str | None


class DescribeClientQuotasResponseValueData(TypedDict):
    key: str
    value: float


class DescribeClientQuotasResponseEntryData(TypedDict):
    entity: list[DescribeClientQuotasResponseEntityData]
    values: list[DescribeClientQuotasResponseValueData]


# api key 48, v0-1
class DescribeClientQuotasResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    entries: list[DescribeClientQuotasResponseEntryData] | None


class AlterClientQuotasRequestEntityData(TypedDict):
    entity_type: str
    entity_name: str | None


class AlterClientQuotasRequestOpData(TypedDict):
    key: str
    value: float
    remove: bool


class AlterClientQuotasRequestEntryData(TypedDict):
    entity: list[AlterClientQuotasRequestEntityData]
    ops: list[AlterClientQuotasRequestOpData]


# api key 49, v0-1
class AlterClientQuotasRequest(TypedDict):
    entries: list[AlterClientQuotasRequestEntryData]
    validate_only: bool


class AlterClientQuotasResponseEntityData(TypedDict):
    entity_type: str
    entity_name: str | None


class AlterClientQuotasResponseEntryData(TypedDict):
    error_code: int
    error_message: str | None
    entity: list[AlterClientQuotasResponseEntityData]


# api key 49, v0-1
class AlterClientQuotasResponse(TypedDict):
    throttle_time_ms: int
    entries: list[AlterClientQuotasResponseEntryData]


class DescribeUserScramCredentialsRequestUserName(TypedDict):
    name: str


# api key 50, v0
class DescribeUserScramCredentialsRequest(TypedDict):
    users: list[DescribeUserScramCredentialsRequestUserName] | None


class DescribeUserScramCredentialsResponseCredentialInfo(TypedDict):
    mechanism: int
    iterations: int


class DescribeUserScramCredentialsResponseDescribeUserScramCredentialsResult(TypedDict):
    user: str
    error_code: int
    error_message: str | None
    credential_infos: list[DescribeUserScramCredentialsResponseCredentialInfo]


# api key 50, v0
class DescribeUserScramCredentialsResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    results: list[DescribeUserScramCredentialsResponseDescribeUserScramCredentialsResult]


class AlterUserScramCredentialsRequestScramCredentialDeletion(TypedDict):
    name: str
    mechanism: int


class AlterUserScramCredentialsRequestScramCredentialUpsertion(TypedDict):
    name: str
    mechanism: int
    iterations: int
    salt: bytes
    salted_password: bytes


# api key 51, v0
class AlterUserScramCredentialsRequest(TypedDict):
    deletions: list[AlterUserScramCredentialsRequestScramCredentialDeletion]
    upsertions: list[AlterUserScramCredentialsRequestScramCredentialUpsertion]


class AlterUserScramCredentialsResponseAlterUserScramCredentialsResult(TypedDict):
    user: str
    error_code: int
    error_message: str | None


# api key 51, v0
class AlterUserScramCredentialsResponse(TypedDict):
    throttle_time_ms: int
    results: list[AlterUserScramCredentialsResponseAlterUserScramCredentialsResult]


class VoteRequestPartitionData(TypedDict):
    partition_index: int
    replica_epoch: int
    replica_id: int
    replica_directory_id: NotRequired[bytes]  # v1+
    voter_directory_id: NotRequired[bytes]  # v1+
    last_offset_epoch: int
    last_offset: int
    pre_vote: NotRequired[bool]  # v2+


class VoteRequestTopicData(TypedDict):
    topic_name: str
    partitions: list[VoteRequestPartitionData]


# api key 52, v0-2
class VoteRequest(TypedDict):
    cluster_id: str | None
    voter_id: NotRequired[int]  # v1+
    topics: list[VoteRequestTopicData]


class VoteResponsePartitionData(TypedDict):
    partition_index: int
    error_code: int
    leader_id: int
    leader_epoch: int
    vote_granted: bool


class VoteResponseTopicData(TypedDict):
    topic_name: str
    partitions: list[VoteResponsePartitionData]


class VoteResponseNodeEndpoint(TypedDict):
    node_id: int
    host: str
    port: int


# api key 52, v0-2
class VoteResponse(TypedDict):
    error_code: int
    topics: list[VoteResponseTopicData]
    node_endpoints: NotRequired[list[VoteResponseNodeEndpoint]]  # tagged, v1+


class BeginQuorumEpochRequestPartitionData(TypedDict):
    partition_index: int
    voter_directory_id: NotRequired[bytes]  # v1+
    leader_id: int
    leader_epoch: int


class BeginQuorumEpochRequestTopicData(TypedDict):
    topic_name: str
    partitions: list[BeginQuorumEpochRequestPartitionData]


class BeginQuorumEpochRequestLeaderEndpoint(TypedDict):
    name: str
    host: str
    port: int


# api key 53, v0-1
class BeginQuorumEpochRequest(TypedDict):
    cluster_id: str | None
    voter_id: NotRequired[int]  # v1+
    topics: list[BeginQuorumEpochRequestTopicData]
    leader_endpoints: NotRequired[list[BeginQuorumEpochRequestLeaderEndpoint]]  # v1+


class BeginQuorumEpochResponsePartitionData(TypedDict):
    partition_index: int
    error_code: int
    leader_id: int
    leader_epoch: int


class BeginQuorumEpochResponseTopicData(TypedDict):
    topic_name: str
    partitions: list[BeginQuorumEpochResponsePartitionData]


class BeginQuorumEpochResponseNodeEndpoint(TypedDict):
    node_id: int
    host: str
    port: int


# api key 53, v0-1
class BeginQuorumEpochResponse(TypedDict):
    error_code: int
    topics: list[BeginQuorumEpochResponseTopicData]
    node_endpoints: NotRequired[list[BeginQuorumEpochResponseNodeEndpoint]]  # tagged, v1+


class EndQuorumEpochRequestReplicaInfo(TypedDict):
    candidate_id: int
    candidate_directory_id: bytes


class EndQuorumEpochRequestPartitionData(TypedDict):
    partition_index: int
    leader_id: int
    leader_epoch: int
    preferred_successors: NotRequired[list[int]]  # v0
    preferred_candidates: NotRequired[list[EndQuorumEpochRequestReplicaInfo]]  # v1+


class EndQuorumEpochRequestTopicData(TypedDict):
    topic_name: str
    partitions: list[EndQuorumEpochRequestPartitionData]


class EndQuorumEpochRequestLeaderEndpoint(TypedDict):
    name: str
    host: str
    port: int


# api key 54, v0-1
class EndQuorumEpochRequest(TypedDict):
    cluster_id: str | None
    topics: list[EndQuorumEpochRequestTopicData]
    leader_endpoints: NotRequired[list[EndQuorumEpochRequestLeaderEndpoint]]  # v1+


class EndQuorumEpochResponsePartitionData(TypedDict):
    partition_index: int
    error_code: int
    leader_id: int
    leader_epoch: int


class EndQuorumEpochResponseTopicData(TypedDict):
    topic_name: str
    partitions: list[EndQuorumEpochResponsePartitionData]


class EndQuorumEpochResponseNodeEndpoint(TypedDict):
    node_id: int
    host: str
    port: int


# api key 54, v0-1
class EndQuorumEpochResponse(TypedDict):
    error_code: int
    topics: list[EndQuorumEpochResponseTopicData]
    node_endpoints: NotRequired[list[EndQuorumEpochResponseNodeEndpoint]]  # tagged, v1+


class DescribeQuorumRequestPartitionData(TypedDict):
    partition_index: int


class DescribeQuorumRequestTopicData(TypedDict):
    topic_name: str
    partitions: list[DescribeQuorumRequestPartitionData]


# api key 55, v0-2
class DescribeQuorumRequest(TypedDict):
    topics: list[DescribeQuorumRequestTopicData]


class DescribeQuorumResponseReplicaState(TypedDict):
    replica_id: int
    replica_directory_id: NotRequired[bytes]  # v2+
    log_end_offset: int
    last_fetch_timestamp: NotRequired[int]  # v1+
    last_caught_up_timestamp: NotRequired[int]  # v1+


class DescribeQuorumResponsePartitionData(TypedDict):
    partition_index: int
    error_code: int
    error_message: NotRequired[str | None]  # v2+
    leader_id: int
    leader_epoch: int
    high_watermark: int
    current_voters: list[DescribeQuorumResponseReplicaState]
    observers: list[DescribeQuorumResponseReplicaState]


class DescribeQuorumResponseTopicData(TypedDict):
    topic_name: str
    partitions: list[DescribeQuorumResponsePartitionData]


class DescribeQuorumResponseListener(TypedDict):
    name: str
    host: str
    port: int


class DescribeQuorumResponseNode(TypedDict):
    node_id: int
    listeners: list[DescribeQuorumResponseListener]


# api key 55, v0-2
class DescribeQuorumResponse(TypedDict):
    error_code: int
    error_message: NotRequired[str | None]  # v2+
    topics: list[DescribeQuorumResponseTopicData]
    nodes: NotRequired[list[DescribeQuorumResponseNode]]  # v2+


class AlterPartitionRequestBrokerState(TypedDict):
    broker_id: int
    broker_epoch: int


class AlterPartitionRequestPartitionData(TypedDict):
    partition_index: int
    leader_epoch: int
    new_isr: NotRequired[list[int]]  # v0-2
    new_isr_with_epochs: NotRequired[list[AlterPartitionRequestBrokerState]]  # v3+
    leader_recovery_state: int
    partition_epoch: int


class AlterPartitionRequestTopicData(TypedDict):
    topic_id: bytes
    partitions: list[AlterPartitionRequestPartitionData]


# api key 56, v2-3
class AlterPartitionRequest(TypedDict):
    broker_id: int
    broker_epoch: int
    topics: list[AlterPartitionRequestTopicData]


class AlterPartitionResponsePartitionData(TypedDict):
    partition_index: int
    error_code: int
    leader_id: int
    leader_epoch: int
    isr: list[int]
    leader_recovery_state: int
    partition_epoch: int


class AlterPartitionResponseTopicData(TypedDict):
    topic_id: bytes
    partitions: list[AlterPartitionResponsePartitionData]


# api key 56, v2-3
class AlterPartitionResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    topics: list[AlterPartitionResponseTopicData]


class UpdateFeaturesRequestFeatureUpdateKey(TypedDict):
    feature: str
    max_version_level: int
    allow_downgrade: NotRequired[bool]  # v0
    upgrade_type: NotRequired[int]  # v1+


# api key 57, v0-2
class UpdateFeaturesRequest(TypedDict):
    timeout_ms: int
    feature_updates: list[UpdateFeaturesRequestFeatureUpdateKey]
    validate_only: NotRequired[bool]  # v1+


class UpdateFeaturesResponseUpdatableFeatureResult(TypedDict):
    feature: str
    error_code: int
    error_message: str | None


# api key 57, v0-2
class UpdateFeaturesResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    results: NotRequired[list[UpdateFeaturesResponseUpdatableFeatureResult]]  # v0-1


# api key 58, v0
class EnvelopeRequest(TypedDict):
    request_data: bytes
    request_principal: bytes | None
    client_host_address: bytes


# api key 58, v0
class EnvelopeResponse(TypedDict):
    response_data: bytes | None
    error_code: int


class FetchSnapshotRequestSnapshotId(TypedDict):
    end_offset: int
    epoch: int


class FetchSnapshotRequestPartitionSnapshot(TypedDict):
    partition: int
    current_leader_epoch: int
    snapshot_id: FetchSnapshotRequestSnapshotId
    position: int
    replica_directory_id: NotRequired[bytes]  # tagged, v1+


class FetchSnapshotRequestTopicSnapshot(TypedDict):
    name: str
    partitions: list[FetchSnapshotRequestPartitionSnapshot]


# api key 59, v0-1
class FetchSnapshotRequest(TypedDict):
    cluster_id: NotRequired[str | None]  # tagged, v0+
    replica_id: int
    max_bytes: int
    topics: list[FetchSnapshotRequestTopicSnapshot]


class FetchSnapshotResponseSnapshotId(TypedDict):
    end_offset: int
    epoch: int


class FetchSnapshotResponseLeaderIdAndEpoch(TypedDict):
    leader_id: int
    leader_epoch: int


class FetchSnapshotResponsePartitionSnapshot(TypedDict):
    index: int
    error_code: int
    snapshot_id: FetchSnapshotResponseSnapshotId
    current_leader: NotRequired[FetchSnapshotResponseLeaderIdAndEpoch]  # tagged, v0+
    size: int
    position: int
    unaligned_records: bytes


class FetchSnapshotResponseTopicSnapshot(TypedDict):
    name: str
    partitions: list[FetchSnapshotResponsePartitionSnapshot]


class FetchSnapshotResponseNodeEndpoint(TypedDict):
    node_id: int
    host: str
    port: int


# api key 59, v0-1
class FetchSnapshotResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    topics: list[FetchSnapshotResponseTopicSnapshot]
    node_endpoints: NotRequired[list[FetchSnapshotResponseNodeEndpoint]]  # tagged, v1+


# api key 60, v0-2
class DescribeClusterRequest(TypedDict):
    include_cluster_authorized_operations: bool
    endpoint_type: NotRequired[int]  # v1+
    include_fenced_brokers: NotRequired[bool]  # v2+


class DescribeClusterResponseDescribeClusterBroker(TypedDict):
    broker_id: int
    host: str
    port: int
    rack: str | None
    is_fenced: NotRequired[bool]  # v2+


# api key 60, v0-2
class DescribeClusterResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    endpoint_type: NotRequired[int]  # v1+
    cluster_id: str
    controller_id: int
    brokers: list[DescribeClusterResponseDescribeClusterBroker]
    cluster_authorized_operations: int


class DescribeProducersRequestTopicRequest(TypedDict):
    name: str
    partition_indexes: list[int]


# api key 61, v0
class DescribeProducersRequest(TypedDict):
    topics: list[DescribeProducersRequestTopicRequest]


class DescribeProducersResponseProducerState(TypedDict):
    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_timestamp: int
    coordinator_epoch: int
    current_txn_start_offset: int


class DescribeProducersResponsePartitionResponse(TypedDict):
    partition_index: int
    error_code: int
    error_message: str | None
    active_producers: list[DescribeProducersResponseProducerState]


class DescribeProducersResponseTopicResponse(TypedDict):
    name: str
    partitions: list[DescribeProducersResponsePartitionResponse]


# api key 61, v0
class DescribeProducersResponse(TypedDict):
    throttle_time_ms: int
    topics: list[DescribeProducersResponseTopicResponse]


class BrokerRegistrationRequestListener(TypedDict):
    name: str
    host: str
    port: int
    security_protocol: int


class BrokerRegistrationRequestFeature(TypedDict):
    name: str
    min_supported_version: int
    max_supported_version: int


# api key 62, v0-4
class BrokerRegistrationRequest(TypedDict):
    broker_id: int
    cluster_id: str
    incarnation_id: bytes
    listeners: list[BrokerRegistrationRequestListener]
    features: list[BrokerRegistrationRequestFeature]
    rack: str | None
    is_migrating_zk_broker: NotRequired[bool]  # v1+
    log_dirs: NotRequired[list[bytes]]  # v2+
    previous_broker_epoch: NotRequired[int]  # v3+


# api key 62, v0-4
class BrokerRegistrationResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    broker_epoch: int


# api key 63, v0-2
class BrokerHeartbeatRequest(TypedDict):
    broker_id: int
    broker_epoch: int
    current_metadata_offset: int
    want_fence: bool
    want_shut_down: bool
    offline_log_dirs: NotRequired[list[bytes]]  # tagged, v1+
    cordoned_log_dirs: NotRequired[list[bytes] | None]  # tagged, v2+


# api key 63, v0-2
class BrokerHeartbeatResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    is_caught_up: bool
    is_fenced: bool
    should_shut_down: bool


# api key 64, v0
class UnregisterBrokerRequest(TypedDict):
    broker_id: int


# api key 64, v0
class UnregisterBrokerResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None


# api key 65, v0
class DescribeTransactionsRequest(TypedDict):
    transactional_ids: list[str]


class DescribeTransactionsResponseTopicData(TypedDict):
    topic: str
    partitions: list[int]


class DescribeTransactionsResponseTransactionState(TypedDict):
    error_code: int
    transactional_id: str
    transaction_state: str
    transaction_timeout_ms: int
    transaction_start_time_ms: int
    producer_id: int
    producer_epoch: int
    topics: list[DescribeTransactionsResponseTopicData]


# api key 65, v0
class DescribeTransactionsResponse(TypedDict):
    throttle_time_ms: int
    transaction_states: list[DescribeTransactionsResponseTransactionState]


# api key 66, v0-2
class ListTransactionsRequest(TypedDict):
    state_filters: list[str]
    producer_id_filters: list[int]
    duration_filter: NotRequired[int]  # v1+
    transactional_id_pattern: NotRequired[str | None]  # v2+


class ListTransactionsResponseTransactionState(TypedDict):
    transactional_id: str
    producer_id: int
    transaction_state: str


# api key 66, v0-2
class ListTransactionsResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    unknown_state_filters: list[str]
    transaction_states: list[ListTransactionsResponseTransactionState]


# api key 67, v0
class AllocateProducerIdsRequest(TypedDict):
    broker_id: int
    broker_epoch: int


# api key 67, v0
class AllocateProducerIdsResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    producer_id_start: int
    producer_id_len: int


class ConsumerGroupHeartbeatRequestTopicPartitions(TypedDict):
    topic_id: bytes
    partitions: list[int]


# api key 68, v0-1
class ConsumerGroupHeartbeatRequest(TypedDict):
    group_id: str
    member_id: str
    member_epoch: int
    instance_id: str | None
    rack_id: str | None
    rebalance_timeout_ms: int
    subscribed_topic_names: list[str] | None
    subscribed_topic_regex: NotRequired[str | None]  # v1+
    server_assignor: str | None
    topic_partitions: list[ConsumerGroupHeartbeatRequestTopicPartitions] | None


class ConsumerGroupHeartbeatResponseTopicPartitions(TypedDict):
    topic_id: bytes
    partitions: list[int]


class ConsumerGroupHeartbeatResponseAssignment(TypedDict):
    topic_partitions: list[ConsumerGroupHeartbeatResponseTopicPartitions]


# api key 68, v0-1
class ConsumerGroupHeartbeatResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    member_id: str | None
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: ConsumerGroupHeartbeatResponseAssignment | None


# api key 69, v0-1
class ConsumerGroupDescribeRequest(TypedDict):
    group_ids: list[str]
    include_authorized_operations: bool


class ConsumerGroupDescribeResponseTopicPartitions(TypedDict):
    topic_id: bytes
    topic_name: str
    partitions: list[int]


class ConsumerGroupDescribeResponseAssignment(TypedDict):
    topic_partitions: list[ConsumerGroupDescribeResponseTopicPartitions]


class ConsumerGroupDescribeResponseMember(TypedDict):
    member_id: str
    instance_id: str | None
    rack_id: str | None
    member_epoch: int
    client_id: str
    client_host: str
    subscribed_topic_names: list[str]
    subscribed_topic_regex: str | None
    assignment: ConsumerGroupDescribeResponseAssignment
    target_assignment: ConsumerGroupDescribeResponseAssignment
    member_type: NotRequired[int]  # v1+


class ConsumerGroupDescribeResponseDescribedGroup(TypedDict):
    error_code: int
    error_message: str | None
    group_id: str
    group_state: str
    group_epoch: int
    assignment_epoch: int
    assignor_name: str
    members: list[ConsumerGroupDescribeResponseMember]
    authorized_operations: int


# api key 69, v0-1
class ConsumerGroupDescribeResponse(TypedDict):
    throttle_time_ms: int
    groups: list[ConsumerGroupDescribeResponseDescribedGroup]


class ControllerRegistrationRequestListener(TypedDict):
    name: str
    host: str
    port: int
    security_protocol: int


class ControllerRegistrationRequestFeature(TypedDict):
    name: str
    min_supported_version: int
    max_supported_version: int


# api key 70, v0
class ControllerRegistrationRequest(TypedDict):
    controller_id: int
    incarnation_id: bytes
    zk_migration_ready: bool
    listeners: list[ControllerRegistrationRequestListener]
    features: list[ControllerRegistrationRequestFeature]


# api key 70, v0
class ControllerRegistrationResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None


# api key 71, v0
class GetTelemetrySubscriptionsRequest(TypedDict):
    client_instance_id: bytes


# api key 71, v0
class GetTelemetrySubscriptionsResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    client_instance_id: bytes
    subscription_id: int
    accepted_compression_types: list[int]
    push_interval_ms: int
    telemetry_max_bytes: int
    delta_temporality: bool
    requested_metrics: list[str]


# api key 72, v0
class PushTelemetryRequest(TypedDict):
    client_instance_id: bytes
    subscription_id: int
    terminating: bool
    compression_type: int
    metrics: bytes


# api key 72, v0
class PushTelemetryResponse(TypedDict):
    throttle_time_ms: int
    error_code: int


class AssignReplicasToDirsRequestPartitionData(TypedDict):
    partition_index: int


class AssignReplicasToDirsRequestTopicData(TypedDict):
    topic_id: bytes
    partitions: list[AssignReplicasToDirsRequestPartitionData]


class AssignReplicasToDirsRequestDirectoryData(TypedDict):
    id: bytes
    topics: list[AssignReplicasToDirsRequestTopicData]


# api key 73, v0
class AssignReplicasToDirsRequest(TypedDict):
    broker_id: int
    broker_epoch: int
    directories: list[AssignReplicasToDirsRequestDirectoryData]


class AssignReplicasToDirsResponsePartitionData(TypedDict):
    partition_index: int
    error_code: int


class AssignReplicasToDirsResponseTopicData(TypedDict):
    topic_id: bytes
    partitions: list[AssignReplicasToDirsResponsePartitionData]


class AssignReplicasToDirsResponseDirectoryData(TypedDict):
    id: bytes
    topics: list[AssignReplicasToDirsResponseTopicData]


# api key 73, v0
class AssignReplicasToDirsResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    directories: list[AssignReplicasToDirsResponseDirectoryData]


# api key 74, v0-1
class ListConfigResourcesRequest(TypedDict):
    resource_types: NotRequired[list[int]]  # v1+


class ListConfigResourcesResponseConfigResource(TypedDict):
    resource_name: str
    resource_type: NotRequired[int]  # v1+


# api key 74, v0-1
class ListConfigResourcesResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    config_resources: list[ListConfigResourcesResponseConfigResource]


class DescribeTopicPartitionsRequestTopicRequest(TypedDict):
    name: str


class DescribeTopicPartitionsRequestCursor(TypedDict):
    topic_name: str
    partition_index: int


# api key 75, v0
class DescribeTopicPartitionsRequest(TypedDict):
    topics: list[DescribeTopicPartitionsRequestTopicRequest]
    response_partition_limit: int
    cursor: DescribeTopicPartitionsRequestCursor | None


class DescribeTopicPartitionsResponsePartition(TypedDict):
    error_code: int
    partition_index: int
    leader_id: int
    leader_epoch: int
    replica_nodes: list[int]
    isr_nodes: list[int]
    eligible_leader_replicas: list[int] | None
    last_known_elr: list[int] | None
    offline_replicas: list[int]


class DescribeTopicPartitionsResponseTopic(TypedDict):
    error_code: int
    name: str | None
    topic_id: bytes
    is_internal: bool
    partitions: list[DescribeTopicPartitionsResponsePartition]
    topic_authorized_operations: int


class DescribeTopicPartitionsResponseCursor(TypedDict):
    topic_name: str
    partition_index: int


# api key 75, v0
class DescribeTopicPartitionsResponse(TypedDict):
    throttle_time_ms: int
    topics: list[DescribeTopicPartitionsResponseTopic]
    next_cursor: DescribeTopicPartitionsResponseCursor | None


# api key 76, v1
class ShareGroupHeartbeatRequest(TypedDict):
    group_id: str
    member_id: str
    member_epoch: int
    rack_id: str | None
    subscribed_topic_names: list[str] | None


class ShareGroupHeartbeatResponseTopicPartitions(TypedDict):
    topic_id: bytes
    partitions: list[int]


class ShareGroupHeartbeatResponseAssignment(TypedDict):
    topic_partitions: list[ShareGroupHeartbeatResponseTopicPartitions]


# api key 76, v1
class ShareGroupHeartbeatResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    member_id: str | None
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: ShareGroupHeartbeatResponseAssignment | None


# api key 77, v1
class ShareGroupDescribeRequest(TypedDict):
    group_ids: list[str]
    include_authorized_operations: bool


class ShareGroupDescribeResponseTopicPartitions(TypedDict):
    topic_id: bytes
    topic_name: str
    partitions: list[int]


class ShareGroupDescribeResponseAssignment(TypedDict):
    topic_partitions: list[ShareGroupDescribeResponseTopicPartitions]


class ShareGroupDescribeResponseMember(TypedDict):
    member_id: str
    rack_id: str | None
    member_epoch: int
    client_id: str
    client_host: str
    subscribed_topic_names: list[str]
    assignment: ShareGroupDescribeResponseAssignment


class ShareGroupDescribeResponseDescribedGroup(TypedDict):
    error_code: int
    error_message: str | None
    group_id: str
    group_state: str
    group_epoch: int
    assignment_epoch: int
    assignor_name: str
    members: list[ShareGroupDescribeResponseMember]
    authorized_operations: int


# api key 77, v1
class ShareGroupDescribeResponse(TypedDict):
    throttle_time_ms: int
    groups: list[ShareGroupDescribeResponseDescribedGroup]


class ShareFetchRequestAcknowledgementBatch(TypedDict):
    first_offset: int
    last_offset: int
    acknowledge_types: list[int]


class ShareFetchRequestFetchPartition(TypedDict):
    partition_index: int
    partition_max_bytes: NotRequired[int]  # v0
    acknowledgement_batches: list[ShareFetchRequestAcknowledgementBatch]


class ShareFetchRequestFetchTopic(TypedDict):
    topic_id: bytes
    partitions: list[ShareFetchRequestFetchPartition]


class ShareFetchRequestForgottenTopic(TypedDict):
    topic_id: bytes
    partitions: list[int]


# api key 78, v1-2
class ShareFetchRequest(TypedDict):
    group_id: str | None
    member_id: str | None
    share_session_epoch: int
    max_wait_ms: int
    min_bytes: int
    max_bytes: int
    max_records: int
    batch_size: int
    share_acquire_mode: NotRequired[int]  # v2+
    is_renew_ack: NotRequired[bool]  # v2+
    topics: list[ShareFetchRequestFetchTopic]
    forgotten_topics_data: list[ShareFetchRequestForgottenTopic]


class ShareFetchResponseLeaderIdAndEpoch(TypedDict):
    leader_id: int
    leader_epoch: int


class ShareFetchResponseAcquiredRecords(TypedDict):
    first_offset: int
    last_offset: int
    delivery_count: int


class ShareFetchResponsePartitionData(TypedDict):
    partition_index: int
    error_code: int
    error_message: str | None
    acknowledge_error_code: int
    acknowledge_error_message: str | None
    current_leader: ShareFetchResponseLeaderIdAndEpoch
    records: bytes
    acquired_records: list[ShareFetchResponseAcquiredRecords]


class ShareFetchResponseShareFetchableTopicResponse(TypedDict):
    topic_id: bytes
    partitions: list[ShareFetchResponsePartitionData]


class ShareFetchResponseNodeEndpoint(TypedDict):
    node_id: int
    host: str
    port: int
    rack: str | None


# api key 78, v1-2
class ShareFetchResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    acquisition_lock_timeout_ms: int
    responses: list[ShareFetchResponseShareFetchableTopicResponse]
    node_endpoints: list[ShareFetchResponseNodeEndpoint]


class ShareAcknowledgeRequestAcknowledgementBatch(TypedDict):
    first_offset: int
    last_offset: int
    acknowledge_types: list[int]


class ShareAcknowledgeRequestAcknowledgePartition(TypedDict):
    partition_index: int
    acknowledgement_batches: list[ShareAcknowledgeRequestAcknowledgementBatch]


class ShareAcknowledgeRequestAcknowledgeTopic(TypedDict):
    topic_id: bytes
    partitions: list[ShareAcknowledgeRequestAcknowledgePartition]


# api key 79, v1-2
class ShareAcknowledgeRequest(TypedDict):
    group_id: str | None
    member_id: str | None
    share_session_epoch: int
    is_renew_ack: NotRequired[bool]  # v2+
    topics: list[ShareAcknowledgeRequestAcknowledgeTopic]


class ShareAcknowledgeResponseLeaderIdAndEpoch(TypedDict):
    leader_id: int
    leader_epoch: int


class ShareAcknowledgeResponsePartitionData(TypedDict):
    partition_index: int
    error_code: int
    error_message: str | None
    current_leader: ShareAcknowledgeResponseLeaderIdAndEpoch


class ShareAcknowledgeResponseShareAcknowledgeTopicResponse(TypedDict):
    topic_id: bytes
    partitions: list[ShareAcknowledgeResponsePartitionData]


class ShareAcknowledgeResponseNodeEndpoint(TypedDict):
    node_id: int
    host: str
    port: int
    rack: str | None


# api key 79, v1-2
class ShareAcknowledgeResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    acquisition_lock_timeout_ms: NotRequired[int]  # v2+
    responses: list[ShareAcknowledgeResponseShareAcknowledgeTopicResponse]
    node_endpoints: list[ShareAcknowledgeResponseNodeEndpoint]


class AddRaftVoterRequestListener(TypedDict):
    name: str
    host: str
    port: int


# api key 80, v0-1
class AddRaftVoterRequest(TypedDict):
    cluster_id: str | None
    timeout_ms: int
    voter_id: int
    voter_directory_id: bytes
    listeners: list[AddRaftVoterRequestListener]
    ack_when_committed: NotRequired[bool]  # v1+


# api key 80, v0-1
class AddRaftVoterResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None


# api key 81, v0
class RemoveRaftVoterRequest(TypedDict):
    cluster_id: str | None
    voter_id: int
    voter_directory_id: bytes


# api key 81, v0
class RemoveRaftVoterResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None


class UpdateRaftVoterRequestListener(TypedDict):
    name: str
    host: str
    port: int


class UpdateRaftVoterRequestKRaftVersionFeature(TypedDict):
    min_supported_version: int
    max_supported_version: int


# api key 82, v0
class UpdateRaftVoterRequest(TypedDict):
    cluster_id: str | None
    current_leader_epoch: int
    voter_id: int
    voter_directory_id: bytes
    listeners: list[UpdateRaftVoterRequestListener]
    k_raft_version_feature: UpdateRaftVoterRequestKRaftVersionFeature


class UpdateRaftVoterResponseCurrentLeader(TypedDict):
    leader_id: int
    leader_epoch: int
    host: str
    port: int


# api key 82, v0
class UpdateRaftVoterResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    current_leader: NotRequired[UpdateRaftVoterResponseCurrentLeader]  # tagged, v0+


class InitializeShareGroupStateRequestPartitionData(TypedDict):
    partition: int
    state_epoch: int
    start_offset: int


class InitializeShareGroupStateRequestInitializeStateData(TypedDict):
    topic_id: bytes
    partitions: list[InitializeShareGroupStateRequestPartitionData]


# api key 83, v0
class InitializeShareGroupStateRequest(TypedDict):
    group_id: str
    topics: list[InitializeShareGroupStateRequestInitializeStateData]


class InitializeShareGroupStateResponsePartitionResult(TypedDict):
    partition: int
    error_code: int
    error_message: str | None


class InitializeShareGroupStateResponseInitializeStateResult(TypedDict):
    topic_id: bytes
    partitions: list[InitializeShareGroupStateResponsePartitionResult]


# api key 83, v0
class InitializeShareGroupStateResponse(TypedDict):
    results: list[InitializeShareGroupStateResponseInitializeStateResult]


class ReadShareGroupStateRequestPartitionData(TypedDict):
    partition: int
    leader_epoch: int


class ReadShareGroupStateRequestReadStateData(TypedDict):
    topic_id: bytes
    partitions: list[ReadShareGroupStateRequestPartitionData]


# api key 84, v0
class ReadShareGroupStateRequest(TypedDict):
    group_id: str
    topics: list[ReadShareGroupStateRequestReadStateData]


class ReadShareGroupStateResponseStateBatch(TypedDict):
    first_offset: int
    last_offset: int
    delivery_state: int
    delivery_count: int


class ReadShareGroupStateResponsePartitionResult(TypedDict):
    partition: int
    error_code: int
    error_message: str | None
    state_epoch: int
    start_offset: int
    state_batches: list[ReadShareGroupStateResponseStateBatch]


class ReadShareGroupStateResponseReadStateResult(TypedDict):
    topic_id: bytes
    partitions: list[ReadShareGroupStateResponsePartitionResult]


# api key 84, v0
class ReadShareGroupStateResponse(TypedDict):
    results: list[ReadShareGroupStateResponseReadStateResult]


class WriteShareGroupStateRequestStateBatch(TypedDict):
    first_offset: int
    last_offset: int
    delivery_state: int
    delivery_count: int


class WriteShareGroupStateRequestPartitionData(TypedDict):
    partition: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    delivery_complete_count: NotRequired[int]  # v1+
    state_batches: list[WriteShareGroupStateRequestStateBatch]


class WriteShareGroupStateRequestWriteStateData(TypedDict):
    topic_id: bytes
    partitions: list[WriteShareGroupStateRequestPartitionData]


# api key 85, v0-1
class WriteShareGroupStateRequest(TypedDict):
    group_id: str
    topics: list[WriteShareGroupStateRequestWriteStateData]


class WriteShareGroupStateResponsePartitionResult(TypedDict):
    partition: int
    error_code: int
    error_message: str | None


class WriteShareGroupStateResponseWriteStateResult(TypedDict):
    topic_id: bytes
    partitions: list[WriteShareGroupStateResponsePartitionResult]


# api key 85, v0-1
class WriteShareGroupStateResponse(TypedDict):
    results: list[WriteShareGroupStateResponseWriteStateResult]


class DeleteShareGroupStateRequestPartitionData(TypedDict):
    partition: int


class DeleteShareGroupStateRequestDeleteStateData(TypedDict):
    topic_id: bytes
    partitions: list[DeleteShareGroupStateRequestPartitionData]


# api key 86, v0
class DeleteShareGroupStateRequest(TypedDict):
    group_id: str
    topics: list[DeleteShareGroupStateRequestDeleteStateData]


class DeleteShareGroupStateResponsePartitionResult(TypedDict):
    partition: int
    error_code: int
    error_message: str | None


class DeleteShareGroupStateResponseDeleteStateResult(TypedDict):
    topic_id: bytes
    partitions: list[DeleteShareGroupStateResponsePartitionResult]


# api key 86, v0
class DeleteShareGroupStateResponse(TypedDict):
    results: list[DeleteShareGroupStateResponseDeleteStateResult]


class ReadShareGroupStateSummaryRequestPartitionData(TypedDict):
    partition: int
    leader_epoch: int


class ReadShareGroupStateSummaryRequestReadStateSummaryData(TypedDict):
    topic_id: bytes
    partitions: list[ReadShareGroupStateSummaryRequestPartitionData]


# api key 87, v0-1
class ReadShareGroupStateSummaryRequest(TypedDict):
    group_id: str
    topics: list[ReadShareGroupStateSummaryRequestReadStateSummaryData]


class ReadShareGroupStateSummaryResponsePartitionResult(TypedDict):
    partition: int
    error_code: int
    error_message: str | None
    state_epoch: int
    leader_epoch: int
    start_offset: int
    delivery_complete_count: NotRequired[int]  # v1+


class ReadShareGroupStateSummaryResponseReadStateSummaryResult(TypedDict):
    topic_id: bytes
    partitions: list[ReadShareGroupStateSummaryResponsePartitionResult]


# api key 87, v0-1
class ReadShareGroupStateSummaryResponse(TypedDict):
    results: list[ReadShareGroupStateSummaryResponseReadStateSummaryResult]


class StreamsGroupHeartbeatRequestKeyValue(TypedDict):
    key: str
    value: str


class StreamsGroupHeartbeatRequestTopicInfo(TypedDict):
    name: str
    partitions: int
    replication_factor: int
    topic_configs: list[StreamsGroupHeartbeatRequestKeyValue]


class StreamsGroupHeartbeatRequestCopartitionGroup(TypedDict):
    source_topics: list[int]
    source_topic_regex: list[int]
    repartition_source_topics: list[int]


class StreamsGroupHeartbeatRequestSubtopology(TypedDict):
    subtopology_id: str
    source_topics: list[str]
    source_topic_regex: list[str]
    state_changelog_topics: list[StreamsGroupHeartbeatRequestTopicInfo]
    repartition_sink_topics: list[str]
    repartition_source_topics: list[StreamsGroupHeartbeatRequestTopicInfo]
    copartition_groups: list[StreamsGroupHeartbeatRequestCopartitionGroup]


class StreamsGroupHeartbeatRequestTopology(TypedDict):
    epoch: int
    subtopologies: list[StreamsGroupHeartbeatRequestSubtopology]


class StreamsGroupHeartbeatRequestTaskIds(TypedDict):
    subtopology_id: str
    partitions: list[int]


class StreamsGroupHeartbeatRequestEndpoint(TypedDict):
    host: str
    port: int


class StreamsGroupHeartbeatRequestTaskOffset(TypedDict):
    subtopology_id: str
    partition: int
    offset: int


# api key 88, v0-1
class StreamsGroupHeartbeatRequest(TypedDict):
    group_id: str
    member_id: str
    member_epoch: int
    endpoint_information_epoch: int
    instance_id: str | None
    rack_id: str | None
    rebalance_timeout_ms: int
    topology: StreamsGroupHeartbeatRequestTopology | None
    active_tasks: list[StreamsGroupHeartbeatRequestTaskIds] | None
    standby_tasks: list[StreamsGroupHeartbeatRequestTaskIds] | None
    warmup_tasks: list[StreamsGroupHeartbeatRequestTaskIds] | None
    process_id: str | None
    user_endpoint: StreamsGroupHeartbeatRequestEndpoint | None
    client_tags: list[StreamsGroupHeartbeatRequestKeyValue] | None
    task_offsets: list[StreamsGroupHeartbeatRequestTaskOffset] | None
    task_end_offsets: list[StreamsGroupHeartbeatRequestTaskOffset] | None
    shutdown_application: bool


class StreamsGroupHeartbeatResponseStatus(TypedDict):
    status_code: int
    status_detail: str


class StreamsGroupHeartbeatResponseTaskIds(TypedDict):
    subtopology_id: str
    partitions: list[int]


class StreamsGroupHeartbeatResponseEndpoint(TypedDict):
    host: str
    port: int


class StreamsGroupHeartbeatResponseTopicPartition(TypedDict):
    topic: str
    partitions: list[int]


class StreamsGroupHeartbeatResponseEndpointToPartitions(TypedDict):
    user_endpoint: StreamsGroupHeartbeatResponseEndpoint
    active_partitions: list[StreamsGroupHeartbeatResponseTopicPartition]
    standby_partitions: list[StreamsGroupHeartbeatResponseTopicPartition]


# api key 88, v0-1
class StreamsGroupHeartbeatResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    member_id: str
    member_epoch: int
    heartbeat_interval_ms: int
    acceptable_recovery_lag_legacy: NotRequired[int]  # v0
    task_offset_interval_ms: int
    acceptable_recovery_lag: NotRequired[int]  # v1+
    status: list[StreamsGroupHeartbeatResponseStatus] | None
    active_tasks: list[StreamsGroupHeartbeatResponseTaskIds] | None
    standby_tasks: list[StreamsGroupHeartbeatResponseTaskIds] | None
    warmup_tasks: list[StreamsGroupHeartbeatResponseTaskIds] | None
    topology_description_required: NotRequired[bool]  # v1+
    endpoint_information_epoch: int
    partitions_by_user_endpoint: list[StreamsGroupHeartbeatResponseEndpointToPartitions] | None


# api key 89, v0-1
class StreamsGroupDescribeRequest(TypedDict):
    group_ids: list[str]
    include_authorized_operations: bool
    include_topology_description: NotRequired[bool]  # v1+


class StreamsGroupDescribeResponseKeyValue(TypedDict):
    key: str
    value: str


class StreamsGroupDescribeResponseTopicInfo(TypedDict):
    name: str
    partitions: int
    replication_factor: int
    topic_configs: list[StreamsGroupDescribeResponseKeyValue]


class StreamsGroupDescribeResponseSubtopology(TypedDict):
    subtopology_id: str
    source_topics: list[str]
    repartition_sink_topics: list[str]
    state_changelog_topics: list[StreamsGroupDescribeResponseTopicInfo]
    repartition_source_topics: list[StreamsGroupDescribeResponseTopicInfo]


class StreamsGroupDescribeResponseTopology(TypedDict):
    epoch: int
    subtopologies: list[StreamsGroupDescribeResponseSubtopology] | None


class StreamsGroupDescribeResponseEndpoint(TypedDict):
    host: str
    port: int


class StreamsGroupDescribeResponseTaskOffset(TypedDict):
    subtopology_id: str
    partition: int
    offset: int


class StreamsGroupDescribeResponseTaskIds(TypedDict):
    subtopology_id: str
    partitions: list[int]


class StreamsGroupDescribeResponseAssignment(TypedDict):
    active_tasks: list[StreamsGroupDescribeResponseTaskIds]
    standby_tasks: list[StreamsGroupDescribeResponseTaskIds]
    warmup_tasks: list[StreamsGroupDescribeResponseTaskIds]


class StreamsGroupDescribeResponseMember(TypedDict):
    member_id: str
    member_epoch: int
    instance_id: str | None
    rack_id: str | None
    client_id: str
    client_host: str
    topology_epoch: int
    process_id: str
    user_endpoint: StreamsGroupDescribeResponseEndpoint | None
    client_tags: list[StreamsGroupDescribeResponseKeyValue]
    task_offsets: list[StreamsGroupDescribeResponseTaskOffset]
    task_end_offsets: list[StreamsGroupDescribeResponseTaskOffset]
    assignment: StreamsGroupDescribeResponseAssignment
    target_assignment: StreamsGroupDescribeResponseAssignment
    is_classic: bool


class StreamsGroupDescribeResponseTopologyDescriptionNode(TypedDict):
    name: str
    node_type: int
    source_topics: list[str]
    sink_topic: str | None
    stores: list[str]
    successors: list[str]


class StreamsGroupDescribeResponseTopologyDescriptionSubtopology(TypedDict):
    subtopology_id: str
    nodes: list[StreamsGroupDescribeResponseTopologyDescriptionNode]


class StreamsGroupDescribeResponseTopologyDescriptionGlobalStore(TypedDict):
    source: StreamsGroupDescribeResponseTopologyDescriptionNode
    processor: StreamsGroupDescribeResponseTopologyDescriptionNode


class StreamsGroupDescribeResponseTopologyDescription(TypedDict):
    subtopologies: list[StreamsGroupDescribeResponseTopologyDescriptionSubtopology]
    global_stores: list[StreamsGroupDescribeResponseTopologyDescriptionGlobalStore]


class StreamsGroupDescribeResponseDescribedGroup(TypedDict):
    error_code: int
    error_message: str | None
    group_id: str
    group_state: str
    group_epoch: int
    assignment_epoch: int
    topology: StreamsGroupDescribeResponseTopology | None
    members: list[StreamsGroupDescribeResponseMember]
    authorized_operations: int
    topology_description: NotRequired[StreamsGroupDescribeResponseTopologyDescription | None]  # v1+
    topology_description_status: NotRequired[int]  # v1+
    assignor_name: NotRequired[str | None]  # v1+


# api key 89, v0-1
class StreamsGroupDescribeResponse(TypedDict):
    throttle_time_ms: int
    groups: list[StreamsGroupDescribeResponseDescribedGroup]


class DescribeShareGroupOffsetsRequestTopic(TypedDict):
    topic_name: str
    partitions: list[int]


class DescribeShareGroupOffsetsRequestGroup(TypedDict):
    group_id: str
    topics: list[DescribeShareGroupOffsetsRequestTopic] | None


# api key 90, v0-1
class DescribeShareGroupOffsetsRequest(TypedDict):
    groups: list[DescribeShareGroupOffsetsRequestGroup]


class DescribeShareGroupOffsetsResponsePartition(TypedDict):
    partition_index: int
    start_offset: int
    leader_epoch: int
    lag: NotRequired[int]  # v1+
    error_code: int
    error_message: str | None


class DescribeShareGroupOffsetsResponseTopic(TypedDict):
    topic_name: str
    topic_id: bytes
    partitions: list[DescribeShareGroupOffsetsResponsePartition]


class DescribeShareGroupOffsetsResponseGroup(TypedDict):
    group_id: str
    topics: list[DescribeShareGroupOffsetsResponseTopic]
    error_code: int
    error_message: str | None


# api key 90, v0-1
class DescribeShareGroupOffsetsResponse(TypedDict):
    throttle_time_ms: int
    groups: list[DescribeShareGroupOffsetsResponseGroup]


class AlterShareGroupOffsetsRequestPartition(TypedDict):
    partition_index: int
    start_offset: int


class AlterShareGroupOffsetsRequestTopic(TypedDict):
    topic_name: str
    partitions: list[AlterShareGroupOffsetsRequestPartition]


# api key 91, v0
class AlterShareGroupOffsetsRequest(TypedDict):
    group_id: str
    topics: list[AlterShareGroupOffsetsRequestTopic]


class AlterShareGroupOffsetsResponsePartition(TypedDict):
    partition_index: int
    error_code: int
    error_message: str | None


class AlterShareGroupOffsetsResponseTopic(TypedDict):
    topic_name: str
    topic_id: bytes
    partitions: list[AlterShareGroupOffsetsResponsePartition]


# api key 91, v0
class AlterShareGroupOffsetsResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    responses: list[AlterShareGroupOffsetsResponseTopic]


class DeleteShareGroupOffsetsRequestTopic(TypedDict):
    topic_name: str


# api key 92, v0
class DeleteShareGroupOffsetsRequest(TypedDict):
    group_id: str
    topics: list[DeleteShareGroupOffsetsRequestTopic]


class DeleteShareGroupOffsetsResponseTopic(TypedDict):
    topic_name: str
    topic_id: bytes
    error_code: int
    error_message: str | None


# api key 92, v0
class DeleteShareGroupOffsetsResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    responses: list[DeleteShareGroupOffsetsResponseTopic]


class StreamsGroupTopologyDescriptionUpdateRequestTopologyDescriptionNode(TypedDict):
    name: str
    node_type: int
    source_topics: list[str]
    sink_topic: str | None
    stores: list[str]
    successors: list[str]


class StreamsGroupTopologyDescriptionUpdateRequestTopologyDescriptionSubtopology(TypedDict):
    subtopology_id: str
    nodes: list[StreamsGroupTopologyDescriptionUpdateRequestTopologyDescriptionNode]


class StreamsGroupTopologyDescriptionUpdateRequestTopologyDescriptionGlobalStore(TypedDict):
    source: StreamsGroupTopologyDescriptionUpdateRequestTopologyDescriptionNode
    processor: StreamsGroupTopologyDescriptionUpdateRequestTopologyDescriptionNode


class StreamsGroupTopologyDescriptionUpdateRequestTopologyDescription(TypedDict):
    subtopologies: list[StreamsGroupTopologyDescriptionUpdateRequestTopologyDescriptionSubtopology]
    global_stores: list[StreamsGroupTopologyDescriptionUpdateRequestTopologyDescriptionGlobalStore]


# api key 93, v0
class StreamsGroupTopologyDescriptionUpdateRequest(TypedDict):
    group_id: str
    member_id: str
    topology_epoch: int
    topology_description: StreamsGroupTopologyDescriptionUpdateRequestTopologyDescription


# api key 93, v0
class StreamsGroupTopologyDescriptionUpdateResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None


# api key 94, v0
class UnregisterControllerRequest(TypedDict):
    controller_id: int


# api key 94, v0
class UnregisterControllerResponse(TypedDict):
    throttle_time_ms: int
    error_code: int
    error_message: str | None


# v0
class AbortedTxn(TypedDict):
    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int


# api key 8, v0
class ConsumerGroupCurrentMemberAssignmentKey(TypedDict):
    group_id: str
    member_id: str


class ConsumerGroupCurrentMemberAssignmentValueTopicPartitions(TypedDict):
    topic_id: bytes
    partitions: list[int]
    assignment_epochs: NotRequired[list[int] | None]  # tagged, v0+


# api key 8, v0
class ConsumerGroupCurrentMemberAssignmentValue(TypedDict):
    member_epoch: int
    previous_member_epoch: int
    state: int
    assigned_partitions: list[ConsumerGroupCurrentMemberAssignmentValueTopicPartitions]
    partitions_pending_revocation: list[ConsumerGroupCurrentMemberAssignmentValueTopicPartitions]


# api key 5, v0
class ConsumerGroupMemberMetadataKey(TypedDict):
    group_id: str
    member_id: str


class ConsumerGroupMemberMetadataValueClassicProtocol(TypedDict):
    name: str
    metadata: bytes


class ConsumerGroupMemberMetadataValueClassicMemberMetadata(TypedDict):
    session_timeout_ms: int
    supported_protocols: list[ConsumerGroupMemberMetadataValueClassicProtocol]


# api key 5, v0
class ConsumerGroupMemberMetadataValue(TypedDict):
    instance_id: str | None
    rack_id: str | None
    client_id: str
    client_host: str
    subscribed_topic_names: list[str]
    subscribed_topic_regex: str | None
    rebalance_timeout_ms: int
    server_assignor: str | None
    classic_member_metadata: NotRequired[
        ConsumerGroupMemberMetadataValueClassicMemberMetadata | None
    ]  # tagged, v0+


# api key 3, v0
class ConsumerGroupMetadataKey(TypedDict):
    group_id: str


# api key 3, v0
class ConsumerGroupMetadataValue(TypedDict):
    epoch: int
    metadata_hash: NotRequired[int]  # tagged, v0+


# api key 4, v0
class ConsumerGroupPartitionMetadataKey(TypedDict):
    group_id: str


class ConsumerGroupPartitionMetadataValuePartitionMetadata(TypedDict):
    partition: int
    racks: list[str]


class ConsumerGroupPartitionMetadataValueTopicMetadata(TypedDict):
    topic_id: bytes
    topic_name: str
    num_partitions: int
    partition_metadata: list[ConsumerGroupPartitionMetadataValuePartitionMetadata]


# api key 4, v0
class ConsumerGroupPartitionMetadataValue(TypedDict):
    topics: list[ConsumerGroupPartitionMetadataValueTopicMetadata]


# api key 16, v0
class ConsumerGroupRegularExpressionKey(TypedDict):
    group_id: str
    regular_expression: str


# api key 16, v0
class ConsumerGroupRegularExpressionValue(TypedDict):
    topics: list[str]
    version: int
    timestamp: int


# api key 7, v0
class ConsumerGroupTargetAssignmentMemberKey(TypedDict):
    group_id: str
    member_id: str


class ConsumerGroupTargetAssignmentMemberValueTopicPartition(TypedDict):
    topic_id: bytes
    partitions: list[int]


# api key 7, v0
class ConsumerGroupTargetAssignmentMemberValue(TypedDict):
    topic_partitions: list[ConsumerGroupTargetAssignmentMemberValueTopicPartition]


# api key 6, v0
class ConsumerGroupTargetAssignmentMetadataKey(TypedDict):
    group_id: str


# api key 6, v0
class ConsumerGroupTargetAssignmentMetadataValue(TypedDict):
    assignment_epoch: int
    assignment_timestamp: NotRequired[int]  # tagged, v0+


class ConsumerProtocolAssignmentTopicPartition(TypedDict):
    topic: str
    partitions: list[int]


# v0-3
class ConsumerProtocolAssignment(TypedDict):
    assigned_partitions: list[ConsumerProtocolAssignmentTopicPartition]
    user_data: bytes | None


class ConsumerProtocolSubscriptionTopicPartition(TypedDict):
    topic: str
    partitions: list[int]


# v0-3
class ConsumerProtocolSubscription(TypedDict):
    topics: list[str]
    user_data: bytes | None
    owned_partitions: NotRequired[list[ConsumerProtocolSubscriptionTopicPartition]]  # v1+
    generation_id: NotRequired[int]  # v2+
    rack_id: NotRequired[str | None]  # v3+


# v0
class ControlRecordTypeSchema(TypedDict):
    type: int


# v0
class DefaultPrincipalData(TypedDict):
    type: str
    name: str
    token_authenticated: bool


# v0
class EndTxnMarker(TypedDict):
    coordinator_epoch: int


# api key 2, v0
class GroupMetadataKey(TypedDict):
    group: str


class GroupMetadataValueMemberMetadata(TypedDict):
    member_id: str
    group_instance_id: NotRequired[str | None]  # v3+
    client_id: str
    client_host: str
    rebalance_timeout: NotRequired[int]  # v1+
    session_timeout: int
    subscription: bytes
    assignment: bytes


# api key 2, v0-4
class GroupMetadataValue(TypedDict):
    protocol_type: str
    generation: int
    protocol: str | None
    leader: str | None
    current_state_timestamp: NotRequired[int]  # v2+
    members: list[GroupMetadataValueMemberMetadata]


# v0
class KRaftVersionRecord(TypedDict):
    version: int
    k_raft_version: int


class LeaderChangeMessageVoter(TypedDict):
    voter_id: int
    voter_directory_id: NotRequired[bytes]  # v1+


# v0-1
class LeaderChangeMessage(TypedDict):
    version: int
    leader_id: int
    voters: list[LeaderChangeMessageVoter]
    granting_voters: list[LeaderChangeMessageVoter]


# api key 0, v0
class LegacyOffsetCommitKey(TypedDict):
    group: str
    topic: str
    partition: int


# api key 0, v0
class LegacyOffsetCommitValue(TypedDict):
    offset: int
    metadata: str
    commit_timestamp: int


# api key 1, v0
class OffsetCommitKey(TypedDict):
    group: str
    topic: str
    partition: int


# api key 1, v0-4
class OffsetCommitValue(TypedDict):
    offset: int
    leader_epoch: NotRequired[int]  # v3+
    metadata: str
    commit_timestamp: int
    expire_timestamp: NotRequired[int]  # v1
    topic_id: NotRequired[bytes]  # tagged, v4+


class ProducerSnapshotProducerEntry(TypedDict):
    producer_id: int
    epoch: int
    last_sequence: int
    last_offset: int
    offset_delta: int
    timestamp: int
    coordinator_epoch: int
    current_txn_first_offset: int


# v1
class ProducerSnapshot(TypedDict):
    crc: int
    producer_entries: list[ProducerSnapshotProducerEntry]


# api key 14, v0
class ShareGroupCurrentMemberAssignmentKey(TypedDict):
    group_id: str
    member_id: str


class ShareGroupCurrentMemberAssignmentValueTopicPartitions(TypedDict):
    topic_id: bytes
    partitions: list[int]


# api key 14, v0
class ShareGroupCurrentMemberAssignmentValue(TypedDict):
    member_epoch: int
    previous_member_epoch: int
    state: int
    assigned_partitions: list[ShareGroupCurrentMemberAssignmentValueTopicPartitions]


# api key 10, v0
class ShareGroupMemberMetadataKey(TypedDict):
    group_id: str
    member_id: str


# api key 10, v0
class ShareGroupMemberMetadataValue(TypedDict):
    rack_id: str | None
    client_id: str
    client_host: str
    subscribed_topic_names: list[str]


# api key 11, v0
class ShareGroupMetadataKey(TypedDict):
    group_id: str


# api key 11, v0
class ShareGroupMetadataValue(TypedDict):
    epoch: int
    metadata_hash: int


# api key 15, v0
class ShareGroupStatePartitionMetadataKey(TypedDict):
    group_id: str


class ShareGroupStatePartitionMetadataValueTopicPartitionsInfo(TypedDict):
    topic_id: bytes
    topic_name: str
    partitions: list[int]


class ShareGroupStatePartitionMetadataValueTopicInfo(TypedDict):
    topic_id: bytes
    topic_name: str


# api key 15, v0
class ShareGroupStatePartitionMetadataValue(TypedDict):
    initializing_topics: list[ShareGroupStatePartitionMetadataValueTopicPartitionsInfo]
    initialized_topics: list[ShareGroupStatePartitionMetadataValueTopicPartitionsInfo]
    deleting_topics: list[ShareGroupStatePartitionMetadataValueTopicInfo]


# api key 13, v0
class ShareGroupTargetAssignmentMemberKey(TypedDict):
    group_id: str
    member_id: str


class ShareGroupTargetAssignmentMemberValueTopicPartition(TypedDict):
    topic_id: bytes
    partitions: list[int]


# api key 13, v0
class ShareGroupTargetAssignmentMemberValue(TypedDict):
    topic_partitions: list[ShareGroupTargetAssignmentMemberValueTopicPartition]


# api key 12, v0
class ShareGroupTargetAssignmentMetadataKey(TypedDict):
    group_id: str


# api key 12, v0
class ShareGroupTargetAssignmentMetadataValue(TypedDict):
    assignment_epoch: int
    assignment_timestamp: NotRequired[int]  # tagged, v0+


# api key 0, v0
class ShareSnapshotKey(TypedDict):
    group_id: str
    topic_id: bytes
    partition: int


class ShareSnapshotValueStateBatch(TypedDict):
    first_offset: int
    last_offset: int
    delivery_state: int
    delivery_count: int


# api key 0, v0
class ShareSnapshotValue(TypedDict):
    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    delivery_complete_count: NotRequired[int]  # tagged, v0+
    create_timestamp: int
    write_timestamp: int
    state_batches: list[ShareSnapshotValueStateBatch]


# api key 1, v0
class ShareUpdateKey(TypedDict):
    group_id: str
    topic_id: bytes
    partition: int


class ShareUpdateValueStateBatch(TypedDict):
    first_offset: int
    last_offset: int
    delivery_state: int
    delivery_count: int


# api key 1, v0
class ShareUpdateValue(TypedDict):
    snapshot_epoch: int
    leader_epoch: int
    start_offset: int
    delivery_complete_count: NotRequired[int]  # tagged, v0+
    state_batches: list[ShareUpdateValueStateBatch]


# v0
class SnapshotFooterRecord(TypedDict):
    version: int


# v0
class SnapshotHeaderRecord(TypedDict):
    version: int
    last_contained_log_timestamp: int


# api key 22, v0
class StreamsGroupCurrentMemberAssignmentKey(TypedDict):
    group_id: str
    member_id: str


class StreamsGroupCurrentMemberAssignmentValueTaskIds(TypedDict):
    subtopology_id: str
    partitions: list[int]
    assignment_epochs: NotRequired[list[int] | None]  # tagged, v0+


# api key 22, v0
class StreamsGroupCurrentMemberAssignmentValue(TypedDict):
    member_epoch: int
    previous_member_epoch: int
    state: int
    active_tasks: list[StreamsGroupCurrentMemberAssignmentValueTaskIds]
    standby_tasks: list[StreamsGroupCurrentMemberAssignmentValueTaskIds]
    warmup_tasks: list[StreamsGroupCurrentMemberAssignmentValueTaskIds]
    active_tasks_pending_revocation: list[StreamsGroupCurrentMemberAssignmentValueTaskIds]
    standby_tasks_pending_revocation: list[StreamsGroupCurrentMemberAssignmentValueTaskIds]
    warmup_tasks_pending_revocation: list[StreamsGroupCurrentMemberAssignmentValueTaskIds]


# api key 19, v0
class StreamsGroupMemberMetadataKey(TypedDict):
    group_id: str
    member_id: str


class StreamsGroupMemberMetadataValueEndpoint(TypedDict):
    host: str
    port: int


class StreamsGroupMemberMetadataValueKeyValue(TypedDict):
    key: str
    value: str


# api key 19, v0
class StreamsGroupMemberMetadataValue(TypedDict):
    instance_id: str | None
    rack_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    topology_epoch: int
    process_id: str
    user_endpoint: StreamsGroupMemberMetadataValueEndpoint | None
    client_tags: list[StreamsGroupMemberMetadataValueKeyValue]


# api key 17, v0
class StreamsGroupMetadataKey(TypedDict):
    group_id: str


class StreamsGroupMetadataValueLastAssignmentConfig(TypedDict):
    key: str
    value: str


# api key 17, v0
class StreamsGroupMetadataValue(TypedDict):
    epoch: int
    metadata_hash: int
    validated_topology_epoch: NotRequired[int]  # tagged, v0+
    last_assignment_configs: NotRequired[
        list[StreamsGroupMetadataValueLastAssignmentConfig] | None
    ]  # tagged, v0+
    stored_description_topology_epoch: NotRequired[int]  # tagged, v0+
    failed_description_topology_epoch: NotRequired[int]  # tagged, v0+


# api key 21, v0
class StreamsGroupTargetAssignmentMemberKey(TypedDict):
    group_id: str
    member_id: str


class StreamsGroupTargetAssignmentMemberValueTaskIds(TypedDict):
    subtopology_id: str
    partitions: list[int]


# api key 21, v0
class StreamsGroupTargetAssignmentMemberValue(TypedDict):
    active_tasks: list[StreamsGroupTargetAssignmentMemberValueTaskIds]
    standby_tasks: list[StreamsGroupTargetAssignmentMemberValueTaskIds]
    warmup_tasks: list[StreamsGroupTargetAssignmentMemberValueTaskIds]


# api key 20, v0
class StreamsGroupTargetAssignmentMetadataKey(TypedDict):
    group_id: str


# api key 20, v0
class StreamsGroupTargetAssignmentMetadataValue(TypedDict):
    assignment_epoch: int
    assignment_timestamp: NotRequired[int]  # tagged, v0+


# api key 23, v0
class StreamsGroupTopologyKey(TypedDict):
    group_id: str


class StreamsGroupTopologyValueTopicConfig(TypedDict):
    key: str
    value: str


class StreamsGroupTopologyValueTopicInfo(TypedDict):
    name: str
    partitions: int
    replication_factor: int
    topic_configs: list[StreamsGroupTopologyValueTopicConfig]


class StreamsGroupTopologyValueCopartitionGroup(TypedDict):
    source_topics: list[int]
    source_topic_regex: list[int]
    repartition_source_topics: list[int]


class StreamsGroupTopologyValueSubtopology(TypedDict):
    subtopology_id: str
    source_topics: list[str]
    source_topic_regex: list[str]
    state_changelog_topics: list[StreamsGroupTopologyValueTopicInfo]
    repartition_sink_topics: list[str]
    repartition_source_topics: list[StreamsGroupTopologyValueTopicInfo]
    copartition_groups: list[StreamsGroupTopologyValueCopartitionGroup]


# api key 23, v0
class StreamsGroupTopologyValue(TypedDict):
    epoch: int
    subtopologies: list[StreamsGroupTopologyValueSubtopology]


# api key 0, v0
class TransactionLogKey(TypedDict):
    transactional_id: str


class TransactionLogValuePartitionsSchema(TypedDict):
    topic: str
    partition_ids: list[int]


# api key 0, v0-1
class TransactionLogValue(TypedDict):
    producer_id: int
    previous_producer_id: NotRequired[int]  # tagged, v1+
    next_producer_id: NotRequired[int]  # tagged, v1+
    producer_epoch: int
    next_producer_epoch: NotRequired[int]  # tagged, v1+
    transaction_timeout_ms: int
    transaction_status: int
    transaction_partitions: list[TransactionLogValuePartitionsSchema] | None
    transaction_last_update_timestamp_ms: int
    transaction_start_timestamp_ms: int
    client_transaction_version: NotRequired[int]  # tagged, v1+


class VotersRecordEndpoint(TypedDict):
    name: str
    host: str
    port: int


class VotersRecordKRaftVersionFeature(TypedDict):
    min_supported_version: int
    max_supported_version: int


class VotersRecordVoter(TypedDict):
    voter_id: int
    voter_directory_id: bytes
    endpoints: list[VotersRecordEndpoint]
    k_raft_version_feature: VotersRecordKRaftVersionFeature


# v0
class VotersRecord(TypedDict):
    version: int
    voters: list[VotersRecordVoter]


Req = TypeVar("Req")
Resp = TypeVar("Resp")


class Api(Generic[Req, Resp]):
    """An API's key, typed with its request body (`Req`) and response body (`Resp`)."""

    def __init__(self, key: ApiKey) -> None:
        self.key = key


class Apis:
    """Each API typed: `Apis.METADATA` is an `Api[MetadataRequest, MetadataResponse]`."""

    PRODUCE = Api[ProduceRequest, ProduceResponse](ApiKey.PRODUCE)
    FETCH = Api[FetchRequest, FetchResponse](ApiKey.FETCH)
    LIST_OFFSETS = Api[ListOffsetsRequest, ListOffsetsResponse](ApiKey.LIST_OFFSETS)
    METADATA = Api[MetadataRequest, MetadataResponse](ApiKey.METADATA)
    OFFSET_COMMIT = Api[OffsetCommitRequest, OffsetCommitResponse](ApiKey.OFFSET_COMMIT)
    OFFSET_FETCH = Api[OffsetFetchRequest, OffsetFetchResponse](ApiKey.OFFSET_FETCH)
    FIND_COORDINATOR = Api[FindCoordinatorRequest, FindCoordinatorResponse](ApiKey.FIND_COORDINATOR)
    JOIN_GROUP = Api[JoinGroupRequest, JoinGroupResponse](ApiKey.JOIN_GROUP)
    HEARTBEAT = Api[HeartbeatRequest, HeartbeatResponse](ApiKey.HEARTBEAT)
    LEAVE_GROUP = Api[LeaveGroupRequest, LeaveGroupResponse](ApiKey.LEAVE_GROUP)
    SYNC_GROUP = Api[SyncGroupRequest, SyncGroupResponse](ApiKey.SYNC_GROUP)
    DESCRIBE_GROUPS = Api[DescribeGroupsRequest, DescribeGroupsResponse](ApiKey.DESCRIBE_GROUPS)
    LIST_GROUPS = Api[ListGroupsRequest, ListGroupsResponse](ApiKey.LIST_GROUPS)
    SASL_HANDSHAKE = Api[SaslHandshakeRequest, SaslHandshakeResponse](ApiKey.SASL_HANDSHAKE)
    API_VERSIONS = Api[ApiVersionsRequest, ApiVersionsResponse](ApiKey.API_VERSIONS)
    CREATE_TOPICS = Api[CreateTopicsRequest, CreateTopicsResponse](ApiKey.CREATE_TOPICS)
    DELETE_TOPICS = Api[DeleteTopicsRequest, DeleteTopicsResponse](ApiKey.DELETE_TOPICS)
    DELETE_RECORDS = Api[DeleteRecordsRequest, DeleteRecordsResponse](ApiKey.DELETE_RECORDS)
    INIT_PRODUCER_ID = Api[InitProducerIdRequest, InitProducerIdResponse](ApiKey.INIT_PRODUCER_ID)
    OFFSET_FOR_LEADER_EPOCH = Api[OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse](
        ApiKey.OFFSET_FOR_LEADER_EPOCH
    )
    ADD_PARTITIONS_TO_TXN = Api[AddPartitionsToTxnRequest, AddPartitionsToTxnResponse](
        ApiKey.ADD_PARTITIONS_TO_TXN
    )
    ADD_OFFSETS_TO_TXN = Api[AddOffsetsToTxnRequest, AddOffsetsToTxnResponse](
        ApiKey.ADD_OFFSETS_TO_TXN
    )
    END_TXN = Api[EndTxnRequest, EndTxnResponse](ApiKey.END_TXN)
    WRITE_TXN_MARKERS = Api[WriteTxnMarkersRequest, WriteTxnMarkersResponse](
        ApiKey.WRITE_TXN_MARKERS
    )
    TXN_OFFSET_COMMIT = Api[TxnOffsetCommitRequest, TxnOffsetCommitResponse](
        ApiKey.TXN_OFFSET_COMMIT
    )
    DESCRIBE_ACLS = Api[DescribeAclsRequest, DescribeAclsResponse](ApiKey.DESCRIBE_ACLS)
    CREATE_ACLS = Api[CreateAclsRequest, CreateAclsResponse](ApiKey.CREATE_ACLS)
    DELETE_ACLS = Api[DeleteAclsRequest, DeleteAclsResponse](ApiKey.DELETE_ACLS)
    DESCRIBE_CONFIGS = Api[DescribeConfigsRequest, DescribeConfigsResponse](ApiKey.DESCRIBE_CONFIGS)
    ALTER_CONFIGS = Api[AlterConfigsRequest, AlterConfigsResponse](ApiKey.ALTER_CONFIGS)
    ALTER_REPLICA_LOG_DIRS = Api[AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse](
        ApiKey.ALTER_REPLICA_LOG_DIRS
    )
    DESCRIBE_LOG_DIRS = Api[DescribeLogDirsRequest, DescribeLogDirsResponse](
        ApiKey.DESCRIBE_LOG_DIRS
    )
    SASL_AUTHENTICATE = Api[SaslAuthenticateRequest, SaslAuthenticateResponse](
        ApiKey.SASL_AUTHENTICATE
    )
    CREATE_PARTITIONS = Api[CreatePartitionsRequest, CreatePartitionsResponse](
        ApiKey.CREATE_PARTITIONS
    )
    CREATE_DELEGATION_TOKEN = Api[CreateDelegationTokenRequest, CreateDelegationTokenResponse](
        ApiKey.CREATE_DELEGATION_TOKEN
    )
    RENEW_DELEGATION_TOKEN = Api[RenewDelegationTokenRequest, RenewDelegationTokenResponse](
        ApiKey.RENEW_DELEGATION_TOKEN
    )
    EXPIRE_DELEGATION_TOKEN = Api[ExpireDelegationTokenRequest, ExpireDelegationTokenResponse](
        ApiKey.EXPIRE_DELEGATION_TOKEN
    )
    DESCRIBE_DELEGATION_TOKEN = Api[
        DescribeDelegationTokenRequest, DescribeDelegationTokenResponse
    ](ApiKey.DESCRIBE_DELEGATION_TOKEN)
    DELETE_GROUPS = Api[DeleteGroupsRequest, DeleteGroupsResponse](ApiKey.DELETE_GROUPS)
    ELECT_LEADERS = Api[ElectLeadersRequest, ElectLeadersResponse](ApiKey.ELECT_LEADERS)
    INCREMENTAL_ALTER_CONFIGS = Api[
        IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse
    ](ApiKey.INCREMENTAL_ALTER_CONFIGS)
    ALTER_PARTITION_REASSIGNMENTS = Api[
        AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse
    ](ApiKey.ALTER_PARTITION_REASSIGNMENTS)
    LIST_PARTITION_REASSIGNMENTS = Api[
        ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse
    ](ApiKey.LIST_PARTITION_REASSIGNMENTS)
    OFFSET_DELETE = Api[OffsetDeleteRequest, OffsetDeleteResponse](ApiKey.OFFSET_DELETE)
    DESCRIBE_CLIENT_QUOTAS = Api[DescribeClientQuotasRequest, DescribeClientQuotasResponse](
        ApiKey.DESCRIBE_CLIENT_QUOTAS
    )
    ALTER_CLIENT_QUOTAS = Api[AlterClientQuotasRequest, AlterClientQuotasResponse](
        ApiKey.ALTER_CLIENT_QUOTAS
    )
    DESCRIBE_USER_SCRAM_CREDENTIALS = Api[
        DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse
    ](ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS)
    ALTER_USER_SCRAM_CREDENTIALS = Api[
        AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse
    ](ApiKey.ALTER_USER_SCRAM_CREDENTIALS)
    VOTE = Api[VoteRequest, VoteResponse](ApiKey.VOTE)
    BEGIN_QUORUM_EPOCH = Api[BeginQuorumEpochRequest, BeginQuorumEpochResponse](
        ApiKey.BEGIN_QUORUM_EPOCH
    )
    END_QUORUM_EPOCH = Api[EndQuorumEpochRequest, EndQuorumEpochResponse](ApiKey.END_QUORUM_EPOCH)
    DESCRIBE_QUORUM = Api[DescribeQuorumRequest, DescribeQuorumResponse](ApiKey.DESCRIBE_QUORUM)
    ALTER_PARTITION = Api[AlterPartitionRequest, AlterPartitionResponse](ApiKey.ALTER_PARTITION)
    UPDATE_FEATURES = Api[UpdateFeaturesRequest, UpdateFeaturesResponse](ApiKey.UPDATE_FEATURES)
    ENVELOPE = Api[EnvelopeRequest, EnvelopeResponse](ApiKey.ENVELOPE)
    FETCH_SNAPSHOT = Api[FetchSnapshotRequest, FetchSnapshotResponse](ApiKey.FETCH_SNAPSHOT)
    DESCRIBE_CLUSTER = Api[DescribeClusterRequest, DescribeClusterResponse](ApiKey.DESCRIBE_CLUSTER)
    DESCRIBE_PRODUCERS = Api[DescribeProducersRequest, DescribeProducersResponse](
        ApiKey.DESCRIBE_PRODUCERS
    )
    BROKER_REGISTRATION = Api[BrokerRegistrationRequest, BrokerRegistrationResponse](
        ApiKey.BROKER_REGISTRATION
    )
    BROKER_HEARTBEAT = Api[BrokerHeartbeatRequest, BrokerHeartbeatResponse](ApiKey.BROKER_HEARTBEAT)
    UNREGISTER_BROKER = Api[UnregisterBrokerRequest, UnregisterBrokerResponse](
        ApiKey.UNREGISTER_BROKER
    )
    DESCRIBE_TRANSACTIONS = Api[DescribeTransactionsRequest, DescribeTransactionsResponse](
        ApiKey.DESCRIBE_TRANSACTIONS
    )
    LIST_TRANSACTIONS = Api[ListTransactionsRequest, ListTransactionsResponse](
        ApiKey.LIST_TRANSACTIONS
    )
    ALLOCATE_PRODUCER_IDS = Api[AllocateProducerIdsRequest, AllocateProducerIdsResponse](
        ApiKey.ALLOCATE_PRODUCER_IDS
    )
    CONSUMER_GROUP_HEARTBEAT = Api[ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse](
        ApiKey.CONSUMER_GROUP_HEARTBEAT
    )
    CONSUMER_GROUP_DESCRIBE = Api[ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse](
        ApiKey.CONSUMER_GROUP_DESCRIBE
    )
    CONTROLLER_REGISTRATION = Api[ControllerRegistrationRequest, ControllerRegistrationResponse](
        ApiKey.CONTROLLER_REGISTRATION
    )
    GET_TELEMETRY_SUBSCRIPTIONS = Api[
        GetTelemetrySubscriptionsRequest, GetTelemetrySubscriptionsResponse
    ](ApiKey.GET_TELEMETRY_SUBSCRIPTIONS)
    PUSH_TELEMETRY = Api[PushTelemetryRequest, PushTelemetryResponse](ApiKey.PUSH_TELEMETRY)
    ASSIGN_REPLICAS_TO_DIRS = Api[AssignReplicasToDirsRequest, AssignReplicasToDirsResponse](
        ApiKey.ASSIGN_REPLICAS_TO_DIRS
    )
    LIST_CONFIG_RESOURCES = Api[ListConfigResourcesRequest, ListConfigResourcesResponse](
        ApiKey.LIST_CONFIG_RESOURCES
    )
    DESCRIBE_TOPIC_PARTITIONS = Api[
        DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse
    ](ApiKey.DESCRIBE_TOPIC_PARTITIONS)
    SHARE_GROUP_HEARTBEAT = Api[ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse](
        ApiKey.SHARE_GROUP_HEARTBEAT
    )
    SHARE_GROUP_DESCRIBE = Api[ShareGroupDescribeRequest, ShareGroupDescribeResponse](
        ApiKey.SHARE_GROUP_DESCRIBE
    )
    SHARE_FETCH = Api[ShareFetchRequest, ShareFetchResponse](ApiKey.SHARE_FETCH)
    SHARE_ACKNOWLEDGE = Api[ShareAcknowledgeRequest, ShareAcknowledgeResponse](
        ApiKey.SHARE_ACKNOWLEDGE
    )
    ADD_RAFT_VOTER = Api[AddRaftVoterRequest, AddRaftVoterResponse](ApiKey.ADD_RAFT_VOTER)
    REMOVE_RAFT_VOTER = Api[RemoveRaftVoterRequest, RemoveRaftVoterResponse](
        ApiKey.REMOVE_RAFT_VOTER
    )
    UPDATE_RAFT_VOTER = Api[UpdateRaftVoterRequest, UpdateRaftVoterResponse](
        ApiKey.UPDATE_RAFT_VOTER
    )
    INITIALIZE_SHARE_GROUP_STATE = Api[
        InitializeShareGroupStateRequest, InitializeShareGroupStateResponse
    ](ApiKey.INITIALIZE_SHARE_GROUP_STATE)
    READ_SHARE_GROUP_STATE = Api[ReadShareGroupStateRequest, ReadShareGroupStateResponse](
        ApiKey.READ_SHARE_GROUP_STATE
    )
    WRITE_SHARE_GROUP_STATE = Api[WriteShareGroupStateRequest, WriteShareGroupStateResponse](
        ApiKey.WRITE_SHARE_GROUP_STATE
    )
    DELETE_SHARE_GROUP_STATE = Api[DeleteShareGroupStateRequest, DeleteShareGroupStateResponse](
        ApiKey.DELETE_SHARE_GROUP_STATE
    )
    READ_SHARE_GROUP_STATE_SUMMARY = Api[
        ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse
    ](ApiKey.READ_SHARE_GROUP_STATE_SUMMARY)
    STREAMS_GROUP_HEARTBEAT = Api[StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse](
        ApiKey.STREAMS_GROUP_HEARTBEAT
    )
    STREAMS_GROUP_DESCRIBE = Api[StreamsGroupDescribeRequest, StreamsGroupDescribeResponse](
        ApiKey.STREAMS_GROUP_DESCRIBE
    )
    DESCRIBE_SHARE_GROUP_OFFSETS = Api[
        DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse
    ](ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS)
    ALTER_SHARE_GROUP_OFFSETS = Api[AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse](
        ApiKey.ALTER_SHARE_GROUP_OFFSETS
    )
    DELETE_SHARE_GROUP_OFFSETS = Api[
        DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse
    ](ApiKey.DELETE_SHARE_GROUP_OFFSETS)
    STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE = Api[
        StreamsGroupTopologyDescriptionUpdateRequest, StreamsGroupTopologyDescriptionUpdateResponse
    ](ApiKey.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE)
    UNREGISTER_CONTROLLER = Api[UnregisterControllerRequest, UnregisterControllerResponse](
        ApiKey.UNREGISTER_CONTROLLER
    )
