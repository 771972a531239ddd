use std::time::{Duration, Instant};

use bytes::Bytes;
use kafka_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::{
    ApiKey, BrokerId, FetchRequest, FetchResponse, ProduceRequest, ProduceResponse, TopicName,
};
use kafka_protocol::protocol::StrBytes;

use super::{batch, Client, TestBroker, TOPIC};
use crate::error::ErrorCode;
use crate::properties::{self, table::topic};
use crate::record::validate::assign_offsets;

fn produce_request(topic: &str, records: &[u8], acks: i16) -> ProduceRequest {
    ProduceRequest::default()
        .with_acks(acks)
        .with_timeout_ms(5000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(TopicName(StrBytes::from_string(topic.to_string())))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(0)
                .with_records(Some(Bytes::copy_from_slice(records)))])])
}

/// (error code, base offset) of the single partition.
fn produce(
    client: &mut Client,
    version: i16,
    topic: &str,
    records: &[u8],
    acks: i16,
) -> (i16, i64) {
    let r: ProduceResponse = client.call(
        ApiKey::Produce,
        version,
        &produce_request(topic, records, acks),
    );
    let p = &r.responses[0].partition_responses[0];
    (p.error_code, p.base_offset)
}

pub(super) fn fetch_request(
    topic: &str,
    offset: i64,
    max_wait_ms: i32,
    min_bytes: i32,
) -> FetchRequest {
    FetchRequest::default()
        .with_replica_id(BrokerId(-1))
        .with_max_wait_ms(max_wait_ms)
        .with_min_bytes(min_bytes)
        .with_max_bytes(1 << 20)
        .with_topics(vec![FetchTopic::default()
            .with_topic(TopicName(StrBytes::from_string(topic.to_string())))
            .with_partitions(vec![FetchPartition::default()
                .with_partition(0)
                .with_fetch_offset(offset)
                .with_current_leader_epoch(-1)
                .with_partition_max_bytes(1 << 20)])])
}

/// (error code, high watermark, records) of the single partition.
fn fetch(client: &mut Client, version: i16, request: &FetchRequest) -> (i16, i64, Bytes) {
    let r: FetchResponse = client.call(ApiKey::Fetch, version, request);
    let p = &r.responses[0].partitions[0];
    (
        p.error_code,
        p.high_watermark,
        p.records.clone().unwrap_or_default(),
    )
}

/// The batch as the log stores it: base offset and leader epoch assigned.
fn stored(mut batch: Vec<u8>, base_offset: i64) -> Vec<u8> {
    assign_offsets(&mut batch, base_offset, 1);
    batch
}

#[test]
fn produce_then_fetch_returns_the_stored_bytes_at_every_version() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    let first = batch(3, 1_700_000_000_000);
    let second = batch(2, 1_700_000_000_100);
    assert_eq!(produce(&mut client, 11, TOPIC, &first, 1), (0, 0));
    assert_eq!(produce(&mut client, 3, TOPIC, &second, -1), (0, 3));
    let mut expected = stored(first, 0);
    expected.extend(stored(second.clone(), 3));
    for version in 4..=12 {
        let (error, hw, records) = fetch(&mut client, version, &fetch_request(TOPIC, 0, 0, 1));
        assert_eq!((error, hw), (0, 5), "v{version}");
        assert_eq!(&records[..], &expected[..], "v{version}");
    }
    // an offset inside the second batch returns that whole batch
    let (_, _, records) = fetch(&mut client, 12, &fetch_request(TOPIC, 4, 0, 1));
    assert_eq!(&records[..], &stored(second, 3)[..]);
}

#[test]
fn acks_zero_sends_nothing_and_keeps_order() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    client.send(ApiKey::Produce, 9, &produce_request(TOPIC, &batch(1, 1), 0));
    // the next response on the connection is the fetch's, and it sees the acks=0 append
    let (error, hw, records) = fetch(&mut client, 12, &fetch_request(TOPIC, 0, 0, 1));
    assert_eq!((error, hw), (0, 1));
    assert!(!records.is_empty());
}

#[test]
fn acks_zero_error_closes_the_connection() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    client.send(
        ApiKey::Produce,
        9,
        &produce_request("missing", &batch(1, 1), 0),
    );
    assert!(client.is_closed());
}

#[test]
fn corrupt_crc_is_refused_and_not_appended() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    let mut bad = batch(2, 1_700_000_000_000);
    let last = bad.len() - 1;
    bad[last] ^= 0xff;
    assert_eq!(
        produce(&mut client, 11, TOPIC, &bad, 1).0,
        ErrorCode::CorruptMessage.code()
    );
    let (error, hw, records) = fetch(&mut client, 12, &fetch_request(TOPIC, 0, 0, 1));
    assert_eq!((error, hw), (0, 0));
    assert!(records.is_empty());
}

