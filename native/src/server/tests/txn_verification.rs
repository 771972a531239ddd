//! KIP-890 part 1 through the public surface: the first transactional batch of a transaction
//! waits for the coordinator's answer (played here by the test, as Python answers on the
//! control bridge); refused batches are not appended, confirmed transactions need no second
//! question until their marker.

use std::thread;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::add_partitions_to_txn_response::{
    AddPartitionsToTxnPartitionResult, AddPartitionsToTxnResult, AddPartitionsToTxnTopicResult,
};
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::{
    AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, ApiKey, ProduceRequest, ProduceResponse,
    RequestHeader, TopicName,
};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, StrBytes};

use super::transactions::transactional_batch;
use super::{TestBroker, TOPIC};
use crate::control::ControlReply;
use crate::record::batch::{compute_crc, BASE_SEQUENCE, CRC};
use crate::server::api::NATIVE_PEER;

fn produce(txn: Option<&'static str>) -> ProduceRequest {
    ProduceRequest::default()
        .with_transactional_id(txn.map(|t| StrBytes::from_static_str(t).into()))
        .with_acks(-1)
        .with_timeout_ms(5000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(TopicName(StrBytes::from_static_str(TOPIC)))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_records(Some(Bytes::from(transactional_batch())))])])
}

/// Answers the next verification the native core asks with `code` for every partition;
/// returns what was asked: (transactional id, producer id, epoch, verify only, partitions).
fn answer_one(broker: &TestBroker, code: i16) -> (String, i64, i16, bool, Vec<i32>) {
    let control = &broker.server.broker().control;
    let deadline = Instant::now() + Duration::from_secs(5);
    let request = loop {
        if let Some(r) = control.take_requests(16).pop() {
            break r;
        }
        assert!(Instant::now() < deadline, "no verification was asked");
        thread::sleep(Duration::from_millis(5));
    };
    assert_eq!((request.api_key, request.api_version), (24, 4));
    assert_eq!(request.peer, NATIVE_PEER);
    let mut frame = request.frame.clone();
    RequestHeader::decode(&mut frame, AddPartitionsToTxnRequest::header_version(4)).expect("h");
    let asked = AddPartitionsToTxnRequest::decode(&mut frame, 4).expect("body");
    let txn = &asked.transactions[0];
    let topic = &txn.topics[0];
    let response = AddPartitionsToTxnResponse::default().with_results_by_transaction(vec![
        AddPartitionsToTxnResult::default()
            .with_transactional_id(txn.transactional_id.clone())
            .with_topic_results(vec![AddPartitionsToTxnTopicResult::default()
                .with_name(topic.name.clone())
                .with_results_by_partition(
                    topic
                        .partitions
                        .iter()
                        .map(|&p| {
                            AddPartitionsToTxnPartitionResult::default()
                                .with_partition_index(p)
                                .with_partition_error_code(code)
                        })
                        .collect(),
                )]),
    ]);
    let mut out = BytesMut::new();
    crate::protocol::put_response_header(&mut out, request.correlation_id, 1);
    response.encode(&mut out, 4).expect("encode");
    control.reply(request.handle, ControlReply::Respond(out.freeze()));
    (
        txn.transactional_id.0.to_string(),
        txn.producer_id.0,
        txn.producer_epoch,
        txn.verify_only,
        topic.partitions.clone(),
    )
}

/// The test's transactional batch with base sequence `sequence`.
fn at_sequence(sequence: i32) -> Vec<u8> {
    let mut batch = transactional_batch();
    batch[BASE_SEQUENCE..BASE_SEQUENCE + 4].copy_from_slice(&sequence.to_be_bytes());
    let crc = compute_crc(&batch);
    batch[CRC..CRC + 4].copy_from_slice(&crc.to_be_bytes());
    batch
}

fn log_end(broker: &TestBroker) -> i64 {
    let partition = broker.server.broker().partitions.get(TOPIC, 0).expect("p");
    partition.progress().log_end_offset
}

#[test]
fn a_transactions_first_batch_waits_for_the_coordinator() {
    let broker = TestBroker::start(&[]);
    let coordinator = {
        let b: &'static TestBroker = Box::leak(Box::new(broker));
        b
    };
    let mut client = coordinator.connect();

    // Not added to the transaction: refused (TRANSACTION_ABORTABLE for v11, INVALID_TXN_STATE
    // before), nothing appended.
    let asker = thread::spawn(move || answer_one(coordinator, 48));
    let r: ProduceResponse = client.call(ApiKey::Produce, 11, &produce(Some("tx")));
    assert_eq!(
        asker.join().expect("answer"),
        ("tx".into(), 7, 0, true, vec![0])
    );
    assert_eq!(r.responses[0].partition_responses[0].error_code, 120);
    let asker = thread::spawn(move || answer_one(coordinator, 48));
    let r: ProduceResponse = client.call(ApiKey::Produce, 9, &produce(Some("tx")));
    asker.join().expect("answer");
    assert_eq!(r.responses[0].partition_responses[0].error_code, 48);
    // The coordinator away: retriable.
    let asker = thread::spawn(move || answer_one(coordinator, 16));
    let r: ProduceResponse = client.call(ApiKey::Produce, 9, &produce(Some("tx")));
    asker.join().expect("answer");
    assert_eq!(r.responses[0].partition_responses[0].error_code, 19);
    // Transactional records with no transactional id are never appended.
    let r: ProduceResponse = client.call(ApiKey::Produce, 9, &produce(None));
    assert_eq!(r.responses[0].partition_responses[0].error_code, 48);
    assert_eq!(log_end(coordinator), 0);

    // Confirmed: appended; the transaction's next batch asks nothing more.
    let asker = thread::spawn(move || answer_one(coordinator, 0));
    let r: ProduceResponse = client.call(ApiKey::Produce, 9, &produce(Some("tx")));
    asker.join().expect("answer");
    assert_eq!(r.responses[0].partition_responses[0].error_code, 0);
    assert_eq!(log_end(coordinator), 3);
    let mut request = produce(Some("tx"));
    request.topic_data[0].partition_data[0].records = Some(Bytes::from(at_sequence(3)));
    let r: ProduceResponse = client.call(ApiKey::Produce, 9, &request);
    assert_eq!(r.responses[0].partition_responses[0].error_code, 0);
    assert!(coordinator
        .server
        .broker()
        .control
        .take_requests(16)
        .is_empty());

    // The marker ends it: a late batch of the ended transaction must ask again.
    let partition = coordinator
        .server
        .broker()
        .partitions
        .get(TOPIC, 0)
        .expect("p");
    partition
        .append_marker(7, 0, 0, true, 0, 1)
        .expect("marker");
    let asker = thread::spawn(move || answer_one(coordinator, 48));
    request.topic_data[0].partition_data[0].records = Some(Bytes::from(at_sequence(6)));
    let r: ProduceResponse = client.call(ApiKey::Produce, 9, &request);
    asker.join().expect("answer");
    assert_eq!(r.responses[0].partition_responses[0].error_code, 48);
    assert_eq!(log_end(coordinator), 7);
}
