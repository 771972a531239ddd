use bytes::Bytes;
use kafka_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use kafka_protocol::messages::offset_for_leader_epoch_request::{
    OffsetForLeaderPartition, OffsetForLeaderTopic,
};
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::{
    ApiKey, ListOffsetsRequest, ListOffsetsResponse, OffsetForLeaderEpochRequest,
    OffsetForLeaderEpochResponse, ProduceRequest, ProduceResponse, TopicName,
};
use kafka_protocol::protocol::StrBytes;

use super::{batch, Client, TestBroker, TOPIC};
use crate::error::ErrorCode;

fn name(topic: &str) -> TopicName {
    TopicName(StrBytes::from_string(topic.to_string()))
}

fn produce(client: &mut Client, records: Vec<u8>) {
    let request = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(5000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(name(TOPIC))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(0)
                .with_records(Some(Bytes::from(records)))])]);
    let r: ProduceResponse = client.call(ApiKey::Produce, 11, &request);
    assert_eq!(r.responses[0].partition_responses[0].error_code, 0);
}

/// (error, offset, timestamp, leader epoch)
fn list_offsets(
    client: &mut Client,
    version: i16,
    topic: &str,
    timestamp: i64,
    epoch: i32,
) -> (i16, i64, i64, i32) {
    let request = ListOffsetsRequest::default()
        .with_replica_id((-1).into())
        .with_topics(vec![ListOffsetsTopic::default()
            .with_name(name(topic))
            .with_partitions(vec![ListOffsetsPartition::default()
                .with_partition_index(0)
                .with_timestamp(timestamp)
                .with_current_leader_epoch(epoch)])]);
    let r: ListOffsetsResponse = client.call(ApiKey::ListOffsets, version, &request);
    let p = &r.topics[0].partitions[0];
    (p.error_code, p.offset, p.timestamp, p.leader_epoch)
}

#[test]
fn list_offsets_earliest_latest_and_by_time() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    let t0 = 1_700_000_000_000;
    produce(&mut client, batch(3, t0));
    produce(&mut client, batch(3, t0 + 1000));
    assert_eq!(list_offsets(&mut client, 7, TOPIC, -2, -1).1, 0);
    assert_eq!(list_offsets(&mut client, 7, TOPIC, -1, -1), (0, 6, -1, 1));
    assert_eq!(list_offsets(&mut client, 1, TOPIC, -1, -1).1, 6);
    let (error, offset, timestamp, _) = list_offsets(&mut client, 7, TOPIC, t0 + 1001, -1);
    assert_eq!((error, offset, timestamp), (0, 4, t0 + 1001));
    // everything is older: no offset
    assert_eq!(list_offsets(&mut client, 7, TOPIC, t0 + 99_999, -1).1, -1);
    let (_, offset, timestamp, _) = list_offsets(&mut client, 7, TOPIC, -3, -1);
    assert_eq!((offset, timestamp), (5, t0 + 1002));
    assert_eq!(
        list_offsets(&mut client, 7, TOPIC, -1, 0).0,
        ErrorCode::FencedLeaderEpoch.code()
    );
    assert_eq!(
        list_offsets(&mut client, 7, "missing", -1, -1).0,
        ErrorCode::UnknownTopicOrPartition.code()
    );
}

#[test]
fn list_offsets_tiered_timestamps_without_remote_storage() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    produce(&mut client, batch(3, 1_700_000_000_000));
    let earliest = list_offsets(&mut client, 10, TOPIC, -2, -1);
    // Earliest-local (v8) is the earliest; latest-tiered (v9) is no offset, without an error.
    assert_eq!(list_offsets(&mut client, 8, TOPIC, -4, -1), earliest);
    assert_eq!(
        list_offsets(&mut client, 10, TOPIC, -5, -1),
        (0, -1, -1, -1)
    );
    let unsupported = ErrorCode::UnsupportedVersion.code();
    // A special timestamp older than its version, or one Kafka does not know.
    assert_eq!(list_offsets(&mut client, 6, TOPIC, -3, -1).0, unsupported);
    assert_eq!(list_offsets(&mut client, 7, TOPIC, -4, -1).0, unsupported);
    assert_eq!(list_offsets(&mut client, 8, TOPIC, -5, -1).0, unsupported);
    assert_eq!(list_offsets(&mut client, 10, TOPIC, -6, -1).0, unsupported);
    // Earliest-pending-upload (v11, the layout of v10): no offset, as latest-tiered.
    assert_eq!(
        list_offsets(&mut client, 11, TOPIC, -6, -1),
        (0, -1, -1, -1)
    );
    assert_eq!(list_offsets(&mut client, 11, TOPIC, -2, -1), earliest);
    assert_eq!(list_offsets(&mut client, 11, TOPIC, -7, -1).0, unsupported);
    assert_eq!(list_offsets(&mut client, 10, TOPIC, -7, -1).0, unsupported);
}

#[test]
fn offset_for_leader_epoch_answers_from_the_epoch_cache() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    produce(&mut client, batch(2, 1_700_000_000_000));
    broker
        .server
        .become_leader(TOPIC, 0, 3, vec![1], vec![1])
        .expect("new epoch");
    produce(&mut client, batch(2, 1_700_000_000_000));
    let ask = |client: &mut Client, version: i16, epoch: i32, current: i32| {
        let request = OffsetForLeaderEpochRequest::default()
            .with_replica_id((-1).into())
            .with_topics(vec![OffsetForLeaderTopic::default()
                .with_topic(name(TOPIC))
                .with_partitions(vec![OffsetForLeaderPartition::default()
                    .with_partition(0)
                    .with_leader_epoch(epoch)
                    .with_current_leader_epoch(current)])]);
        let r: OffsetForLeaderEpochResponse =
            client.call(ApiKey::OffsetForLeaderEpoch, version, &request);
        let p = &r.topics[0].partitions[0];
        (p.error_code, p.leader_epoch, p.end_offset)
    };
    for version in 2..=4 {
        assert_eq!(ask(&mut client, version, 1, -1), (0, 1, 2), "v{version}");
        assert_eq!(ask(&mut client, version, 2, 3), (0, 1, 2), "v{version}");
        assert_eq!(ask(&mut client, version, 3, 3), (0, 3, 4), "v{version}");
    }
    assert_eq!(
        ask(&mut client, 4, 3, 1).0,
        ErrorCode::FencedLeaderEpoch.code()
    );
}

#[test]
fn stale_leadership_commands_are_refused() {
    let broker = TestBroker::start(&[]);
    broker
        .server
        .become_leader(TOPIC, 0, 5, vec![1], vec![1])
        .expect("newer epoch");
    broker
        .server
        .become_leader(TOPIC, 0, 5, vec![1], vec![1])
        .expect("same epoch again");
    let err = broker
        .server
        .become_leader(TOPIC, 0, 4, vec![1], vec![1])
        .expect_err("older epoch");
    assert!(matches!(
        err,
        crate::server::CommandError::Kafka(ErrorCode::FencedLeaderEpoch, _)
    ));
    let mut client = broker.connect();
    assert_eq!(list_offsets(&mut client, 7, TOPIC, -1, 5).3, 5);
}