#[test]
fn produce_errors_per_partition() {
    let broker = TestBroker::start(&[]);
    broker.add_partition("strict", 0, &[("min.insync.replicas", "2")]);
    let mut client = broker.connect();
    let b = batch(1, 1_700_000_000_000);
    assert_eq!(
        produce(&mut client, 11, "missing", &b, 1).0,
        ErrorCode::UnknownTopicOrPartition.code()
    );
    assert_eq!(
        produce(&mut client, 11, TOPIC, &b, 2).0,
        ErrorCode::InvalidRequiredAcks.code()
    );
    assert_eq!(
        produce(&mut client, 11, "strict", &b, -1).0,
        0,
        "min.insync.replicas counts at most the partition's one replica"
    );
    assert_eq!(produce(&mut client, 11, "strict", &b, 1).0, 0);
    let mut two = b.clone();
    two.extend_from_slice(&b);
    assert_eq!(
        produce(&mut client, 11, TOPIC, &two, 1).0,
        ErrorCode::InvalidRecord.code()
    );
    broker
        .server
        .open_partition("idle", 0, [1; 16], &properties::defaults(topic::ALL))
        .expect("open");
    assert_eq!(
        produce(&mut client, 11, "idle", &b, 1).0,
        ErrorCode::NotLeaderOrFollower.code()
    );
}

#[test]
fn long_poll_wakes_on_produce() {
    let broker = TestBroker::start(&[]);
    let mut consumer = broker.connect();
    let mut producer = broker.connect();
    let started = Instant::now();
    let id = consumer.send(ApiKey::Fetch, 12, &fetch_request(TOPIC, 0, 10_000, 1));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(produce(&mut producer, 11, TOPIC, &batch(1, 1), 1).0, 0);
    let r: FetchResponse = consumer.receive(12, id);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "woke on the append, not the timeout"
    );
    assert!(r.responses[0].partitions[0]
        .records
        .as_ref()
        .is_some_and(|r| !r.is_empty()));
}

#[test]
fn long_poll_answers_empty_at_max_wait() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    let started = Instant::now();
    let (error, hw, records) = fetch(&mut client, 12, &fetch_request(TOPIC, 0, 300, 1));
    assert!(started.elapsed() >= Duration::from_millis(250));
    assert_eq!((error, hw), (0, 0));
    assert!(records.is_empty());
}

#[test]
fn fetch_checks_leader_epoch_and_range() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    let with_epoch = |epoch: i32| {
        let mut r = fetch_request(TOPIC, 0, 0, 1);
        r.topics[0].partitions[0].current_leader_epoch = epoch;
        r
    };
    assert_eq!(
        fetch(&mut client, 12, &with_epoch(0)).0,
        ErrorCode::FencedLeaderEpoch.code()
    );
    assert_eq!(
        fetch(&mut client, 12, &with_epoch(2)).0,
        ErrorCode::UnknownLeaderEpoch.code()
    );
    assert_eq!(fetch(&mut client, 12, &with_epoch(1)).0, 0);
    // before v9 the field does not exist, so no check
    assert_eq!(fetch(&mut client, 8, &with_epoch(0)).0, 0);
    assert_eq!(
        fetch(&mut client, 12, &fetch_request(TOPIC, 5, 0, 1)).0,
        ErrorCode::OffsetOutOfRange.code()
    );
    assert_eq!(
        fetch(&mut client, 12, &fetch_request("missing", 0, 0, 1)).0,
        ErrorCode::UnknownTopicOrPartition.code()
    );
}

#[test]
fn frames_larger_than_the_initial_allocation_round_trip() {
    let broker = TestBroker::start(&[]);
    broker.add_partition("big", 0, &[("max.message.bytes", "10485760")]);
    let mut client = broker.connect();
    let mut b = crate::record::builder::BatchBuilder::new(crate::record::compression::Codec::None);
    b.records = vec![crate::record::builder::Record {
        key: None,
        value: Some((0..3_000_000u32).map(|i| i as u8).collect()),
        headers: vec![],
        timestamp: 1_700_000_000_000,
    }];
    let big = b.build();
    assert_eq!(produce(&mut client, 11, "big", &big, 1), (0, 0));
    let mut request = fetch_request("big", 0, 0, 1);
    request.max_bytes = 10 << 20;
    request.topics[0].partitions[0].partition_max_bytes = 10 << 20;
    let (error, _, records) = fetch(&mut client, 12, &request);
    assert_eq!(error, 0);
    assert_eq!(&records[..], &stored(big, 0)[..]);
}
