//! read_committed consumers: fetches stop at the last stable offset and carry the aborted
//! transactions; ListOffsets answers the LSO for them.

use bytes::Bytes;
use kafka_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::write_txn_markers_request::{
    WritableTxnMarker, WritableTxnMarkerTopic,
};
use kafka_protocol::messages::{
    ApiKey, FetchResponse, ListOffsetsRequest, ListOffsetsResponse, ProduceRequest,
    ProduceResponse, ProducerId, TopicName, WriteTxnMarkersRequest, WriteTxnMarkersResponse,
};
use kafka_protocol::protocol::StrBytes;

use super::produce_fetch::fetch_request;
use super::{Client, TestBroker, TOPIC};
use crate::record::builder::{BatchBuilder, Record};
use crate::record::compression::Codec;

fn name() -> TopicName {
    TopicName(StrBytes::from_static_str(TOPIC))
}

pub(super) fn transactional_batch() -> Vec<u8> {
    let mut b = BatchBuilder::new(Codec::None);
    b.producer_id = 7;
    b.producer_epoch = 0;
    b.base_sequence = 0;
    b.transactional = true;
    b.records = (0..3)
        .map(|i| Record {
            key: None,
            value: Some(vec![i]),
            headers: vec![],
            timestamp: 1,
        })
        .collect();
    b.build()
}

/// Opens producer 7's transaction with three records at offsets 0-2.
fn produce_transaction(client: &mut Client) {
    let produce = ProduceRequest::default()
        .with_transactional_id(Some(StrBytes::from_static_str("tx").into()))
        .with_acks(-1)
        .with_timeout_ms(1000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(name())
            .with_partition_data(vec![PartitionProduceData::default()
                .with_records(Some(Bytes::from(transactional_batch())))])]);
    let r: ProduceResponse = client.call(ApiKey::Produce, 11, &produce);
    assert_eq!(r.responses[0].partition_responses[0].error_code, 0);
}

/// (HW, LSO, aborted transactions as (producer id, first offset), record bytes).
type Fetched = (i64, i64, Option<Vec<(i64, i64)>>, usize);

/// A fetch from offset 0.
fn fetch(client: &mut Client, read_committed: bool) -> Fetched {
    let mut request = fetch_request(TOPIC, 0, 0, 1);
    request.isolation_level = i8::from(read_committed);
    let r: FetchResponse = client.call(ApiKey::Fetch, 12, &request);
    let p = &r.responses[0].partitions[0];
    let aborted = p.aborted_transactions.as_ref().map(|list| {
        list.iter()
            .map(|t| (t.producer_id.0, t.first_offset))
            .collect()
    });
    (
        p.high_watermark,
        p.last_stable_offset,
        aborted,
        p.records.as_ref().map_or(0, |r| r.len()),
    )
}

fn latest(client: &mut Client, read_committed: bool) -> i64 {
    let request = ListOffsetsRequest::default()
        .with_replica_id((-1).into())
        .with_isolation_level(i8::from(read_committed))
        .with_topics(vec![ListOffsetsTopic::default()
            .with_name(name())
            .with_partitions(vec![
                ListOffsetsPartition::default().with_timestamp(-1)
            ])]);
    let r: ListOffsetsResponse = client.call(ApiKey::ListOffsets, 7, &request);
    r.topics[0].partitions[0].offset
}

#[test]
fn read_committed_stops_at_the_lso_and_sees_aborts() {
    // No coordinator here to confirm the transaction (tests/txn_verification.rs has one).
    let broker = TestBroker::start(&[("transaction.partition.verification.enable", "false")]);
    let mut client = broker.connect();
    produce_transaction(&mut client);

    // the transaction is open: committed data ends at offset 0 for read_committed
    let (hw, lso, aborted, bytes) = fetch(&mut client, false);
    assert_eq!((hw, lso, aborted), (3, 0, None));
    assert!(bytes > 0);
    let (_, lso, aborted, bytes) = fetch(&mut client, true);
    assert_eq!((lso, aborted, bytes), (0, Some(vec![]), 0));
    assert_eq!(
        (latest(&mut client, false), latest(&mut client, true)),
        (3, 0)
    );

    // the coordinator aborts it
    let partition = broker
        .server
        .broker()
        .partitions
        .get(TOPIC, 0)
        .expect("partition");
    let marker = partition
        .append_marker(7, 0, 0, false, 0, 1)
        .expect("marker");
    assert_eq!(marker.base_offset, 3);
    let (hw, lso, aborted, bytes) = fetch(&mut client, true);
    assert_eq!((hw, lso, aborted), (4, 4, Some(vec![(7, 0)])));
    assert!(
        bytes > 0,
        "the aborted records come back, for the consumer to drop"
    );
}

fn markers_request(partitions: &[(&str, i32)]) -> WriteTxnMarkersRequest {
    let topics = partitions
        .iter()
        .map(|(topic, p)| {
            WritableTxnMarkerTopic::default()
                .with_name(TopicName(StrBytes::from_string(topic.to_string())))
                .with_partition_indexes(vec![*p])
        })
        .collect();
    WriteTxnMarkersRequest::default().with_markers(vec![WritableTxnMarker::default()
        .with_producer_id(ProducerId(7))
        .with_producer_epoch(0)
        .with_transaction_result(true)
        .with_coordinator_epoch(0)
        .with_topics(topics)])
}

#[test]
fn write_txn_markers_is_served_natively_and_reports_offsets_markers() {
    let broker = TestBroker::start(&[("transaction.partition.verification.enable", "false")]);
    broker.add_partition("__consumer_offsets", 0, &[]);
    let mut client = broker.connect();
    produce_transaction(&mut client);
    assert_eq!(latest(&mut client, true), 0);

    let request = markers_request(&[(TOPIC, 0), ("__consumer_offsets", 0), (TOPIC, 9)]);
    let r: WriteTxnMarkersResponse = client.call(ApiKey::WriteTxnMarkers, 1, &request);
    let codes: Vec<(String, i32, i16)> = r.markers[0]
        .topics
        .iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .map(|p| (t.name.0.to_string(), p.partition_index, p.error_code))
        })
        .collect();
    let unknown = crate::error::ErrorCode::UnknownTopicOrPartition.code();
    assert_eq!(
        codes,
        vec![
            (TOPIC.to_string(), 0, 0),
            ("__consumer_offsets".to_string(), 0, 0),
            (TOPIC.to_string(), 9, unknown),
        ]
    );
    // The COMMIT marker ended the transaction: read_committed reads through it.
    assert_eq!(latest(&mut client, true), 4);
    // Only the marker in __consumer_offsets goes to the group coordinator.
    let (_, written) = broker.server.broker().completions.take();
    assert_eq!(written, vec![(0, 7, true)]);
}
