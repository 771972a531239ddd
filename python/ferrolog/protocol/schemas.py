# generated - do not edit; regenerate with `python -m ferrolog.protocol.generate`
# content sha256: d14379c389083db2eada1bf358a24b71720c9fe9a98cf642129895d866a262c7
# schemas sha256: 8205adbf27f4395dce11e021b6ed8f1ea24903d1c739f08023b90988b5aaa6e1
# from Kafka's message schemas (messages/*.json, internal/*/*.json).
# message = (name, api_key, valid_versions, flexible_versions, fields)
# field = (name, type, versions, nullable_versions, tag, tagged_versions, default,
#          flexible_versions, fields); version ranges are (low, high) or None.
from typing import Any

REQUESTS: dict[int, Any] = {
    0: ('ProduceRequest', 0, (3, 13), (9, 32767), (
        ('transactional_id', 'string', (3, 32767), (3, 32767), None, None, None, None, None),
        ('acks', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('timeout_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('topic_data', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 12), None, None, None, '', None, None),
            ('topic_id', 'uuid', (13, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partition_data', '[]struct', (0, 32767), None, None, None, (), None, (
                ('index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('records', 'records', (0, 32767), (0, 32767), None, None, None, None, None),
            )),
        )),
    )),
    1: ('FetchRequest', 1, (4, 18), (12, 32767), (
        ('cluster_id', 'string', (12, 32767), (12, 32767), 0, (12, 32767), None, None, None),
        ('replica_id', 'int32', (0, 14), None, None, None, -1, None, None),
        ('replica_state', 'struct', (15, 32767), None, 1, (15, 32767), {}, None, (
            ('replica_id', 'int32', (15, 32767), None, None, None, -1, None, None),
            ('replica_epoch', 'int64', (15, 32767), None, None, None, -1, None, None),
        )),
        ('max_wait_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('min_bytes', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('max_bytes', 'int32', (3, 32767), None, None, None, 2147483647, None, None),
        ('isolation_level', 'int8', (4, 32767), None, None, None, 0, None, None),
        ('session_id', 'int32', (7, 32767), None, None, None, 0, None, None),
        ('session_epoch', 'int32', (7, 32767), None, None, None, -1, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic', 'string', (0, 12), None, None, None, '', None, None),
            ('topic_id', 'uuid', (13, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('current_leader_epoch', 'int32', (9, 32767), None, None, None, -1, None, None),
                ('fetch_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('last_fetched_epoch', 'int32', (12, 32767), None, None, None, -1, None, None),
                ('log_start_offset', 'int64', (5, 32767), None, None, None, -1, None, None),
                ('partition_max_bytes', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('replica_directory_id', 'uuid', (17, 32767), None, 0, (17, 32767), b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                ('high_watermark', 'int64', (18, 32767), None, 1, (18, 32767), 9223372036854775807, None, None),
            )),
        )),
        ('forgotten_topics_data', '[]struct', (7, 32767), None, None, None, (), None, (
            ('topic', 'string', (7, 12), None, None, None, '', None, None),
            ('topic_id', 'uuid', (13, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]int32', (7, 32767), None, None, None, (), None, None),
        )),
        ('rack_id', 'string', (11, 32767), None, None, None, '', None, None),
    )),
    2: ('ListOffsetsRequest', 2, (1, 11), (6, 32767), (
        ('replica_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('isolation_level', 'int8', (2, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('current_leader_epoch', 'int32', (4, 32767), None, None, None, -1, None, None),
                ('timestamp', 'int64', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
        ('timeout_ms', 'int32', (10, 32767), None, None, None, 0, None, None),
    )),
    3: ('MetadataRequest', 3, (0, 13), (9, 32767), (
        ('topics', '[]struct', (0, 32767), (1, 32767), None, None, (), None, (
            ('topic_id', 'uuid', (10, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('name', 'string', (0, 32767), (10, 32767), None, None, '', None, None),
        )),
        ('allow_auto_topic_creation', 'bool', (4, 32767), None, None, None, True, None, None),
        ('include_cluster_authorized_operations', 'bool', (8, 10), None, None, None, False, None, None),
        ('include_topic_authorized_operations', 'bool', (8, 32767), None, None, None, False, None, None),
    )),
    8: ('OffsetCommitRequest', 8, (2, 10), (8, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('generation_id_or_member_epoch', 'int32', (1, 32767), None, None, None, -1, None, None),
        ('member_id', 'string', (1, 32767), None, None, None, '', None, None),
        ('group_instance_id', 'string', (7, 32767), (7, 32767), None, None, None, None, None),
        ('retention_time_ms', 'int64', (2, 4), None, None, None, -1, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 9), None, None, None, '', None, None),
            ('topic_id', 'uuid', (10, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('committed_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('committed_leader_epoch', 'int32', (6, 32767), None, None, None, -1, None, None),
                ('committed_metadata', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            )),
        )),
    )),
    9: ('OffsetFetchRequest', 9, (1, 10), (6, 32767), (
        ('group_id', 'string', (0, 7), None, None, None, '', None, None),
        ('topics', '[]struct', (0, 7), (2, 7), None, None, (), None, (
            ('name', 'string', (0, 7), None, None, None, '', None, None),
            ('partition_indexes', '[]int32', (0, 7), None, None, None, (), None, None),
        )),
        ('groups', '[]struct', (8, 32767), None, None, None, (), None, (
            ('group_id', 'string', (8, 32767), None, None, None, '', None, None),
            ('member_id', 'string', (9, 32767), (9, 32767), None, None, None, None, None),
            ('member_epoch', 'int32', (9, 32767), None, None, None, -1, None, None),
            ('topics', '[]struct', (8, 32767), (8, 32767), None, None, (), None, (
                ('name', 'string', (8, 9), None, None, None, '', None, None),
                ('topic_id', 'uuid', (10, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                ('partition_indexes', '[]int32', (8, 32767), None, None, None, (), None, None),
            )),
        )),
        ('require_stable', 'bool', (7, 32767), None, None, None, False, None, None),
    )),
    10: ('FindCoordinatorRequest', 10, (0, 6), (3, 32767), (
        ('key', 'string', (0, 3), None, None, None, '', None, None),
        ('key_type', 'int8', (1, 32767), None, None, None, 0, None, None),
        ('coordinator_keys', '[]string', (4, 32767), None, None, None, (), None, None),
    )),
    11: ('JoinGroupRequest', 11, (0, 9), (6, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('session_timeout_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('rebalance_timeout_ms', 'int32', (1, 32767), None, None, None, -1, None, None),
        ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('group_instance_id', 'string', (5, 32767), (5, 32767), None, None, None, None, None),
        ('protocol_type', 'string', (0, 32767), None, None, None, '', None, None),
        ('protocols', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('metadata', 'bytes', (0, 32767), None, None, None, b'', None, None),
        )),
        ('reason', 'string', (8, 32767), (8, 32767), None, None, None, None, None),
    )),
    12: ('HeartbeatRequest', 12, (0, 4), (4, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('generation_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, None, None, None),
    )),
    13: ('LeaveGroupRequest', 13, (0, 5), (4, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('member_id', 'string', (0, 2), None, None, None, '', None, None),
        ('members', '[]struct', (3, 32767), None, None, None, (), None, (
            ('member_id', 'string', (3, 32767), None, None, None, '', None, None),
            ('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, None, None, None),
            ('reason', 'string', (5, 32767), (5, 32767), None, None, None, None, None),
        )),
    )),
    14: ('SyncGroupRequest', 14, (0, 5), (4, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('generation_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, None, None, None),
        ('protocol_type', 'string', (5, 32767), (5, 32767), None, None, None, None, None),
        ('protocol_name', 'string', (5, 32767), (5, 32767), None, None, None, None, None),
        ('assignments', '[]struct', (0, 32767), None, None, None, (), None, (
            ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('assignment', 'bytes', (0, 32767), None, None, None, b'', None, None),
        )),
    )),
    15: ('DescribeGroupsRequest', 15, (0, 6), (5, 32767), (
        ('groups', '[]string', (0, 32767), None, None, None, (), None, None),
        ('include_authorized_operations', 'bool', (3, 32767), None, None, None, False, None, None),
    )),
    16: ('ListGroupsRequest', 16, (0, 5), (3, 32767), (
        ('states_filter', '[]string', (4, 32767), None, None, None, (), None, None),
        ('types_filter', '[]string', (5, 32767), None, None, None, (), None, None),
    )),
    17: ('SaslHandshakeRequest', 17, (0, 1), None, (
        ('mechanism', 'string', (0, 32767), None, None, None, '', None, None),
    )),
    18: ('ApiVersionsRequest', 18, (0, 5), (3, 32767), (
        ('client_software_name', 'string', (3, 32767), None, None, None, '', None, None),
        ('client_software_version', 'string', (3, 32767), None, None, None, '', None, None),
        ('cluster_id', 'string', (5, 32767), (5, 32767), None, None, None, None, None),
        ('node_id', 'int32', (5, 32767), None, None, None, -1, None, None),
    )),
    19: ('CreateTopicsRequest', 19, (2, 7), (5, 32767), (
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('num_partitions', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('replication_factor', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('assignments', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('broker_ids', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
            ('configs', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('value', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            )),
        )),
        ('timeout_ms', 'int32', (0, 32767), None, None, None, 60000, None, None),
        ('validate_only', 'bool', (1, 32767), None, None, None, False, None, None),
    )),
    20: ('DeleteTopicsRequest', 20, (1, 6), (4, 32767), (
        ('topics', '[]struct', (6, 32767), None, None, None, (), None, (
            ('name', 'string', (6, 32767), (6, 32767), None, None, None, None, None),
            ('topic_id', 'uuid', (6, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
        )),
        ('topic_names', '[]string', (0, 5), None, None, None, (), None, None),
        ('timeout_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
    )),
    21: ('DeleteRecordsRequest', 21, (0, 2), (2, 32767), (
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('offset', 'int64', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
        ('timeout_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
    )),
    22: ('InitProducerIdRequest', 22, (0, 6), (2, 32767), (
        ('transactional_id', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('transaction_timeout_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('producer_id', 'int64', (3, 32767), None, None, None, -1, None, None),
        ('producer_epoch', 'int16', (3, 32767), None, None, None, -1, None, None),
        ('enable2_pc', 'bool', (6, 32767), None, None, None, False, None, None),
        ('keep_prepared_txn', 'bool', (6, 32767), None, None, None, False, None, None),
    )),
    23: ('OffsetForLeaderEpochRequest', 23, (2, 4), (4, 32767), (
        ('replica_id', 'int32', (3, 32767), None, None, None, -2, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('current_leader_epoch', 'int32', (2, 32767), None, None, None, -1, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    24: ('AddPartitionsToTxnRequest', 24, (0, 5), (3, 32767), (
        ('transactions', '[]struct', (4, 32767), None, None, None, (), None, (
            ('transactional_id', 'string', (4, 32767), None, None, None, '', None, None),
            ('producer_id', 'int64', (4, 32767), None, None, None, 0, None, None),
            ('producer_epoch', 'int16', (4, 32767), None, None, None, 0, None, None),
            ('verify_only', 'bool', (4, 32767), None, None, None, False, None, None),
            ('topics', '[]struct', (4, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
        )),
        ('v3_and_below_transactional_id', 'string', (0, 3), None, None, None, '', None, None),
        ('v3_and_below_producer_id', 'int64', (0, 3), None, None, None, 0, None, None),
        ('v3_and_below_producer_epoch', 'int16', (0, 3), None, None, None, 0, None, None),
        ('v3_and_below_topics', '[]struct', (0, 3), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
    )),
    25: ('AddOffsetsToTxnRequest', 25, (0, 4), (3, 32767), (
        ('transactional_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('producer_id', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('producer_epoch', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
    )),
    26: ('EndTxnRequest', 26, (0, 5), (3, 32767), (
        ('transactional_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('producer_id', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('producer_epoch', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('committed', 'bool', (0, 32767), None, None, None, False, None, None),
    )),
    27: ('WriteTxnMarkersRequest', 27, (1, 2), (1, 32767), (
        ('markers', '[]struct', (0, 32767), None, None, None, (), None, (
            ('producer_id', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('producer_epoch', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('transaction_result', 'bool', (0, 32767), None, None, None, False, None, None),
            ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('partition_indexes', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
            ('coordinator_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('transaction_version', 'int8', (2, 32767), None, None, None, 0, None, None),
        )),
    )),
    28: ('TxnOffsetCommitRequest', 28, (0, 6), (3, 32767), (
        ('transactional_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('producer_id', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('producer_epoch', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('generation_id_or_member_epoch', 'int32', (3, 32767), None, None, None, -1, None, None),
        ('member_id', 'string', (3, 32767), None, None, None, '', None, None),
        ('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, None, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 5), None, None, None, '', None, None),
            ('topic_id', 'uuid', (6, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('committed_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('committed_leader_epoch', 'int32', (2, 32767), None, None, None, -1, None, None),
                ('committed_metadata', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            )),
        )),
    )),
    29: ('DescribeAclsRequest', 29, (1, 3), (2, 32767), (
        ('resource_type_filter', 'int8', (0, 32767), None, None, None, 0, None, None),
        ('resource_name_filter', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('pattern_type_filter', 'int8', (1, 32767), None, None, None, 3, None, None),
        ('principal_filter', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('host_filter', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('operation', 'int8', (0, 32767), None, None, None, 0, None, None),
        ('permission_type', 'int8', (0, 32767), None, None, None, 0, None, None),
    )),
    30: ('CreateAclsRequest', 30, (1, 3), (2, 32767), (
        ('creations', '[]struct', (0, 32767), None, None, None, (), None, (
            ('resource_type', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('resource_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('resource_pattern_type', 'int8', (1, 32767), None, None, None, 3, None, None),
            ('principal', 'string', (0, 32767), None, None, None, '', None, None),
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('operation', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('permission_type', 'int8', (0, 32767), None, None, None, 0, None, None),
        )),
    )),
    31: ('DeleteAclsRequest', 31, (1, 3), (2, 32767), (
        ('filters', '[]struct', (0, 32767), None, None, None, (), None, (
            ('resource_type_filter', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('resource_name_filter', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            ('pattern_type_filter', 'int8', (1, 32767), None, None, None, 3, None, None),
            ('principal_filter', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            ('host_filter', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            ('operation', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('permission_type', 'int8', (0, 32767), None, None, None, 0, None, None),
        )),
    )),
    32: ('DescribeConfigsRequest', 32, (1, 4), (4, 32767), (
        ('resources', '[]struct', (0, 32767), None, None, None, (), None, (
            ('resource_type', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('resource_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('configuration_keys', '[]string', (0, 32767), (0, 32767), None, None, (), None, None),
        )),
        ('include_synonyms', 'bool', (1, 32767), None, None, None, False, None, None),
        ('include_documentation', 'bool', (3, 32767), None, None, None, False, None, None),
    )),
    33: ('AlterConfigsRequest', 33, (0, 2), (2, 32767), (
        ('resources', '[]struct', (0, 32767), None, None, None, (), None, (
            ('resource_type', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('resource_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('configs', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('value', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            )),
        )),
        ('validate_only', 'bool', (0, 32767), None, None, None, False, None, None),
    )),
    34: ('AlterReplicaLogDirsRequest', 34, (1, 2), (2, 32767), (
        ('dirs', '[]struct', (0, 32767), None, None, None, (), None, (
            ('path', 'string', (0, 32767), None, None, None, '', None, None),
            ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
        )),
    )),
    35: ('DescribeLogDirsRequest', 35, (1, 5), (2, 32767), (
        ('topics', '[]struct', (0, 32767), (0, 32767), None, None, (), None, (
            ('topic', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
    )),
    36: ('SaslAuthenticateRequest', 36, (0, 2), (2, 32767), (
        ('auth_bytes', 'bytes', (0, 32767), None, None, None, b'', None, None),
    )),
    37: ('CreatePartitionsRequest', 37, (0, 3), (2, 32767), (
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('count', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('assignments', '[]struct', (0, 32767), (0, 32767), None, None, (), None, (
                ('broker_ids', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
        )),
        ('timeout_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('validate_only', 'bool', (0, 32767), None, None, None, False, None, None),
    )),
    38: ('CreateDelegationTokenRequest', 38, (1, 3), (2, 32767), (
        ('owner_principal_type', 'string', (3, 32767), (3, 32767), None, None, '', None, None),
        ('owner_principal_name', 'string', (3, 32767), (3, 32767), None, None, '', None, None),
        ('renewers', '[]struct', (0, 32767), None, None, None, (), None, (
            ('principal_type', 'string', (0, 32767), None, None, None, '', None, None),
            ('principal_name', 'string', (0, 32767), None, None, None, '', None, None),
        )),
        ('max_lifetime_ms', 'int64', (0, 32767), None, None, None, 0, None, None),
    )),
    39: ('RenewDelegationTokenRequest', 39, (1, 2), (2, 32767), (
        ('hmac', 'bytes', (0, 32767), None, None, None, b'', None, None),
        ('renew_period_ms', 'int64', (0, 32767), None, None, None, 0, None, None),
    )),
    40: ('ExpireDelegationTokenRequest', 40, (1, 2), (2, 32767), (
        ('hmac', 'bytes', (0, 32767), None, None, None, b'', None, None),
        ('expiry_time_period_ms', 'int64', (0, 32767), None, None, None, 0, None, None),
    )),
    41: ('DescribeDelegationTokenRequest', 41, (1, 3), (2, 32767), (
        ('owners', '[]struct', (0, 32767), (0, 32767), None, None, (), None, (
            ('principal_type', 'string', (0, 32767), None, None, None, '', None, None),
            ('principal_name', 'string', (0, 32767), None, None, None, '', None, None),
        )),
    )),
    42: ('DeleteGroupsRequest', 42, (0, 3), (2, 32767), (
        ('groups_names', '[]string', (0, 32767), None, None, None, (), None, None),
    )),
    43: ('ElectLeadersRequest', 43, (0, 2), (2, 32767), (
        ('election_type', 'int8', (1, 32767), None, None, None, 0, None, None),
        ('topic_partitions', '[]struct', (0, 32767), (0, 32767), None, None, (), None, (
            ('topic', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('timeout_ms', 'int32', (0, 32767), None, None, None, 60000, None, None),
    )),
    44: ('IncrementalAlterConfigsRequest', 44, (0, 1), (1, 32767), (
        ('resources', '[]struct', (0, 32767), None, None, None, (), None, (
            ('resource_type', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('resource_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('configs', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('config_operation', 'int8', (0, 32767), None, None, None, 0, None, None),
                ('value', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            )),
        )),
        ('validate_only', 'bool', (0, 32767), None, None, None, False, None, None),
    )),
    45: ('AlterPartitionReassignmentsRequest', 45, (0, 1), (0, 32767), (
        ('timeout_ms', 'int32', (0, 32767), None, None, None, 60000, None, None),
        ('allow_replication_factor_change', 'bool', (1, 32767), None, None, None, True, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('replicas', '[]int32', (0, 32767), (0, 32767), None, None, None, None, None),
            )),
        )),
    )),
    46: ('ListPartitionReassignmentsRequest', 46, (0, 0), (0, 32767), (
        ('timeout_ms', 'int32', (0, 32767), None, None, None, 60000, None, None),
        ('topics', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partition_indexes', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
    )),
    47: ('OffsetDeleteRequest', 47, (0, 0), None, (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    48: ('DescribeClientQuotasRequest', 48, (0, 1), (1, 32767), (
        ('components', '[]struct', (0, 32767), None, None, None, (), None, (
            ('entity_type', 'string', (0, 32767), None, None, None, '', None, None),
            ('match_type', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('match', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        )),
        ('strict', 'bool', (0, 32767), None, None, None, False, None, None),
    )),
    49: ('AlterClientQuotasRequest', 49, (0, 1), (1, 32767), (
        ('entries', '[]struct', (0, 32767), None, None, None, (), None, (
            ('entity', '[]struct', (0, 32767), None, None, None, (), None, (
                ('entity_type', 'string', (0, 32767), None, None, None, '', None, None),
                ('entity_name', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            )),
            ('ops', '[]struct', (0, 32767), None, None, None, (), None, (
                ('key', 'string', (0, 32767), None, None, None, '', None, None),
                ('value', 'float64', (0, 32767), None, None, None, 0.0, None, None),
                ('remove', 'bool', (0, 32767), None, None, None, False, None, None),
            )),
        )),
        ('validate_only', 'bool', (0, 32767), None, None, None, False, None, None),
    )),
    50: ('DescribeUserScramCredentialsRequest', 50, (0, 0), (0, 32767), (
        ('users', '[]struct', (0, 32767), (0, 32767), None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
        )),
    )),
    51: ('AlterUserScramCredentialsRequest', 51, (0, 0), (0, 32767), (
        ('deletions', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('mechanism', 'int8', (0, 32767), None, None, None, 0, None, None),
        )),
        ('upsertions', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('mechanism', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('iterations', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('salt', 'bytes', (0, 32767), None, None, None, b'', None, None),
            ('salted_password', 'bytes', (0, 32767), None, None, None, b'', None, None),
        )),
    )),
    52: ('VoteRequest', 52, (0, 2), (0, 32767), (
        ('cluster_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('voter_id', 'int32', (1, 32767), None, None, None, -1, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('replica_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('replica_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('replica_directory_id', 'uuid', (1, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                ('voter_directory_id', 'uuid', (1, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                ('last_offset_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('last_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('pre_vote', 'bool', (2, 32767), None, None, None, False, None, None),
            )),
        )),
    )),
    53: ('BeginQuorumEpochRequest', 53, (0, 1), (1, 32767), (
        ('cluster_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('voter_id', 'int32', (1, 32767), None, None, None, -1, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('voter_directory_id', 'uuid', (1, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
        ('leader_endpoints', '[]struct', (1, 32767), None, None, None, (), None, (
            ('name', 'string', (1, 32767), None, None, None, '', None, None),
            ('host', 'string', (1, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (1, 32767), None, None, None, 0, None, None),
        )),
    )),
    54: ('EndQuorumEpochRequest', 54, (0, 1), (1, 32767), (
        ('cluster_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('preferred_successors', '[]int32', (0, 0), None, None, None, (), None, None),
                ('preferred_candidates', '[]struct', (1, 32767), None, None, None, (), None, (
                    ('candidate_id', 'int32', (1, 32767), None, None, None, 0, None, None),
                    ('candidate_directory_id', 'uuid', (1, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                )),
            )),
        )),
        ('leader_endpoints', '[]struct', (1, 32767), None, None, None, (), None, (
            ('name', 'string', (1, 32767), None, None, None, '', None, None),
            ('host', 'string', (1, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (1, 32767), None, None, None, 0, None, None),
        )),
    )),
    55: ('DescribeQuorumRequest', 55, (0, 2), (0, 32767), (
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    56: ('AlterPartitionRequest', 56, (2, 3), (0, 32767), (
        ('broker_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('broker_epoch', 'int64', (0, 32767), None, None, None, -1, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (2, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('new_isr', '[]int32', (0, 2), None, None, None, (), None, None),
                ('new_isr_with_epochs', '[]struct', (3, 32767), None, None, None, (), None, (
                    ('broker_id', 'int32', (3, 32767), None, None, None, 0, None, None),
                    ('broker_epoch', 'int64', (3, 32767), None, None, None, -1, None, None),
                )),
                ('leader_recovery_state', 'int8', (1, 32767), None, None, None, 0, None, None),
                ('partition_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    57: ('UpdateFeaturesRequest', 57, (0, 2), (0, 32767), (
        ('timeout_ms', 'int32', (0, 32767), None, None, None, 60000, None, None),
        ('feature_updates', '[]struct', (0, 32767), None, None, None, (), None, (
            ('feature', 'string', (0, 32767), None, None, None, '', None, None),
            ('max_version_level', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('allow_downgrade', 'bool', (0, 0), None, None, None, False, None, None),
            ('upgrade_type', 'int8', (1, 32767), None, None, None, 1, None, None),
        )),
        ('validate_only', 'bool', (1, 32767), None, None, None, False, None, None),
    )),
    58: ('EnvelopeRequest', 58, (0, 0), (0, 32767), (
        ('request_data', 'bytes', (0, 32767), None, None, None, b'', None, None),
        ('request_principal', 'bytes', (0, 32767), (0, 32767), None, None, b'', None, None),
        ('client_host_address', 'bytes', (0, 32767), None, None, None, b'', None, None),
    )),
    59: ('FetchSnapshotRequest', 59, (0, 1), (0, 32767), (
        ('cluster_id', 'string', (0, 32767), (0, 32767), 0, (0, 32767), None, None, None),
        ('replica_id', 'int32', (0, 32767), None, None, None, -1, None, None),
        ('max_bytes', 'int32', (0, 32767), None, None, None, 2147483647, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('current_leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('snapshot_id', 'struct', (0, 32767), None, None, None, {}, None, (
                    ('end_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                )),
                ('position', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('replica_directory_id', 'uuid', (1, 32767), None, 0, (1, 32767), b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            )),
        )),
    )),
    60: ('DescribeClusterRequest', 60, (0, 2), (0, 32767), (
        ('include_cluster_authorized_operations', 'bool', (0, 32767), None, None, None, False, None, None),
        ('endpoint_type', 'int8', (1, 32767), None, None, None, 1, None, None),
        ('include_fenced_brokers', 'bool', (2, 32767), None, None, None, False, None, None),
    )),
    61: ('DescribeProducersRequest', 61, (0, 0), (0, 32767), (
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partition_indexes', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
    )),
    62: ('BrokerRegistrationRequest', 62, (0, 4), (0, 32767), (
        ('broker_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('cluster_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('incarnation_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
        ('listeners', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (0, 32767), None, None, None, 0, None, None),
            ('security_protocol', 'int16', (0, 32767), None, None, None, 0, None, None),
        )),
        ('features', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('min_supported_version', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('max_supported_version', 'int16', (0, 32767), None, None, None, 0, None, None),
        )),
        ('rack', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('is_migrating_zk_broker', 'bool', (1, 32767), None, None, None, False, None, None),
        ('log_dirs', '[]uuid', (2, 32767), None, None, None, (), None, None),
        ('previous_broker_epoch', 'int64', (3, 32767), None, None, None, -1, None, None),
    )),
    63: ('BrokerHeartbeatRequest', 63, (0, 2), (0, 32767), (
        ('broker_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('broker_epoch', 'int64', (0, 32767), None, None, None, -1, None, None),
        ('current_metadata_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('want_fence', 'bool', (0, 32767), None, None, None, False, None, None),
        ('want_shut_down', 'bool', (0, 32767), None, None, None, False, None, None),
        ('offline_log_dirs', '[]uuid', (1, 32767), None, 0, (1, 32767), (), None, None),
        ('cordoned_log_dirs', '[]uuid', (2, 32767), (2, 32767), 1, (2, 32767), None, None, None),
    )),
    64: ('UnregisterBrokerRequest', 64, (0, 0), (0, 32767), (
        ('broker_id', 'int32', (0, 32767), None, None, None, 0, None, None),
    )),
    65: ('DescribeTransactionsRequest', 65, (0, 0), (0, 32767), (
        ('transactional_ids', '[]string', (0, 32767), None, None, None, (), None, None),
    )),
    66: ('ListTransactionsRequest', 66, (0, 2), (0, 32767), (
        ('state_filters', '[]string', (0, 32767), None, None, None, (), None, None),
        ('producer_id_filters', '[]int64', (0, 32767), None, None, None, (), None, None),
        ('duration_filter', 'int64', (1, 32767), None, None, None, -1, None, None),
        ('transactional_id_pattern', 'string', (2, 32767), (2, 32767), None, None, None, None, None),
    )),
    67: ('AllocateProducerIdsRequest', 67, (0, 0), (0, 32767), (
        ('broker_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('broker_epoch', 'int64', (0, 32767), None, None, None, -1, None, None),
    )),
    68: ('ConsumerGroupHeartbeatRequest', 68, (0, 1), (0, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('instance_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('rack_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('rebalance_timeout_ms', 'int32', (0, 32767), None, None, None, -1, None, None),
        ('subscribed_topic_names', '[]string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('subscribed_topic_regex', 'string', (1, 32767), (1, 32767), None, None, None, None, None),
        ('server_assignor', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('topic_partitions', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
    )),
    69: ('ConsumerGroupDescribeRequest', 69, (0, 1), (0, 32767), (
        ('group_ids', '[]string', (0, 32767), None, None, None, (), None, None),
        ('include_authorized_operations', 'bool', (0, 32767), None, None, None, False, None, None),
    )),
    70: ('ControllerRegistrationRequest', 70, (0, 0), (0, 32767), (
        ('controller_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('incarnation_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
        ('zk_migration_ready', 'bool', (0, 32767), None, None, None, False, None, None),
        ('listeners', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (0, 32767), None, None, None, 0, None, None),
            ('security_protocol', 'int16', (0, 32767), None, None, None, 0, None, None),
        )),
        ('features', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('min_supported_version', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('max_supported_version', 'int16', (0, 32767), None, None, None, 0, None, None),
        )),
    )),
    71: ('GetTelemetrySubscriptionsRequest', 71, (0, 0), (0, 32767), (
        ('client_instance_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
    )),
    72: ('PushTelemetryRequest', 72, (0, 0), (0, 32767), (
        ('client_instance_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
        ('subscription_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('terminating', 'bool', (0, 32767), None, None, None, False, None, None),
        ('compression_type', 'int8', (0, 32767), None, None, None, 0, None, None),
        ('metrics', 'bytes', (0, 32767), None, None, None, b'', None, None),
    )),
    73: ('AssignReplicasToDirsRequest', 73, (0, 0), (0, 32767), (
        ('broker_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('broker_epoch', 'int64', (0, 32767), None, None, None, -1, None, None),
        ('directories', '[]struct', (0, 32767), None, None, None, (), None, (
            ('id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
                ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                )),
            )),
        )),
    )),
    74: ('ListConfigResourcesRequest', 74, (0, 1), (0, 32767), (
        ('resource_types', '[]int8', (1, 32767), None, None, None, (), None, None),
    )),
    75: ('DescribeTopicPartitionsRequest', 75, (0, 0), (0, 32767), (
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
        )),
        ('response_partition_limit', 'int32', (0, 32767), None, None, None, 2000, None, None),
        ('cursor', 'struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
        )),
    )),
    76: ('ShareGroupHeartbeatRequest', 76, (1, 1), (0, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('rack_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('subscribed_topic_names', '[]string', (0, 32767), (0, 32767), None, None, None, None, None),
    )),
    77: ('ShareGroupDescribeRequest', 77, (1, 1), (0, 32767), (
        ('group_ids', '[]string', (0, 32767), None, None, None, (), None, None),
        ('include_authorized_operations', 'bool', (0, 32767), None, None, None, False, None, None),
    )),
    78: ('ShareFetchRequest', 78, (1, 2), (0, 32767), (
        ('group_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('member_id', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('share_session_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('max_wait_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('min_bytes', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('max_bytes', 'int32', (0, 32767), None, None, None, 2147483647, None, None),
        ('max_records', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('batch_size', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('share_acquire_mode', 'int8', (2, 32767), None, None, None, 0, None, None),
        ('is_renew_ack', 'bool', (2, 32767), None, None, None, False, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('partition_max_bytes', 'int32', (0, 0), None, None, None, 0, None, None),
                ('acknowledgement_batches', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('first_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('last_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('acknowledge_types', '[]int8', (0, 32767), None, None, None, (), None, None),
                )),
            )),
        )),
        ('forgotten_topics_data', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
    )),
    79: ('ShareAcknowledgeRequest', 79, (1, 2), (0, 32767), (
        ('group_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('member_id', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('share_session_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('is_renew_ack', 'bool', (2, 32767), None, None, None, False, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('acknowledgement_batches', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('first_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('last_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('acknowledge_types', '[]int8', (0, 32767), None, None, None, (), None, None),
                )),
            )),
        )),
    )),
    80: ('AddRaftVoterRequest', 80, (0, 1), (0, 32767), (
        ('cluster_id', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('timeout_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('voter_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('voter_directory_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
        ('listeners', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (0, 32767), None, None, None, 0, None, None),
        )),
        ('ack_when_committed', 'bool', (1, 32767), None, None, None, True, None, None),
    )),
    81: ('RemoveRaftVoterRequest', 81, (0, 0), (0, 32767), (
        ('cluster_id', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('voter_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('voter_directory_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
    )),
    82: ('UpdateRaftVoterRequest', 82, (0, 0), (0, 32767), (
        ('cluster_id', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('current_leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('voter_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('voter_directory_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
        ('listeners', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (0, 32767), None, None, None, 0, None, None),
        )),
        ('k_raft_version_feature', 'struct', (0, 32767), None, None, None, {}, None, (
            ('min_supported_version', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('max_supported_version', 'int16', (0, 32767), None, None, None, 0, None, None),
        )),
    )),
    83: ('InitializeShareGroupStateRequest', 83, (0, 0), (0, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('state_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('start_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    84: ('ReadShareGroupStateRequest', 84, (0, 0), (0, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    85: ('WriteShareGroupStateRequest', 85, (0, 1), (0, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('state_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('start_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('delivery_complete_count', 'int32', (1, 32767), None, None, None, -1, None, None),
                ('state_batches', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('first_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('last_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('delivery_state', 'int8', (0, 32767), None, None, None, 0, None, None),
                    ('delivery_count', 'int16', (0, 32767), None, None, None, 0, None, None),
                )),
            )),
        )),
    )),
    86: ('DeleteShareGroupStateRequest', 86, (0, 0), (0, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    87: ('ReadShareGroupStateSummaryRequest', 87, (0, 1), (0, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    88: ('StreamsGroupHeartbeatRequest', 88, (0, 1), (0, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('endpoint_information_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('instance_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('rack_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('rebalance_timeout_ms', 'int32', (0, 32767), None, None, None, -1, None, None),
        ('topology', 'struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('subtopologies', '[]struct', (0, 32767), None, None, None, (), None, (
                ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
                ('source_topics', '[]string', (0, 32767), None, None, None, (), None, None),
                ('source_topic_regex', '[]string', (0, 32767), None, None, None, (), None, None),
                ('state_changelog_topics', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('name', 'string', (0, 32767), None, None, None, '', None, None),
                    ('partitions', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('replication_factor', 'int16', (0, 32767), None, None, None, 0, None, None),
                    ('topic_configs', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('key', 'string', (0, 32767), None, None, None, '', None, None),
                        ('value', 'string', (0, 32767), None, None, None, '', None, None),
                    )),
                )),
                ('repartition_sink_topics', '[]string', (0, 32767), None, None, None, (), None, None),
                ('repartition_source_topics', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('name', 'string', (0, 32767), None, None, None, '', None, None),
                    ('partitions', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('replication_factor', 'int16', (0, 32767), None, None, None, 0, None, None),
                    ('topic_configs', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('key', 'string', (0, 32767), None, None, None, '', None, None),
                        ('value', 'string', (0, 32767), None, None, None, '', None, None),
                    )),
                )),
                ('copartition_groups', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('source_topics', '[]int16', (0, 32767), None, None, None, (), None, None),
                    ('source_topic_regex', '[]int16', (0, 32767), None, None, None, (), None, None),
                    ('repartition_source_topics', '[]int16', (0, 32767), None, None, None, (), None, None),
                )),
            )),
        )),
        ('active_tasks', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('standby_tasks', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('warmup_tasks', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('process_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('user_endpoint', 'struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (0, 32767), None, None, None, 0, None, None),
        )),
        ('client_tags', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('key', 'string', (0, 32767), None, None, None, '', None, None),
            ('value', 'string', (0, 32767), None, None, None, '', None, None),
        )),
        ('task_offsets', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('offset', 'int64', (0, 32767), None, None, None, 0, None, None),
        )),
        ('task_end_offsets', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('offset', 'int64', (0, 32767), None, None, None, 0, None, None),
        )),
        ('shutdown_application', 'bool', (0, 32767), None, None, None, False, None, None),
    )),
    89: ('StreamsGroupDescribeRequest', 89, (0, 1), (0, 32767), (
        ('group_ids', '[]string', (0, 32767), None, None, None, (), None, None),
        ('include_authorized_operations', 'bool', (0, 32767), None, None, None, False, None, None),
        ('include_topology_description', 'bool', (1, 32767), None, None, None, False, None, None),
    )),
    90: ('DescribeShareGroupOffsetsRequest', 90, (0, 1), (0, 32767), (
        ('groups', '[]struct', (0, 32767), None, None, None, (), None, (
            ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('topics', '[]struct', (0, 32767), (0, 32767), None, None, (), None, (
                ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
                ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
        )),
    )),
    91: ('AlterShareGroupOffsetsRequest', 91, (0, 0), (0, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('start_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    92: ('DeleteShareGroupOffsetsRequest', 92, (0, 0), (0, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
        )),
    )),
    93: ('StreamsGroupTopologyDescriptionUpdateRequest', 93, (0, 0), (0, 32767), (
        ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('topology_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('topology_description', 'struct', (0, 32767), None, None, None, {}, None, (
            ('subtopologies', '[]struct', (0, 32767), None, None, None, (), None, (
                ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
                ('nodes', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('name', 'string', (0, 32767), None, None, None, '', None, None),
                    ('node_type', 'int8', (0, 32767), None, None, None, 0, None, None),
                    ('source_topics', '[]string', (0, 32767), None, None, None, (), None, None),
                    ('sink_topic', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                    ('stores', '[]string', (0, 32767), None, None, None, (), None, None),
                    ('successors', '[]string', (0, 32767), None, None, None, (), None, None),
                )),
            )),
            ('global_stores', '[]struct', (0, 32767), None, None, None, (), None, (
                ('source', 'struct', (0, 32767), None, None, None, {}, None, (
                    ('name', 'string', (0, 32767), None, None, None, '', None, None),
                    ('node_type', 'int8', (0, 32767), None, None, None, 0, None, None),
                    ('source_topics', '[]string', (0, 32767), None, None, None, (), None, None),
                    ('sink_topic', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                    ('stores', '[]string', (0, 32767), None, None, None, (), None, None),
                    ('successors', '[]string', (0, 32767), None, None, None, (), None, None),
                )),
                ('processor', 'struct', (0, 32767), None, None, None, {}, None, (
                    ('name', 'string', (0, 32767), None, None, None, '', None, None),
                    ('node_type', 'int8', (0, 32767), None, None, None, 0, None, None),
                    ('source_topics', '[]string', (0, 32767), None, None, None, (), None, None),
                    ('sink_topic', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                    ('stores', '[]string', (0, 32767), None, None, None, (), None, None),
                    ('successors', '[]string', (0, 32767), None, None, None, (), None, None),
                )),
            )),
        )),
    )),
    94: ('UnregisterControllerRequest', 94, (0, 0), (0, 32767), (
        ('controller_id', 'int32', (0, 32767), None, None, None, 0, None, None),
    )),
}

RESPONSES: dict[int, Any] = {
    0: ('ProduceResponse', 0, (3, 13), (9, 32767), (
        ('responses', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 12), None, None, None, '', None, None),
            ('topic_id', 'uuid', (13, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partition_responses', '[]struct', (0, 32767), None, None, None, (), None, (
                ('index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('base_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('log_append_time_ms', 'int64', (2, 32767), None, None, None, -1, None, None),
                ('log_start_offset', 'int64', (5, 32767), None, None, None, -1, None, None),
                ('record_errors', '[]struct', (8, 32767), None, None, None, (), None, (
                    ('batch_index', 'int32', (8, 32767), None, None, None, 0, None, None),
                    ('batch_index_error_message', 'string', (8, 32767), (8, 32767), None, None, None, None, None),
                )),
                ('error_message', 'string', (8, 32767), (8, 32767), None, None, None, None, None),
                ('current_leader', 'struct', (10, 32767), None, 0, (10, 32767), {}, None, (
                    ('leader_id', 'int32', (10, 32767), None, None, None, -1, None, None),
                    ('leader_epoch', 'int32', (10, 32767), None, None, None, -1, None, None),
                )),
            )),
        )),
        ('throttle_time_ms', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('node_endpoints', '[]struct', (10, 32767), None, 0, (10, 32767), (), None, (
            ('node_id', 'int32', (10, 32767), None, None, None, 0, None, None),
            ('host', 'string', (10, 32767), None, None, None, '', None, None),
            ('port', 'int32', (10, 32767), None, None, None, 0, None, None),
            ('rack', 'string', (10, 32767), (10, 32767), None, None, None, None, None),
        )),
    )),
    1: ('FetchResponse', 1, (4, 18), (12, 32767), (
        ('throttle_time_ms', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (7, 32767), None, None, None, 0, None, None),
        ('session_id', 'int32', (7, 32767), None, None, None, 0, None, None),
        ('responses', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic', 'string', (0, 12), None, None, None, '', None, None),
            ('topic_id', 'uuid', (13, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('high_watermark', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('last_stable_offset', 'int64', (4, 32767), None, None, None, -1, None, None),
                ('log_start_offset', 'int64', (5, 32767), None, None, None, -1, None, None),
                ('diverging_epoch', 'struct', (12, 32767), None, 0, (12, 32767), {}, None, (
                    ('epoch', 'int32', (12, 32767), None, None, None, -1, None, None),
                    ('end_offset', 'int64', (12, 32767), None, None, None, -1, None, None),
                )),
                ('current_leader', 'struct', (12, 32767), None, 1, (12, 32767), {}, None, (
                    ('leader_id', 'int32', (12, 32767), None, None, None, -1, None, None),
                    ('leader_epoch', 'int32', (12, 32767), None, None, None, -1, None, None),
                )),
                ('snapshot_id', 'struct', (12, 32767), None, 2, (12, 32767), {}, None, (
                    ('end_offset', 'int64', (0, 32767), None, None, None, -1, None, None),
                    ('epoch', 'int32', (0, 32767), None, None, None, -1, None, None),
                )),
                ('aborted_transactions', '[]struct', (4, 32767), (4, 32767), None, None, (), None, (
                    ('producer_id', 'int64', (4, 32767), None, None, None, 0, None, None),
                    ('first_offset', 'int64', (4, 32767), None, None, None, 0, None, None),
                )),
                ('preferred_read_replica', 'int32', (11, 32767), None, None, None, -1, None, None),
                ('records', 'records', (0, 32767), (0, 32767), None, None, None, None, None),
            )),
        )),
        ('node_endpoints', '[]struct', (16, 32767), None, 0, (16, 32767), (), None, (
            ('node_id', 'int32', (16, 32767), None, None, None, 0, None, None),
            ('host', 'string', (16, 32767), None, None, None, '', None, None),
            ('port', 'int32', (16, 32767), None, None, None, 0, None, None),
            ('rack', 'string', (16, 32767), (16, 32767), None, None, None, None, None),
        )),
    )),
    2: ('ListOffsetsResponse', 2, (1, 11), (6, 32767), (
        ('throttle_time_ms', 'int32', (2, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('timestamp', 'int64', (1, 32767), None, None, None, -1, None, None),
                ('offset', 'int64', (1, 32767), None, None, None, -1, None, None),
                ('leader_epoch', 'int32', (4, 32767), None, None, None, -1, None, None),
            )),
        )),
    )),
    3: ('MetadataResponse', 3, (0, 13), (9, 32767), (
        ('throttle_time_ms', 'int32', (3, 32767), None, None, None, 0, None, None),
        ('brokers', '[]struct', (0, 32767), None, None, None, (), None, (
            ('node_id', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('port', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('rack', 'string', (1, 32767), (1, 32767), None, None, None, None, None),
        )),
        ('cluster_id', 'string', (2, 32767), (2, 32767), None, None, None, None, None),
        ('controller_id', 'int32', (1, 32767), None, None, None, -1, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('name', 'string', (0, 32767), (12, 32767), None, None, '', None, None),
            ('topic_id', 'uuid', (10, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('is_internal', 'bool', (1, 32767), None, None, None, False, None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (7, 32767), None, None, None, -1, None, None),
                ('replica_nodes', '[]int32', (0, 32767), None, None, None, (), None, None),
                ('isr_nodes', '[]int32', (0, 32767), None, None, None, (), None, None),
                ('offline_replicas', '[]int32', (5, 32767), None, None, None, (), None, None),
            )),
            ('topic_authorized_operations', 'int32', (8, 32767), None, None, None, -2147483648, None, None),
        )),
        ('cluster_authorized_operations', 'int32', (8, 10), None, None, None, -2147483648, None, None),
        ('error_code', 'int16', (13, 32767), None, None, None, 0, None, None),
    )),
    8: ('OffsetCommitResponse', 8, (2, 10), (8, 32767), (
        ('throttle_time_ms', 'int32', (3, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 9), None, None, None, '', None, None),
            ('topic_id', 'uuid', (10, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    9: ('OffsetFetchResponse', 9, (1, 10), (6, 32767), (
        ('throttle_time_ms', 'int32', (3, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 7), None, None, None, (), None, (
            ('name', 'string', (0, 7), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 7), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 7), None, None, None, 0, None, None),
                ('committed_offset', 'int64', (0, 7), None, None, None, 0, None, None),
                ('committed_leader_epoch', 'int32', (5, 7), None, None, None, -1, None, None),
                ('metadata', 'string', (0, 7), (0, 7), None, None, '', None, None),
                ('error_code', 'int16', (0, 7), None, None, None, 0, None, None),
            )),
        )),
        ('error_code', 'int16', (2, 7), None, None, None, 0, None, None),
        ('groups', '[]struct', (8, 32767), None, None, None, (), None, (
            ('group_id', 'string', (8, 32767), None, None, None, '', None, None),
            ('topics', '[]struct', (8, 32767), None, None, None, (), None, (
                ('name', 'string', (8, 9), None, None, None, '', None, None),
                ('topic_id', 'uuid', (10, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                ('partitions', '[]struct', (8, 32767), None, None, None, (), None, (
                    ('partition_index', 'int32', (8, 32767), None, None, None, 0, None, None),
                    ('committed_offset', 'int64', (8, 32767), None, None, None, 0, None, None),
                    ('committed_leader_epoch', 'int32', (8, 32767), None, None, None, -1, None, None),
                    ('metadata', 'string', (8, 32767), (8, 32767), None, None, '', None, None),
                    ('error_code', 'int16', (8, 32767), None, None, None, 0, None, None),
                )),
            )),
            ('error_code', 'int16', (8, 32767), None, None, None, 0, None, None),
        )),
    )),
    10: ('FindCoordinatorResponse', 10, (0, 6), (3, 32767), (
        ('throttle_time_ms', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 3), None, None, None, 0, None, None),
        ('error_message', 'string', (1, 3), (1, 3), None, None, '', None, None),
        ('node_id', 'int32', (0, 3), None, None, None, 0, None, None),
        ('host', 'string', (0, 3), None, None, None, '', None, None),
        ('port', 'int32', (0, 3), None, None, None, 0, None, None),
        ('coordinators', '[]struct', (4, 32767), None, None, None, (), None, (
            ('key', 'string', (4, 32767), None, None, None, '', None, None),
            ('node_id', 'int32', (4, 32767), None, None, None, 0, None, None),
            ('host', 'string', (4, 32767), None, None, None, '', None, None),
            ('port', 'int32', (4, 32767), None, None, None, 0, None, None),
            ('error_code', 'int16', (4, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (4, 32767), (4, 32767), None, None, '', None, None),
        )),
    )),
    11: ('JoinGroupResponse', 11, (0, 9), (6, 32767), (
        ('throttle_time_ms', 'int32', (2, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('generation_id', 'int32', (0, 32767), None, None, None, -1, None, None),
        ('protocol_type', 'string', (7, 32767), (7, 32767), None, None, None, None, None),
        ('protocol_name', 'string', (0, 32767), (7, 32767), None, None, '', None, None),
        ('leader', 'string', (0, 32767), None, None, None, '', None, None),
        ('skip_assignment', 'bool', (9, 32767), None, None, None, False, None, None),
        ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('members', '[]struct', (0, 32767), None, None, None, (), None, (
            ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('group_instance_id', 'string', (5, 32767), (5, 32767), None, None, None, None, None),
            ('metadata', 'bytes', (0, 32767), None, None, None, b'', None, None),
        )),
    )),
    12: ('HeartbeatResponse', 12, (0, 4), (4, 32767), (
        ('throttle_time_ms', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
    )),
    13: ('LeaveGroupResponse', 13, (0, 5), (4, 32767), (
        ('throttle_time_ms', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('members', '[]struct', (3, 32767), None, None, None, (), None, (
            ('member_id', 'string', (3, 32767), None, None, None, '', None, None),
            ('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, '', None, None),
            ('error_code', 'int16', (3, 32767), None, None, None, 0, None, None),
        )),
    )),
    14: ('SyncGroupResponse', 14, (0, 5), (4, 32767), (
        ('throttle_time_ms', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('protocol_type', 'string', (5, 32767), (5, 32767), None, None, None, None, None),
        ('protocol_name', 'string', (5, 32767), (5, 32767), None, None, None, None, None),
        ('assignment', 'bytes', (0, 32767), None, None, None, b'', None, None),
    )),
    15: ('DescribeGroupsResponse', 15, (0, 6), (5, 32767), (
        ('throttle_time_ms', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('groups', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (6, 32767), (6, 32767), None, None, None, None, None),
            ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('group_state', 'string', (0, 32767), None, None, None, '', None, None),
            ('protocol_type', 'string', (0, 32767), None, None, None, '', None, None),
            ('protocol_data', 'string', (0, 32767), None, None, None, '', None, None),
            ('members', '[]struct', (0, 32767), None, None, None, (), None, (
                ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
                ('group_instance_id', 'string', (4, 32767), (4, 32767), None, None, None, None, None),
                ('client_id', 'string', (0, 32767), None, None, None, '', None, None),
                ('client_host', 'string', (0, 32767), None, None, None, '', None, None),
                ('member_metadata', 'bytes', (0, 32767), None, None, None, b'', None, None),
                ('member_assignment', 'bytes', (0, 32767), None, None, None, b'', None, None),
            )),
            ('authorized_operations', 'int32', (3, 32767), None, None, None, -2147483648, None, None),
        )),
    )),
    16: ('ListGroupsResponse', 16, (0, 5), (3, 32767), (
        ('throttle_time_ms', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('groups', '[]struct', (0, 32767), None, None, None, (), None, (
            ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('protocol_type', 'string', (0, 32767), None, None, None, '', None, None),
            ('group_state', 'string', (4, 32767), None, None, None, '', None, None),
            ('group_type', 'string', (5, 32767), None, None, None, '', None, None),
        )),
    )),
    17: ('SaslHandshakeResponse', 17, (0, 1), None, (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('mechanisms', '[]string', (0, 32767), None, None, None, (), None, None),
    )),
    18: ('ApiVersionsResponse', 18, (0, 5), (3, 32767), (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('api_keys', '[]struct', (0, 32767), None, None, None, (), None, (
            ('api_key', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('min_version', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('max_version', 'int16', (0, 32767), None, None, None, 0, None, None),
        )),
        ('throttle_time_ms', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('supported_features', '[]struct', (3, 32767), None, 0, (3, 32767), (), None, (
            ('name', 'string', (3, 32767), None, None, None, '', None, None),
            ('min_version', 'int16', (3, 32767), None, None, None, 0, None, None),
            ('max_version', 'int16', (3, 32767), None, None, None, 0, None, None),
        )),
        ('finalized_features_epoch', 'int64', (3, 32767), None, 1, (3, 32767), -1, None, None),
        ('finalized_features', '[]struct', (3, 32767), None, 2, (3, 32767), (), None, (
            ('name', 'string', (3, 32767), None, None, None, '', None, None),
            ('max_version_level', 'int16', (3, 32767), None, None, None, 0, None, None),
            ('min_version_level', 'int16', (3, 32767), None, None, None, 0, None, None),
        )),
        ('zk_migration_ready', 'bool', (3, 32767), None, 3, (3, 32767), False, None, None),
    )),
    19: ('CreateTopicsResponse', 19, (2, 7), (5, 32767), (
        ('throttle_time_ms', 'int32', (2, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('topic_id', 'uuid', (7, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (1, 32767), (0, 32767), None, None, '', None, None),
            ('topic_config_error_code', 'int16', (5, 32767), None, 0, (5, 32767), 0, None, None),
            ('num_partitions', 'int32', (5, 32767), None, None, None, -1, None, None),
            ('replication_factor', 'int16', (5, 32767), None, None, None, -1, None, None),
            ('configs', '[]struct', (5, 32767), (5, 32767), None, None, (), None, (
                ('name', 'string', (5, 32767), None, None, None, '', None, None),
                ('value', 'string', (5, 32767), (5, 32767), None, None, '', None, None),
                ('read_only', 'bool', (5, 32767), None, None, None, False, None, None),
                ('config_source', 'int8', (5, 32767), None, None, None, -1, None, None),
                ('is_sensitive', 'bool', (5, 32767), None, None, None, False, None, None),
            )),
        )),
    )),
    20: ('DeleteTopicsResponse', 20, (1, 6), (4, 32767), (
        ('throttle_time_ms', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('responses', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), (6, 32767), None, None, '', None, None),
            ('topic_id', 'uuid', (6, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (5, 32767), (5, 32767), None, None, None, None, None),
        )),
    )),
    21: ('DeleteRecordsResponse', 21, (0, 2), (2, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('low_watermark', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    22: ('InitProducerIdResponse', 22, (0, 6), (2, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('producer_id', 'int64', (0, 32767), None, None, None, -1, None, None),
        ('producer_epoch', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('ongoing_txn_producer_id', 'int64', (6, 32767), None, None, None, -1, None, None),
        ('ongoing_txn_producer_epoch', 'int16', (6, 32767), None, None, None, -1, None, None),
    )),
    23: ('OffsetForLeaderEpochResponse', 23, (2, 4), (4, 32767), (
        ('throttle_time_ms', 'int32', (2, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (1, 32767), None, None, None, -1, None, None),
                ('end_offset', 'int64', (0, 32767), None, None, None, -1, None, None),
            )),
        )),
    )),
    24: ('AddPartitionsToTxnResponse', 24, (0, 5), (3, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (4, 32767), None, None, None, 0, None, None),
        ('results_by_transaction', '[]struct', (4, 32767), None, None, None, (), None, (
            ('transactional_id', 'string', (4, 32767), None, None, None, '', None, None),
            ('topic_results', '[]struct', (4, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('results_by_partition', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('partition_error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                )),
            )),
        )),
        ('results_by_topic_v3_and_below', '[]struct', (0, 3), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('results_by_partition', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('partition_error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    25: ('AddOffsetsToTxnResponse', 25, (0, 4), (3, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
    )),
    26: ('EndTxnResponse', 26, (0, 5), (3, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('producer_id', 'int64', (5, 32767), None, None, None, -1, None, None),
        ('producer_epoch', 'int16', (5, 32767), None, None, None, -1, None, None),
    )),
    27: ('WriteTxnMarkersResponse', 27, (1, 2), (1, 32767), (
        ('markers', '[]struct', (0, 32767), None, None, None, (), None, (
            ('producer_id', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                )),
            )),
        )),
    )),
    28: ('TxnOffsetCommitResponse', 28, (0, 6), (3, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 5), None, None, None, '', None, None),
            ('topic_id', 'uuid', (6, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    29: ('DescribeAclsResponse', 29, (1, 3), (2, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('resources', '[]struct', (0, 32767), None, None, None, (), None, (
            ('resource_type', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('resource_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('pattern_type', 'int8', (1, 32767), None, None, None, 3, None, None),
            ('acls', '[]struct', (0, 32767), None, None, None, (), None, (
                ('principal', 'string', (0, 32767), None, None, None, '', None, None),
                ('host', 'string', (0, 32767), None, None, None, '', None, None),
                ('operation', 'int8', (0, 32767), None, None, None, 0, None, None),
                ('permission_type', 'int8', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    30: ('CreateAclsResponse', 30, (1, 3), (2, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        )),
    )),
    31: ('DeleteAclsResponse', 31, (1, 3), (2, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('filter_results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            ('matching_acls', '[]struct', (0, 32767), None, None, None, (), None, (
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
                ('resource_type', 'int8', (0, 32767), None, None, None, 0, None, None),
                ('resource_name', 'string', (0, 32767), None, None, None, '', None, None),
                ('pattern_type', 'int8', (1, 32767), None, None, None, 3, None, None),
                ('principal', 'string', (0, 32767), None, None, None, '', None, None),
                ('host', 'string', (0, 32767), None, None, None, '', None, None),
                ('operation', 'int8', (0, 32767), None, None, None, 0, None, None),
                ('permission_type', 'int8', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    32: ('DescribeConfigsResponse', 32, (1, 4), (4, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            ('resource_type', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('resource_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('configs', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('value', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
                ('read_only', 'bool', (0, 32767), None, None, None, False, None, None),
                ('config_source', 'int8', (1, 32767), None, None, None, -1, None, None),
                ('is_sensitive', 'bool', (0, 32767), None, None, None, False, None, None),
                ('synonyms', '[]struct', (1, 32767), None, None, None, (), None, (
                    ('name', 'string', (1, 32767), None, None, None, '', None, None),
                    ('value', 'string', (1, 32767), (0, 32767), None, None, '', None, None),
                    ('source', 'int8', (1, 32767), None, None, None, 0, None, None),
                )),
                ('config_type', 'int8', (3, 32767), None, None, None, 0, None, None),
                ('documentation', 'string', (3, 32767), (0, 32767), None, None, '', None, None),
            )),
        )),
    )),
    33: ('AlterConfigsResponse', 33, (0, 2), (2, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('responses', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            ('resource_type', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('resource_name', 'string', (0, 32767), None, None, None, '', None, None),
        )),
    )),
    34: ('AlterReplicaLogDirsResponse', 34, (1, 2), (2, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    35: ('DescribeLogDirsResponse', 35, (1, 5), (2, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (3, 32767), None, None, None, 0, None, None),
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('log_dir', 'string', (0, 32767), None, None, None, '', None, None),
            ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('partition_size', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('offset_lag', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('is_future_key', 'bool', (0, 32767), None, None, None, False, None, None),
                )),
            )),
            ('total_bytes', 'int64', (4, 32767), None, None, None, -1, None, None),
            ('usable_bytes', 'int64', (4, 32767), None, None, None, -1, None, None),
            ('is_cordoned', 'bool', (5, 32767), None, None, None, False, None, None),
        )),
    )),
    36: ('SaslAuthenticateResponse', 36, (0, 2), (2, 32767), (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('auth_bytes', 'bytes', (0, 32767), None, None, None, b'', None, None),
        ('session_lifetime_ms', 'int64', (1, 32767), None, None, None, 0, None, None),
    )),
    37: ('CreatePartitionsResponse', 37, (0, 3), (2, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        )),
    )),
    38: ('CreateDelegationTokenResponse', 38, (1, 3), (2, 32767), (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('principal_type', 'string', (0, 32767), None, None, None, '', None, None),
        ('principal_name', 'string', (0, 32767), None, None, None, '', None, None),
        ('token_requester_principal_type', 'string', (3, 32767), None, None, None, '', None, None),
        ('token_requester_principal_name', 'string', (3, 32767), None, None, None, '', None, None),
        ('issue_timestamp_ms', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('expiry_timestamp_ms', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('max_timestamp_ms', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('token_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('hmac', 'bytes', (0, 32767), None, None, None, b'', None, None),
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
    )),
    39: ('RenewDelegationTokenResponse', 39, (1, 2), (2, 32767), (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('expiry_timestamp_ms', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
    )),
    40: ('ExpireDelegationTokenResponse', 40, (1, 2), (2, 32767), (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('expiry_timestamp_ms', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
    )),
    41: ('DescribeDelegationTokenResponse', 41, (1, 3), (2, 32767), (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('tokens', '[]struct', (0, 32767), None, None, None, (), None, (
            ('principal_type', 'string', (0, 32767), None, None, None, '', None, None),
            ('principal_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('token_requester_principal_type', 'string', (3, 32767), None, None, None, '', None, None),
            ('token_requester_principal_name', 'string', (3, 32767), None, None, None, '', None, None),
            ('issue_timestamp', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('expiry_timestamp', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('max_timestamp', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('token_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('hmac', 'bytes', (0, 32767), None, None, None, b'', None, None),
            ('renewers', '[]struct', (0, 32767), None, None, None, (), None, (
                ('principal_type', 'string', (0, 32767), None, None, None, '', None, None),
                ('principal_name', 'string', (0, 32767), None, None, None, '', None, None),
            )),
        )),
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
    )),
    42: ('DeleteGroupsResponse', 42, (0, 3), (2, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (3, 32767), (3, 32767), None, None, None, None, None),
        )),
    )),
    43: ('ElectLeadersResponse', 43, (0, 2), (2, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (1, 32767), None, None, None, 0, None, None),
        ('replica_election_results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic', 'string', (0, 32767), None, None, None, '', None, None),
            ('partition_result', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            )),
        )),
    )),
    44: ('IncrementalAlterConfigsResponse', 44, (0, 1), (1, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('responses', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            ('resource_type', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('resource_name', 'string', (0, 32767), None, None, None, '', None, None),
        )),
    )),
    45: ('AlterPartitionReassignmentsResponse', 45, (0, 1), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('allow_replication_factor_change', 'bool', (1, 32767), None, None, None, True, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('responses', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            )),
        )),
    )),
    46: ('ListPartitionReassignmentsResponse', 46, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('replicas', '[]int32', (0, 32767), None, None, None, (), None, None),
                ('adding_replicas', '[]int32', (0, 32767), None, None, None, (), None, None),
                ('removing_replicas', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
        )),
    )),
    47: ('OffsetDeleteResponse', 47, (0, 0), None, (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    48: ('DescribeClientQuotasResponse', 48, (0, 1), (1, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('entries', '[]struct', (0, 32767), (0, 32767), None, None, (), None, (
            ('entity', '[]struct', (0, 32767), None, None, None, (), None, (
                ('entity_type', 'string', (0, 32767), None, None, None, '', None, None),
                ('entity_name', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            )),
            ('values', '[]struct', (0, 32767), None, None, None, (), None, (
                ('key', 'string', (0, 32767), None, None, None, '', None, None),
                ('value', 'float64', (0, 32767), None, None, None, 0.0, None, None),
            )),
        )),
    )),
    49: ('AlterClientQuotasResponse', 49, (0, 1), (1, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('entries', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            ('entity', '[]struct', (0, 32767), None, None, None, (), None, (
                ('entity_type', 'string', (0, 32767), None, None, None, '', None, None),
                ('entity_name', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            )),
        )),
    )),
    50: ('DescribeUserScramCredentialsResponse', 50, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('user', 'string', (0, 32767), None, None, None, '', None, None),
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            ('credential_infos', '[]struct', (0, 32767), None, None, None, (), None, (
                ('mechanism', 'int8', (0, 32767), None, None, None, 0, None, None),
                ('iterations', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    51: ('AlterUserScramCredentialsResponse', 51, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('user', 'string', (0, 32767), None, None, None, '', None, None),
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        )),
    )),
    52: ('VoteResponse', 52, (0, 2), (0, 32767), (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('vote_granted', 'bool', (0, 32767), None, None, None, False, None, None),
            )),
        )),
        ('node_endpoints', '[]struct', (1, 32767), None, 0, (1, 32767), (), None, (
            ('node_id', 'int32', (1, 32767), None, None, None, 0, None, None),
            ('host', 'string', (1, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (1, 32767), None, None, None, 0, None, None),
        )),
    )),
    53: ('BeginQuorumEpochResponse', 53, (0, 1), (1, 32767), (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
        ('node_endpoints', '[]struct', (1, 32767), None, 0, (1, 32767), (), None, (
            ('node_id', 'int32', (1, 32767), None, None, None, 0, None, None),
            ('host', 'string', (1, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (1, 32767), None, None, None, 0, None, None),
        )),
    )),
    54: ('EndQuorumEpochResponse', 54, (0, 1), (1, 32767), (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
        ('node_endpoints', '[]struct', (1, 32767), None, 0, (1, 32767), (), None, (
            ('node_id', 'int32', (1, 32767), None, None, None, 0, None, None),
            ('host', 'string', (1, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (1, 32767), None, None, None, 0, None, None),
        )),
    )),
    55: ('DescribeQuorumResponse', 55, (0, 2), (0, 32767), (
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (2, 32767), (2, 32767), None, None, '', None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (2, 32767), (2, 32767), None, None, '', None, None),
                ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('high_watermark', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('current_voters', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('replica_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('replica_directory_id', 'uuid', (2, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                    ('log_end_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('last_fetch_timestamp', 'int64', (1, 32767), None, None, None, -1, None, None),
                    ('last_caught_up_timestamp', 'int64', (1, 32767), None, None, None, -1, None, None),
                )),
                ('observers', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('replica_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('replica_directory_id', 'uuid', (2, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                    ('log_end_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('last_fetch_timestamp', 'int64', (1, 32767), None, None, None, -1, None, None),
                    ('last_caught_up_timestamp', 'int64', (1, 32767), None, None, None, -1, None, None),
                )),
            )),
        )),
        ('nodes', '[]struct', (2, 32767), None, None, None, (), None, (
            ('node_id', 'int32', (2, 32767), None, None, None, 0, None, None),
            ('listeners', '[]struct', (2, 32767), None, None, None, (), None, (
                ('name', 'string', (2, 32767), None, None, None, '', None, None),
                ('host', 'string', (2, 32767), None, None, None, '', None, None),
                ('port', 'uint16', (2, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    56: ('AlterPartitionResponse', 56, (2, 3), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (2, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('isr', '[]int32', (0, 32767), None, None, None, (), None, None),
                ('leader_recovery_state', 'int8', (1, 32767), None, None, None, 0, None, None),
                ('partition_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
    57: ('UpdateFeaturesResponse', 57, (0, 2), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('results', '[]struct', (0, 1), None, None, None, (), None, (
            ('feature', 'string', (0, 32767), None, None, None, '', None, None),
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        )),
    )),
    58: ('EnvelopeResponse', 58, (0, 0), (0, 32767), (
        ('response_data', 'bytes', (0, 32767), (0, 32767), None, None, None, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
    )),
    59: ('FetchSnapshotResponse', 59, (0, 1), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('snapshot_id', 'struct', (0, 32767), None, None, None, {}, None, (
                    ('end_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                )),
                ('current_leader', 'struct', (0, 32767), None, 0, (0, 32767), {}, None, (
                    ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                )),
                ('size', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('position', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('unaligned_records', 'records', (0, 32767), None, None, None, None, None, None),
            )),
        )),
        ('node_endpoints', '[]struct', (1, 32767), None, 0, (1, 32767), (), None, (
            ('node_id', 'int32', (1, 32767), None, None, None, 0, None, None),
            ('host', 'string', (1, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (1, 32767), None, None, None, 0, None, None),
        )),
    )),
    60: ('DescribeClusterResponse', 60, (0, 2), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('endpoint_type', 'int8', (1, 32767), None, None, None, 1, None, None),
        ('cluster_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('controller_id', 'int32', (0, 32767), None, None, None, -1, None, None),
        ('brokers', '[]struct', (0, 32767), None, None, None, (), None, (
            ('broker_id', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('port', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('rack', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
            ('is_fenced', 'bool', (2, 32767), None, None, None, False, None, None),
        )),
        ('cluster_authorized_operations', 'int32', (0, 32767), None, None, None, -2147483648, None, None),
    )),
    61: ('DescribeProducersResponse', 61, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('active_producers', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('producer_id', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('producer_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('last_sequence', 'int32', (0, 32767), None, None, None, -1, None, None),
                    ('last_timestamp', 'int64', (0, 32767), None, None, None, -1, None, None),
                    ('coordinator_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('current_txn_start_offset', 'int64', (0, 32767), None, None, None, -1, None, None),
                )),
            )),
        )),
    )),
    62: ('BrokerRegistrationResponse', 62, (0, 4), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('broker_epoch', 'int64', (0, 32767), None, None, None, -1, None, None),
    )),
    63: ('BrokerHeartbeatResponse', 63, (0, 2), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('is_caught_up', 'bool', (0, 32767), None, None, None, False, None, None),
        ('is_fenced', 'bool', (0, 32767), None, None, None, True, None, None),
        ('should_shut_down', 'bool', (0, 32767), None, None, None, False, None, None),
    )),
    64: ('UnregisterBrokerResponse', 64, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
    )),
    65: ('DescribeTransactionsResponse', 65, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('transaction_states', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('transactional_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('transaction_state', 'string', (0, 32767), None, None, None, '', None, None),
            ('transaction_timeout_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('transaction_start_time_ms', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('producer_id', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('producer_epoch', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
                ('topic', 'string', (0, 32767), None, None, None, '', None, None),
                ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
        )),
    )),
    66: ('ListTransactionsResponse', 66, (0, 2), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('unknown_state_filters', '[]string', (0, 32767), None, None, None, (), None, None),
        ('transaction_states', '[]struct', (0, 32767), None, None, None, (), None, (
            ('transactional_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('producer_id', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('transaction_state', 'string', (0, 32767), None, None, None, '', None, None),
        )),
    )),
    67: ('AllocateProducerIdsResponse', 67, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('producer_id_start', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('producer_id_len', 'int32', (0, 32767), None, None, None, 0, None, None),
    )),
    68: ('ConsumerGroupHeartbeatResponse', 68, (0, 1), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('member_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('heartbeat_interval_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('assignment', 'struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('topic_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
        )),
    )),
    69: ('ConsumerGroupDescribeResponse', 69, (0, 1), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('groups', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
            ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('group_state', 'string', (0, 32767), None, None, None, '', None, None),
            ('group_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('assignment_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('assignor_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('members', '[]struct', (0, 32767), None, None, None, (), None, (
                ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
                ('instance_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('rack_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('client_id', 'string', (0, 32767), None, None, None, '', None, None),
                ('client_host', 'string', (0, 32767), None, None, None, '', None, None),
                ('subscribed_topic_names', '[]string', (0, 32767), None, None, None, (), None, None),
                ('subscribed_topic_regex', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('assignment', 'struct', (0, 32767), None, None, None, {}, None, (
                    ('topic_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                        ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
                        ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
                    )),
                )),
                ('target_assignment', 'struct', (0, 32767), None, None, None, {}, None, (
                    ('topic_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                        ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
                        ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
                    )),
                )),
                ('member_type', 'int8', (1, 32767), None, None, None, -1, None, None),
            )),
            ('authorized_operations', 'int32', (0, 32767), None, None, None, -2147483648, None, None),
        )),
    )),
    70: ('ControllerRegistrationResponse', 70, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
    )),
    71: ('GetTelemetrySubscriptionsResponse', 71, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('client_instance_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
        ('subscription_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('accepted_compression_types', '[]int8', (0, 32767), None, None, None, (), None, None),
        ('push_interval_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('telemetry_max_bytes', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('delta_temporality', 'bool', (0, 32767), None, None, None, False, None, None),
        ('requested_metrics', '[]string', (0, 32767), None, None, None, (), None, None),
    )),
    72: ('PushTelemetryResponse', 72, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
    )),
    73: ('AssignReplicasToDirsResponse', 73, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('directories', '[]struct', (0, 32767), None, None, None, (), None, (
            ('id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
                ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                )),
            )),
        )),
    )),
    74: ('ListConfigResourcesResponse', 74, (0, 1), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('config_resources', '[]struct', (0, 32767), None, None, None, (), None, (
            ('resource_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('resource_type', 'int8', (1, 32767), None, None, None, 16, None, None),
        )),
    )),
    75: ('DescribeTopicPartitionsResponse', 75, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('name', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('is_internal', 'bool', (0, 32767), None, None, None, False, None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, -1, None, None),
                ('replica_nodes', '[]int32', (0, 32767), None, None, None, (), None, None),
                ('isr_nodes', '[]int32', (0, 32767), None, None, None, (), None, None),
                ('eligible_leader_replicas', '[]int32', (0, 32767), (0, 32767), None, None, None, None, None),
                ('last_known_elr', '[]int32', (0, 32767), (0, 32767), None, None, None, None, None),
                ('offline_replicas', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
            ('topic_authorized_operations', 'int32', (0, 32767), None, None, None, -2147483648, None, None),
        )),
        ('next_cursor', 'struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
        )),
    )),
    76: ('ShareGroupHeartbeatResponse', 76, (1, 1), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('member_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('heartbeat_interval_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('assignment', 'struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('topic_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
        )),
    )),
    77: ('ShareGroupDescribeResponse', 77, (1, 1), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('groups', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
            ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('group_state', 'string', (0, 32767), None, None, None, '', None, None),
            ('group_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('assignment_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('assignor_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('members', '[]struct', (0, 32767), None, None, None, (), None, (
                ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
                ('rack_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('client_id', 'string', (0, 32767), None, None, None, '', None, None),
                ('client_host', 'string', (0, 32767), None, None, None, '', None, None),
                ('subscribed_topic_names', '[]string', (0, 32767), None, None, None, (), None, None),
                ('assignment', 'struct', (0, 32767), None, None, None, {}, None, (
                    ('topic_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                        ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
                        ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
                    )),
                )),
            )),
            ('authorized_operations', 'int32', (0, 32767), None, None, None, -2147483648, None, None),
        )),
    )),
    78: ('ShareFetchResponse', 78, (1, 2), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('acquisition_lock_timeout_ms', 'int32', (1, 32767), None, None, None, 0, None, None),
        ('responses', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('acknowledge_error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('acknowledge_error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('current_leader', 'struct', (0, 32767), None, None, None, {}, None, (
                    ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                )),
                ('records', 'records', (0, 32767), (0, 0), None, None, None, None, None),
                ('acquired_records', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('first_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('last_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('delivery_count', 'int16', (0, 32767), None, None, None, 0, None, None),
                )),
            )),
        )),
        ('node_endpoints', '[]struct', (0, 32767), None, None, None, (), None, (
            ('node_id', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('port', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('rack', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        )),
    )),
    79: ('ShareAcknowledgeResponse', 79, (1, 2), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('acquisition_lock_timeout_ms', 'int32', (2, 32767), None, None, None, 0, None, None),
        ('responses', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('current_leader', 'struct', (0, 32767), None, None, None, {}, None, (
                    ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                )),
            )),
        )),
        ('node_endpoints', '[]struct', (0, 32767), None, None, None, (), None, (
            ('node_id', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('port', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('rack', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        )),
    )),
    80: ('AddRaftVoterResponse', 80, (0, 1), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
    )),
    81: ('RemoveRaftVoterResponse', 81, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
    )),
    82: ('UpdateRaftVoterResponse', 82, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('current_leader', 'struct', (0, 32767), None, 0, (0, 32767), {}, None, (
            ('leader_id', 'int32', (0, 32767), None, None, None, -1, None, None),
            ('leader_epoch', 'int32', (0, 32767), None, None, None, -1, None, None),
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('port', 'int32', (0, 32767), None, None, None, 0, None, None),
        )),
    )),
    83: ('InitializeShareGroupStateResponse', 83, (0, 0), (0, 32767), (
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
            )),
        )),
    )),
    84: ('ReadShareGroupStateResponse', 84, (0, 0), (0, 32767), (
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('state_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('start_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('state_batches', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('first_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('last_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('delivery_state', 'int8', (0, 32767), None, None, None, 0, None, None),
                    ('delivery_count', 'int16', (0, 32767), None, None, None, 0, None, None),
                )),
            )),
        )),
    )),
    85: ('WriteShareGroupStateResponse', 85, (0, 1), (0, 32767), (
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
            )),
        )),
    )),
    86: ('DeleteShareGroupStateResponse', 86, (0, 0), (0, 32767), (
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
            )),
        )),
    )),
    87: ('ReadShareGroupStateSummaryResponse', 87, (0, 1), (0, 32767), (
        ('results', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('state_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('start_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                ('delivery_complete_count', 'int32', (1, 32767), None, None, None, -1, None, None),
            )),
        )),
    )),
    88: ('StreamsGroupHeartbeatResponse', 88, (0, 1), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('heartbeat_interval_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('acceptable_recovery_lag_legacy', 'int32', (0, 0), None, None, None, 0, None, None),
        ('task_offset_interval_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('acceptable_recovery_lag', 'int64', (1, 32767), None, None, None, -1, None, None),
        ('status', '[]struct', (0, 32767), (0, 32767), None, None, (), None, (
            ('status_code', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('status_detail', 'string', (0, 32767), None, None, None, '', None, None),
        )),
        ('active_tasks', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('standby_tasks', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('warmup_tasks', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('topology_description_required', 'bool', (1, 32767), None, None, None, False, None, None),
        ('endpoint_information_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('partitions_by_user_endpoint', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('user_endpoint', 'struct', (0, 32767), None, None, None, {}, None, (
                ('host', 'string', (0, 32767), None, None, None, '', None, None),
                ('port', 'uint16', (0, 32767), None, None, None, 0, None, None),
            )),
            ('active_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('topic', 'string', (0, 32767), None, None, None, '', None, None),
                ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
            ('standby_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('topic', 'string', (0, 32767), None, None, None, '', None, None),
                ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            )),
        )),
    )),
    89: ('StreamsGroupDescribeResponse', 89, (0, 1), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('groups', '[]struct', (0, 32767), None, None, None, (), None, (
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
            ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('group_state', 'string', (0, 32767), None, None, None, '', None, None),
            ('group_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('assignment_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('topology', 'struct', (0, 32767), (0, 32767), None, None, None, None, (
                ('epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('subtopologies', '[]struct', (0, 32767), (0, 32767), None, None, None, None, (
                    ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
                    ('source_topics', '[]string', (0, 32767), None, None, None, (), None, None),
                    ('repartition_sink_topics', '[]string', (0, 32767), None, None, None, (), None, None),
                    ('state_changelog_topics', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('name', 'string', (0, 32767), None, None, None, '', None, None),
                        ('partitions', 'int32', (0, 32767), None, None, None, 0, None, None),
                        ('replication_factor', 'int16', (0, 32767), None, None, None, 0, None, None),
                        ('topic_configs', '[]struct', (0, 32767), None, None, None, (), None, (
                            ('key', 'string', (0, 32767), None, None, None, '', None, None),
                            ('value', 'string', (0, 32767), None, None, None, '', None, None),
                        )),
                    )),
                    ('repartition_source_topics', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('name', 'string', (0, 32767), None, None, None, '', None, None),
                        ('partitions', 'int32', (0, 32767), None, None, None, 0, None, None),
                        ('replication_factor', 'int16', (0, 32767), None, None, None, 0, None, None),
                        ('topic_configs', '[]struct', (0, 32767), None, None, None, (), None, (
                            ('key', 'string', (0, 32767), None, None, None, '', None, None),
                            ('value', 'string', (0, 32767), None, None, None, '', None, None),
                        )),
                    )),
                )),
            )),
            ('members', '[]struct', (0, 32767), None, None, None, (), None, (
                ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
                ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('instance_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('rack_id', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                ('client_id', 'string', (0, 32767), None, None, None, '', None, None),
                ('client_host', 'string', (0, 32767), None, None, None, '', None, None),
                ('topology_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('process_id', 'string', (0, 32767), None, None, None, '', None, None),
                ('user_endpoint', 'struct', (0, 32767), (0, 32767), None, None, None, None, (
                    ('host', 'string', (0, 32767), None, None, None, '', None, None),
                    ('port', 'uint16', (0, 32767), None, None, None, 0, None, None),
                )),
                ('client_tags', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('key', 'string', (0, 32767), None, None, None, '', None, None),
                    ('value', 'string', (0, 32767), None, None, None, '', None, None),
                )),
                ('task_offsets', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
                    ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                )),
                ('task_end_offsets', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
                    ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                )),
                ('assignment', 'struct', (0, 32767), None, None, None, {}, None, (
                    ('active_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
                        ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
                    )),
                    ('standby_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
                        ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
                    )),
                    ('warmup_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
                        ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
                    )),
                )),
                ('target_assignment', 'struct', (0, 32767), None, None, None, {}, None, (
                    ('active_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
                        ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
                    )),
                    ('standby_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
                        ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
                    )),
                    ('warmup_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
                        ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
                        ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
                    )),
                )),
                ('is_classic', 'bool', (0, 32767), None, None, None, False, None, None),
            )),
            ('authorized_operations', 'int32', (0, 32767), None, None, None, -2147483648, None, None),
            ('topology_description', 'struct', (1, 32767), (1, 32767), None, None, None, None, (
                ('subtopologies', '[]struct', (1, 32767), None, None, None, (), None, (
                    ('subtopology_id', 'string', (1, 32767), None, None, None, '', None, None),
                    ('nodes', '[]struct', (1, 32767), None, None, None, (), None, (
                        ('name', 'string', (1, 32767), None, None, None, '', None, None),
                        ('node_type', 'int8', (1, 32767), None, None, None, 0, None, None),
                        ('source_topics', '[]string', (1, 32767), None, None, None, (), None, None),
                        ('sink_topic', 'string', (1, 32767), (1, 32767), None, None, None, None, None),
                        ('stores', '[]string', (1, 32767), None, None, None, (), None, None),
                        ('successors', '[]string', (1, 32767), None, None, None, (), None, None),
                    )),
                )),
                ('global_stores', '[]struct', (1, 32767), None, None, None, (), None, (
                    ('source', 'struct', (1, 32767), None, None, None, {}, None, (
                        ('name', 'string', (1, 32767), None, None, None, '', None, None),
                        ('node_type', 'int8', (1, 32767), None, None, None, 0, None, None),
                        ('source_topics', '[]string', (1, 32767), None, None, None, (), None, None),
                        ('sink_topic', 'string', (1, 32767), (1, 32767), None, None, None, None, None),
                        ('stores', '[]string', (1, 32767), None, None, None, (), None, None),
                        ('successors', '[]string', (1, 32767), None, None, None, (), None, None),
                    )),
                    ('processor', 'struct', (1, 32767), None, None, None, {}, None, (
                        ('name', 'string', (1, 32767), None, None, None, '', None, None),
                        ('node_type', 'int8', (1, 32767), None, None, None, 0, None, None),
                        ('source_topics', '[]string', (1, 32767), None, None, None, (), None, None),
                        ('sink_topic', 'string', (1, 32767), (1, 32767), None, None, None, None, None),
                        ('stores', '[]string', (1, 32767), None, None, None, (), None, None),
                        ('successors', '[]string', (1, 32767), None, None, None, (), None, None),
                    )),
                )),
            )),
            ('topology_description_status', 'int8', (1, 32767), None, None, None, 0, None, None),
            ('assignor_name', 'string', (1, 32767), (1, 32767), None, None, None, None, None),
        )),
    )),
    90: ('DescribeShareGroupOffsetsResponse', 90, (0, 1), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('groups', '[]struct', (0, 32767), None, None, None, (), None, (
            ('group_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
                ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
                ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
                ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('start_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
                    ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
                    ('lag', 'int64', (1, 32767), None, None, None, -1, None, None),
                    ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                    ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
                )),
            )),
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        )),
    )),
    91: ('AlterShareGroupOffsetsResponse', 91, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('responses', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition_index', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
            )),
        )),
    )),
    92: ('DeleteShareGroupOffsetsResponse', 92, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        ('responses', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
            ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
        )),
    )),
    93: ('StreamsGroupTopologyDescriptionUpdateResponse', 93, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, None, None, None),
    )),
    94: ('UnregisterControllerResponse', 94, (0, 0), (0, 32767), (
        ('throttle_time_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('error_code', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('error_message', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
    )),
}

HEADERS: dict[str, Any] = {
    'RequestHeader': ('RequestHeader', None, (1, 2), (2, 32767), (
        ('request_api_key', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('request_api_version', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('correlation_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('client_id', 'string', (1, 32767), (1, 32767), None, None, '', (0, -1), None),
    )),
    'ResponseHeader': ('ResponseHeader', None, (0, 1), (1, 32767), (
        ('correlation_id', 'int32', (0, 32767), None, None, None, 0, None, None),
    )),
}

DATA: dict[str, Any] = {
    'AbortedTxn': ('AbortedTxn', None, (0, 0), None, (
        ('producer_id', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('first_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('last_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('last_stable_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
    )),
    'ConsumerGroupCurrentMemberAssignmentKey': ('ConsumerGroupCurrentMemberAssignmentKey', 8, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('member_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ConsumerGroupCurrentMemberAssignmentValue': ('ConsumerGroupCurrentMemberAssignmentValue', 8, (0, 0), (0, 32767), (
        ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('previous_member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('state', 'int8', (0, 32767), None, None, None, 0, None, None),
        ('assigned_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            ('assignment_epochs', '[]int32', (0, 32767), (0, 32767), 0, (0, 32767), (), None, None),
        )),
        ('partitions_pending_revocation', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            ('assignment_epochs', '[]int32', (0, 32767), (0, 32767), 0, (0, 32767), (), None, None),
        )),
    )),
    'ConsumerGroupMemberMetadataKey': ('ConsumerGroupMemberMetadataKey', 5, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('member_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ConsumerGroupMemberMetadataValue': ('ConsumerGroupMemberMetadataValue', 5, (0, 0), (0, 32767), (
        ('instance_id', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('rack_id', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('client_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('client_host', 'string', (0, 32767), None, None, None, '', None, None),
        ('subscribed_topic_names', '[]string', (0, 32767), None, None, None, (), None, None),
        ('subscribed_topic_regex', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('rebalance_timeout_ms', 'int32', (0, 32767), None, None, None, -1, None, None),
        ('server_assignor', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('classic_member_metadata', 'struct', (0, 32767), (0, 32767), 0, (0, 32767), {}, None, (
            ('session_timeout_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('supported_protocols', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('metadata', 'bytes', (0, 32767), None, None, None, b'', None, None),
            )),
        )),
    )),
    'ConsumerGroupMetadataKey': ('ConsumerGroupMetadataKey', 3, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ConsumerGroupMetadataValue': ('ConsumerGroupMetadataValue', 3, (0, 0), (0, 32767), (
        ('epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('metadata_hash', 'int64', (0, 32767), None, 0, (0, 32767), 0, None, None),
    )),
    'ConsumerGroupPartitionMetadataKey': ('ConsumerGroupPartitionMetadataKey', 4, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ConsumerGroupPartitionMetadataValue': ('ConsumerGroupPartitionMetadataValue', 4, (0, 0), (0, 32767), (
        ('topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('num_partitions', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('partition_metadata', '[]struct', (0, 32767), None, None, None, (), None, (
                ('partition', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('racks', '[]string', (0, 32767), None, None, None, (), None, None),
            )),
        )),
    )),
    'ConsumerGroupRegularExpressionKey': ('ConsumerGroupRegularExpressionKey', 16, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('regular_expression', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ConsumerGroupRegularExpressionValue': ('ConsumerGroupRegularExpressionValue', 16, (0, 0), (0, 32767), (
        ('topics', '[]string', (0, 32767), None, None, None, (), None, None),
        ('version', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('timestamp', 'int64', (0, 32767), None, None, None, 0, None, None),
    )),
    'ConsumerGroupTargetAssignmentMemberKey': ('ConsumerGroupTargetAssignmentMemberKey', 7, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('member_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ConsumerGroupTargetAssignmentMemberValue': ('ConsumerGroupTargetAssignmentMemberValue', 7, (0, 0), (0, 32767), (
        ('topic_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
    )),
    'ConsumerGroupTargetAssignmentMetadataKey': ('ConsumerGroupTargetAssignmentMetadataKey', 6, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ConsumerGroupTargetAssignmentMetadataValue': ('ConsumerGroupTargetAssignmentMetadataValue', 6, (0, 0), (0, 32767), (
        ('assignment_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('assignment_timestamp', 'int64', (0, 32767), None, 0, (0, 32767), 0, None, None),
    )),
    'ConsumerProtocolAssignment': ('ConsumerProtocolAssignment', None, (0, 3), None, (
        ('assigned_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('user_data', 'bytes', (0, 32767), (0, 32767), None, None, None, None, None),
    )),
    'ConsumerProtocolSubscription': ('ConsumerProtocolSubscription', None, (0, 3), None, (
        ('topics', '[]string', (0, 32767), None, None, None, (), None, None),
        ('user_data', 'bytes', (0, 32767), (0, 32767), None, None, None, None, None),
        ('owned_partitions', '[]struct', (1, 32767), None, None, None, (), None, (
            ('topic', 'string', (1, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (1, 32767), None, None, None, (), None, None),
        )),
        ('generation_id', 'int32', (2, 32767), None, None, None, -1, None, None),
        ('rack_id', 'string', (3, 32767), (3, 32767), None, None, None, None, None),
    )),
    'ControlRecordTypeSchema': ('ControlRecordTypeSchema', None, (0, 0), None, (
        ('type', 'int16', (0, 32767), None, None, None, 0, None, None),
    )),
    'DefaultPrincipalData': ('DefaultPrincipalData', None, (0, 0), (0, 32767), (
        ('type', 'string', (0, 32767), None, None, None, '', None, None),
        ('name', 'string', (0, 32767), None, None, None, '', None, None),
        ('token_authenticated', 'bool', (0, 32767), None, None, None, False, None, None),
    )),
    'EndTxnMarker': ('EndTxnMarker', None, (0, 0), None, (
        ('coordinator_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
    )),
    'GroupMetadataKey': ('GroupMetadataKey', 2, (0, 0), None, (
        ('group', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'GroupMetadataValue': ('GroupMetadataValue', 2, (0, 4), (4, 32767), (
        ('protocol_type', 'string', (0, 32767), None, None, None, '', None, None),
        ('generation', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('protocol', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('leader', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('current_state_timestamp', 'int64', (2, 32767), None, None, None, -1, None, None),
        ('members', '[]struct', (0, 32767), None, None, None, (), None, (
            ('member_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, None, None, None),
            ('client_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('client_host', 'string', (0, 32767), None, None, None, '', None, None),
            ('rebalance_timeout', 'int32', (1, 32767), None, None, None, -1, None, None),
            ('session_timeout', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('subscription', 'bytes', (0, 32767), None, None, None, b'', None, None),
            ('assignment', 'bytes', (0, 32767), None, None, None, b'', None, None),
        )),
    )),
    'KRaftVersionRecord': ('KRaftVersionRecord', None, (0, 0), (0, 32767), (
        ('version', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('k_raft_version', 'int16', (0, 32767), None, None, None, 0, None, None),
    )),
    'LeaderChangeMessage': ('LeaderChangeMessage', None, (0, 1), (0, 32767), (
        ('version', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('leader_id', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('voters', '[]struct', (0, 32767), None, None, None, (), None, (
            ('voter_id', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('voter_directory_id', 'uuid', (1, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
        )),
        ('granting_voters', '[]struct', (0, 32767), None, None, None, (), None, (
            ('voter_id', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('voter_directory_id', 'uuid', (1, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
        )),
    )),
    'LegacyOffsetCommitKey': ('LegacyOffsetCommitKey', 0, (0, 0), None, (
        ('group', 'string', (0, 0), None, None, None, '', None, None),
        ('topic', 'string', (0, 0), None, None, None, '', None, None),
        ('partition', 'int32', (0, 0), None, None, None, 0, None, None),
    )),
    'LegacyOffsetCommitValue': ('LegacyOffsetCommitValue', 0, (0, 0), None, (
        ('offset', 'int64', (0, 0), None, None, None, 0, None, None),
        ('metadata', 'string', (0, 0), None, None, None, '', None, None),
        ('commit_timestamp', 'int64', (0, 0), None, None, None, 0, None, None),
    )),
    'OffsetCommitKey': ('OffsetCommitKey', 1, (0, 0), None, (
        ('group', 'string', (0, 0), None, None, None, '', None, None),
        ('topic', 'string', (0, 0), None, None, None, '', None, None),
        ('partition', 'int32', (0, 0), None, None, None, 0, None, None),
    )),
    'OffsetCommitValue': ('OffsetCommitValue', 1, (0, 4), (4, 32767), (
        ('offset', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('leader_epoch', 'int32', (3, 32767), None, None, None, -1, None, None),
        ('metadata', 'string', (0, 32767), None, None, None, '', None, None),
        ('commit_timestamp', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('expire_timestamp', 'int64', (1, 1), None, None, None, -1, None, None),
        ('topic_id', 'uuid', (4, 32767), None, 0, (4, 32767), b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
    )),
    'ProducerSnapshot': ('ProducerSnapshot', None, (1, 1), None, (
        ('crc', 'uint32', (1, 1), None, None, None, 0, None, None),
        ('producer_entries', '[]struct', (1, 1), None, None, None, (), None, (
            ('producer_id', 'int64', (1, 1), None, None, None, 0, None, None),
            ('epoch', 'int16', (1, 1), None, None, None, 0, None, None),
            ('last_sequence', 'int32', (1, 1), None, None, None, 0, None, None),
            ('last_offset', 'int64', (1, 1), None, None, None, 0, None, None),
            ('offset_delta', 'int32', (1, 1), None, None, None, 0, None, None),
            ('timestamp', 'int64', (1, 1), None, None, None, 0, None, None),
            ('coordinator_epoch', 'int32', (1, 1), None, None, None, 0, None, None),
            ('current_txn_first_offset', 'int64', (1, 1), None, None, None, 0, None, None),
        )),
    )),
    'ShareGroupCurrentMemberAssignmentKey': ('ShareGroupCurrentMemberAssignmentKey', 14, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('member_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ShareGroupCurrentMemberAssignmentValue': ('ShareGroupCurrentMemberAssignmentValue', 14, (0, 0), (0, 32767), (
        ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('previous_member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('state', 'int8', (0, 32767), None, None, None, 0, None, None),
        ('assigned_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
    )),
    'ShareGroupMemberMetadataKey': ('ShareGroupMemberMetadataKey', 10, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('member_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ShareGroupMemberMetadataValue': ('ShareGroupMemberMetadataValue', 10, (0, 0), (0, 32767), (
        ('rack_id', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('client_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('client_host', 'string', (0, 32767), None, None, None, '', None, None),
        ('subscribed_topic_names', '[]string', (0, 32767), None, None, None, (), None, None),
    )),
    'ShareGroupMetadataKey': ('ShareGroupMetadataKey', 11, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ShareGroupMetadataValue': ('ShareGroupMetadataValue', 11, (0, 0), (0, 32767), (
        ('epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('metadata_hash', 'int64', (0, 32767), None, None, None, 0, None, None),
    )),
    'ShareGroupStatePartitionMetadataKey': ('ShareGroupStatePartitionMetadataKey', 15, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ShareGroupStatePartitionMetadataValue': ('ShareGroupStatePartitionMetadataValue', 15, (0, 0), (0, 32767), (
        ('initializing_topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('initialized_topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('deleting_topics', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('topic_name', 'string', (0, 32767), None, None, None, '', None, None),
        )),
    )),
    'ShareGroupTargetAssignmentMemberKey': ('ShareGroupTargetAssignmentMemberKey', 13, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('member_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ShareGroupTargetAssignmentMemberValue': ('ShareGroupTargetAssignmentMemberValue', 13, (0, 0), (0, 32767), (
        ('topic_partitions', '[]struct', (0, 32767), None, None, None, (), None, (
            ('topic_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
    )),
    'ShareGroupTargetAssignmentMetadataKey': ('ShareGroupTargetAssignmentMetadataKey', 12, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'ShareGroupTargetAssignmentMetadataValue': ('ShareGroupTargetAssignmentMetadataValue', 12, (0, 0), (0, 32767), (
        ('assignment_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('assignment_timestamp', 'int64', (0, 32767), None, 0, (0, 32767), 0, None, None),
    )),
    'ShareSnapshotKey': ('ShareSnapshotKey', 0, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('topic_id', 'uuid', (0, 0), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
        ('partition', 'int32', (0, 0), None, None, None, 0, None, None),
    )),
    'ShareSnapshotValue': ('ShareSnapshotValue', 0, (0, 0), (0, 32767), (
        ('snapshot_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('state_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('start_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('delivery_complete_count', 'int32', (0, 32767), None, 0, (0, 32767), -1, None, None),
        ('create_timestamp', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('write_timestamp', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('state_batches', '[]struct', (0, 32767), None, None, None, (), None, (
            ('first_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('last_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('delivery_state', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('delivery_count', 'int16', (0, 32767), None, None, None, 0, None, None),
        )),
    )),
    'ShareUpdateKey': ('ShareUpdateKey', 1, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('topic_id', 'uuid', (0, 0), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
        ('partition', 'int32', (0, 0), None, None, None, 0, None, None),
    )),
    'ShareUpdateValue': ('ShareUpdateValue', 1, (0, 0), (0, 32767), (
        ('snapshot_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('leader_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('start_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('delivery_complete_count', 'int32', (0, 32767), None, 0, (0, 32767), -1, None, None),
        ('state_batches', '[]struct', (0, 32767), None, None, None, (), None, (
            ('first_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('last_offset', 'int64', (0, 32767), None, None, None, 0, None, None),
            ('delivery_state', 'int8', (0, 32767), None, None, None, 0, None, None),
            ('delivery_count', 'int16', (0, 32767), None, None, None, 0, None, None),
        )),
    )),
    'SnapshotFooterRecord': ('SnapshotFooterRecord', None, (0, 0), (0, 32767), (
        ('version', 'int16', (0, 32767), None, None, None, 0, None, None),
    )),
    'SnapshotHeaderRecord': ('SnapshotHeaderRecord', None, (0, 0), (0, 32767), (
        ('version', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('last_contained_log_timestamp', 'int64', (0, 32767), None, None, None, 0, None, None),
    )),
    'StreamsGroupCurrentMemberAssignmentKey': ('StreamsGroupCurrentMemberAssignmentKey', 22, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('member_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'StreamsGroupCurrentMemberAssignmentValue': ('StreamsGroupCurrentMemberAssignmentValue', 22, (0, 0), (0, 32767), (
        ('member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('previous_member_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('state', 'int8', (0, 32767), None, None, None, 0, None, None),
        ('active_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            ('assignment_epochs', '[]int32', (0, 32767), (0, 32767), 0, (0, 32767), (), None, None),
        )),
        ('standby_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            ('assignment_epochs', '[]int32', (0, 32767), (0, 32767), 0, (0, 32767), (), None, None),
        )),
        ('warmup_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            ('assignment_epochs', '[]int32', (0, 32767), (0, 32767), 0, (0, 32767), (), None, None),
        )),
        ('active_tasks_pending_revocation', '[]struct', (0, 32767), None, None, None, (), None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            ('assignment_epochs', '[]int32', (0, 32767), (0, 32767), 0, (0, 32767), (), None, None),
        )),
        ('standby_tasks_pending_revocation', '[]struct', (0, 32767), None, None, None, (), None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            ('assignment_epochs', '[]int32', (0, 32767), (0, 32767), 0, (0, 32767), (), None, None),
        )),
        ('warmup_tasks_pending_revocation', '[]struct', (0, 32767), None, None, None, (), None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
            ('assignment_epochs', '[]int32', (0, 32767), (0, 32767), 0, (0, 32767), (), None, None),
        )),
    )),
    'StreamsGroupMemberMetadataKey': ('StreamsGroupMemberMetadataKey', 19, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('member_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'StreamsGroupMemberMetadataValue': ('StreamsGroupMemberMetadataValue', 19, (0, 0), (0, 32767), (
        ('instance_id', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('rack_id', 'string', (0, 32767), (0, 32767), None, None, '', None, None),
        ('client_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('client_host', 'string', (0, 32767), None, None, None, '', None, None),
        ('rebalance_timeout_ms', 'int32', (0, 32767), None, None, None, -1, None, None),
        ('topology_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('process_id', 'string', (0, 32767), None, None, None, '', None, None),
        ('user_endpoint', 'struct', (0, 32767), (0, 32767), None, None, None, None, (
            ('host', 'string', (0, 32767), None, None, None, '', None, None),
            ('port', 'uint16', (0, 32767), None, None, None, 0, None, None),
        )),
        ('client_tags', '[]struct', (0, 32767), None, None, None, (), None, (
            ('key', 'string', (0, 32767), None, None, None, '', None, None),
            ('value', 'string', (0, 32767), None, None, None, '', None, None),
        )),
    )),
    'StreamsGroupMetadataKey': ('StreamsGroupMetadataKey', 17, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'StreamsGroupMetadataValue': ('StreamsGroupMetadataValue', 17, (0, 0), (0, 32767), (
        ('epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('metadata_hash', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('validated_topology_epoch', 'int32', (0, 32767), None, 0, (0, 32767), -1, None, None),
        ('last_assignment_configs', '[]struct', (0, 32767), (0, 32767), 1, (0, 32767), (), None, (
            ('key', 'string', (0, 32767), None, None, None, '', None, None),
            ('value', 'string', (0, 32767), None, None, None, '', None, None),
        )),
        ('stored_description_topology_epoch', 'int32', (0, 32767), None, 2, (0, 32767), -1, None, None),
        ('failed_description_topology_epoch', 'int32', (0, 32767), None, 3, (0, 32767), -1, None, None),
    )),
    'StreamsGroupTargetAssignmentMemberKey': ('StreamsGroupTargetAssignmentMemberKey', 21, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
        ('member_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'StreamsGroupTargetAssignmentMemberValue': ('StreamsGroupTargetAssignmentMemberValue', 21, (0, 0), (0, 32767), (
        ('active_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('standby_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('warmup_tasks', '[]struct', (0, 32767), None, None, None, (), None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('partitions', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
    )),
    'StreamsGroupTargetAssignmentMetadataKey': ('StreamsGroupTargetAssignmentMetadataKey', 20, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'StreamsGroupTargetAssignmentMetadataValue': ('StreamsGroupTargetAssignmentMetadataValue', 20, (0, 0), (0, 32767), (
        ('assignment_epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('assignment_timestamp', 'int64', (0, 32767), None, 0, (0, 32767), 0, None, None),
    )),
    'StreamsGroupTopologyKey': ('StreamsGroupTopologyKey', 23, (0, 0), None, (
        ('group_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'StreamsGroupTopologyValue': ('StreamsGroupTopologyValue', 23, (0, 0), (0, 32767), (
        ('epoch', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('subtopologies', '[]struct', (0, 32767), None, None, None, (), None, (
            ('subtopology_id', 'string', (0, 32767), None, None, None, '', None, None),
            ('source_topics', '[]string', (0, 32767), None, None, None, (), None, None),
            ('source_topic_regex', '[]string', (0, 32767), None, None, None, (), None, None),
            ('state_changelog_topics', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('partitions', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('replication_factor', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('topic_configs', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('key', 'string', (0, 32767), None, None, None, '', None, None),
                    ('value', 'string', (0, 32767), None, None, None, '', None, None),
                )),
            )),
            ('repartition_sink_topics', '[]string', (0, 32767), None, None, None, (), None, None),
            ('repartition_source_topics', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('partitions', 'int32', (0, 32767), None, None, None, 0, None, None),
                ('replication_factor', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('topic_configs', '[]struct', (0, 32767), None, None, None, (), None, (
                    ('key', 'string', (0, 32767), None, None, None, '', None, None),
                    ('value', 'string', (0, 32767), None, None, None, '', None, None),
                )),
            )),
            ('copartition_groups', '[]struct', (0, 32767), None, None, None, (), None, (
                ('source_topics', '[]int16', (0, 32767), None, None, None, (), None, None),
                ('source_topic_regex', '[]int16', (0, 32767), None, None, None, (), None, None),
                ('repartition_source_topics', '[]int16', (0, 32767), None, None, None, (), None, None),
            )),
        )),
    )),
    'TransactionLogKey': ('TransactionLogKey', 0, (0, 0), None, (
        ('transactional_id', 'string', (0, 0), None, None, None, '', None, None),
    )),
    'TransactionLogValue': ('TransactionLogValue', 0, (0, 1), (1, 32767), (
        ('producer_id', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('previous_producer_id', 'int64', (1, 32767), None, 0, (1, 32767), -1, None, None),
        ('next_producer_id', 'int64', (1, 32767), None, 1, (1, 32767), -1, None, None),
        ('producer_epoch', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('next_producer_epoch', 'int16', (1, 32767), None, 3, (1, 32767), -1, None, None),
        ('transaction_timeout_ms', 'int32', (0, 32767), None, None, None, 0, None, None),
        ('transaction_status', 'int8', (0, 32767), None, None, None, 0, None, None),
        ('transaction_partitions', '[]struct', (0, 32767), (0, 32767), None, None, (), None, (
            ('topic', 'string', (0, 32767), None, None, None, '', None, None),
            ('partition_ids', '[]int32', (0, 32767), None, None, None, (), None, None),
        )),
        ('transaction_last_update_timestamp_ms', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('transaction_start_timestamp_ms', 'int64', (0, 32767), None, None, None, 0, None, None),
        ('client_transaction_version', 'int16', (1, 32767), None, 2, (1, 32767), 0, None, None),
    )),
    'VotersRecord': ('VotersRecord', None, (0, 0), (0, 32767), (
        ('version', 'int16', (0, 32767), None, None, None, 0, None, None),
        ('voters', '[]struct', (0, 32767), None, None, None, (), None, (
            ('voter_id', 'int32', (0, 32767), None, None, None, 0, None, None),
            ('voter_directory_id', 'uuid', (0, 32767), None, None, None, b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00', None, None),
            ('endpoints', '[]struct', (0, 32767), None, None, None, (), None, (
                ('name', 'string', (0, 32767), None, None, None, '', None, None),
                ('host', 'string', (0, 32767), None, None, None, '', None, None),
                ('port', 'uint16', (0, 32767), None, None, None, 0, None, None),
            )),
            ('k_raft_version_feature', 'struct', (0, 32767), None, None, None, {}, None, (
                ('min_supported_version', 'int16', (0, 32767), None, None, None, 0, None, None),
                ('max_supported_version', 'int16', (0, 32767), None, None, None, 0, None, None),
            )),
        )),
    )),
}
