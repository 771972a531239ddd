//! The leader side of replication: follower fetches move the high watermark, which completes
//! acks=all produces.

use std::time::Duration;

use bytes::Bytes;
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::{
    ApiKey, BrokerId, FetchResponse, ProduceRequest, ProduceResponse, TopicName,
};
use kafka_protocol::protocol::StrBytes;

use super::produce_fetch::fetch_request;
use super::{batch, TestBroker};
use crate::error::ErrorCode;
use crate::properties::{self, table::topic};

const REPLICATED: &str = "replicated";

fn produce_request(timeout_ms: i32) -> ProduceRequest {
    ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(timeout_ms)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(TopicName(StrBytes::from_static_str(REPLICATED)))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(0)
                .with_records(Some(Bytes::from(batch(2, 1_700_000_000_000))))])])
}

#[test]
fn acks_all_waits_for_the_follower() {
    let broker = TestBroker::start(&[]);
    broker
        .server
        .open_partition(REPLICATED, 0, [3; 16], &properties::defaults(topic::ALL))
        .expect("open");
    broker
        .server
        .become_leader(REPLICATED, 0, 1, vec![1, 2], vec![1, 2])
        .expect("lead");
    let mut producer = broker.connect();
    let mut follower = broker.connect();

    // nobody replicates: the produce times out, the data is appended but not committed
    let r: ProduceResponse = producer.call(ApiKey::Produce, 11, &produce_request(200));
    let p = &r.responses[0].partition_responses[0];
    assert_eq!(p.error_code, ErrorCode::RequestTimedOut.code());

    let id = producer.send(ApiKey::Produce, 11, &produce_request(10_000));
    std::thread::sleep(Duration::from_millis(100));
    let as_follower = |offset: i64| {
        let mut r = fetch_request(REPLICATED, offset, 0, 1);
        r.replica_id = BrokerId(2);
        r
    };
    // a follower reads past the high watermark, up to the log end
    let f: FetchResponse = follower.call(ApiKey::Fetch, 12, &as_follower(0));
    let part = &f.responses[0].partitions[0];
    assert_eq!(part.high_watermark, 0);
    assert!(part.records.as_ref().is_some_and(|r| !r.is_empty()));
    // fetching from 4 tells the leader the follower has offsets 0..4
    let f: FetchResponse = follower.call(ApiKey::Fetch, 12, &as_follower(4));
    assert_eq!(f.responses[0].partitions[0].high_watermark, 4);
    let r: ProduceResponse = producer.receive(11, id);
    let p = &r.responses[0].partition_responses[0];
    assert_eq!((p.error_code, p.base_offset), (0, 2));
}

#[test]
fn a_diverging_follower_is_told_where_to_truncate() {
    let broker = TestBroker::start(&[]);
    broker
        .server
        .open_partition(REPLICATED, 0, [3; 16], &properties::defaults(topic::ALL))
        .expect("open");
    broker
        .server
        .become_leader(REPLICATED, 0, 1, vec![1], vec![1, 2])
        .expect("lead");
    let mut producer = broker.connect();
    let _: ProduceResponse = producer.call(ApiKey::Produce, 11, &produce_request(1000));
    broker
        .server
        .become_leader(REPLICATED, 0, 3, vec![1], vec![1, 2])
        .expect("epoch 3");
    let _: ProduceResponse = producer.call(ApiKey::Produce, 11, &produce_request(1000));
    // epoch 1 holds offsets 0-1, epoch 3 offsets 2-3
    let mut follower = broker.connect();
    let ask = |follower: &mut super::Client, last_epoch: i32, offset: i64| {
        let mut r = fetch_request(REPLICATED, offset, 0, 1);
        r.replica_id = BrokerId(2);
        r.topics[0].partitions[0].last_fetched_epoch = last_epoch;
        let f: FetchResponse = follower.call(ApiKey::Fetch, 12, &r);
        let p = &f.responses[0].partitions[0];
        (
            p.error_code,
            p.diverging_epoch.epoch,
            p.diverging_epoch.end_offset,
            p.records.clone(),
        )
    };
    // the follower wrote epoch 2 up to offset 5, which this leader never had: truncate to 2
    let (error, epoch, end, records) = ask(&mut follower, 2, 5);
    assert_eq!((error, epoch, end), (0, 1, 2));
    assert!(records.unwrap_or_default().is_empty());
    // a follower that agrees gets data and no divergence
    let (error, epoch, _, records) = ask(&mut follower, 1, 2);
    assert_eq!((error, epoch), (0, -1));
    assert!(records.is_some_and(|r| !r.is_empty()));
}
